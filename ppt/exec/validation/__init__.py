"""A prediction checked against the real run (``ppt validate``): the program run for real under ``mpiexec`` with
a timing wrapper (:mod:`.timed`), how busy the shared host was meanwhile (:mod:`.hostload`), and the loop that
alternates real runs and ``ppt exec`` predictions (:mod:`.validate`)."""

"""Several jobs sharing one machine: the job list (``joblist``), node allocation policies
(``allocation``) and the run that mixes them in one simulation (``mix``)."""

"""Running unmodified mpi4py programs on simulated ranks (``ppt exec``).

Every simulated rank runs the program's ``__main__`` in a namespace of its
own (:mod:`ppt.exec.program`): ``import mpi4py`` / ``from mpi4py import MPI``
give that rank's simulated MPI (:mod:`ppt.exec.shim`), its ``time`` and
``datetime`` tell its simulated time (:mod:`ppt.exec.clocks`), its ``os.chdir``
and ``sys`` streams and ``argv`` are its own (:mod:`ppt.exec.cwd`,
:mod:`ppt.exec.sysview`), and modules the
program imports from its own folder are loaded once per rank, so module-level
state never leaks between ranks.  What a rank prints comes out as under
``mpiexec`` or in files of its own (:mod:`ppt.exec.streams`).  What a rank
writes to a module the ranks share is its own (:mod:`ppt.exec.rewrite`,
:mod:`ppt.exec.cow`), and a KeyboardInterrupt it raises ends it as under
``mpiexec``, not ppt (:mod:`ppt.exec.interrupts`).  The CPU time a rank's
own Python code spends between MPI calls becomes simulated compute time
(:mod:`ppt.exec.meter`).  :func:`ppt.exec.runner.exec_program` ties them
together; :mod:`ppt.exec.current` tells which rank runs.
"""

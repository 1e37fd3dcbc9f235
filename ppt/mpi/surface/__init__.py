"""The mpi4py-style surface a simulated rank's program calls (what ``from mpi4py import MPI`` gives a program
under ``ppt exec``, and what a model's ``main(mpi)`` receives).

Four rooms, lowest first, each importing only those below it (``topology`` and ``rma`` not each other):

* ``buffers``: mpi4py's buffer arguments and datatypes;
* ``core``: what every call stands on: its bookkeeping (``calls``), the compiled hot point-to-point calls
  and waits (``fast``), requests and statuses, null handles;
* ``communicators``: intra- and intercommunicators, groups, matched messages, persistent requests,
  nonblocking collectives and mpi4py's uppercase buffer calls;
* ``topology`` (Cartesian and graph communicators, neighbourhood collectives) and ``rma`` (windows);

and above them the modules that tie them together: ``environment`` and ``lanl`` (the ``MPI`` module's own
functions, LANL PPT style ``mpi_*`` functions), ``names`` (mpi4py's spellings, given to every class), and
``api`` (the per-rank ``MPI`` object) above all.
"""

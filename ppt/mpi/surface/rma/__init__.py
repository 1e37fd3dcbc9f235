"""One-sided communication (MPI RMA): windows and their operations (``window``), their synchronisation
(``sync``: fences, locks, PSCW) and the transfers on the simulated network (``transfer``).  It imports
``communicators``, ``core`` and ``buffers`` of the surface, not ``topology``."""

"""mpi4py's buffer arguments (``arguments``: ``[buf, count, datatype]`` parsed into typed views of the caller's
memory, ``IN_PLACE``, ``BOTTOM``) and datatypes (``datatypes``).  The lowest room of the surface: it imports
nothing of it, only the base of :mod:`ppt.mpi`."""

"""Communicators and what their calls give: intra-communicators (``comm``) and intercommunicators
(``intercomm``), groups, matched messages (``message``), persistent requests, ``Ibarrier`` and the other
nonblocking collectives (``ibarrier``, ``icoll``), and mpi4py's uppercase buffer calls (``bufp2p``,
``bufcoll``).  It imports ``core`` and ``buffers`` of the surface."""

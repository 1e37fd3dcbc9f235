"""Process topologies: Cartesian communicators (``cart``), graph and distributed-graph communicators
(``graph``), the calls that make them, and the neighbourhood collectives over them (``neighbor``).  It
imports ``communicators``, ``core`` and ``buffers`` of the surface, not ``rma``."""

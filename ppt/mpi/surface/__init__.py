"""The mpi4py-style surface a simulated rank's program calls: the per-rank ``mpi`` object (:mod:`.api`),
communicators, groups, Cartesian topologies, requests, buffers and datatypes, matched probes,
persistent requests and ``Ibarrier``; the hot point-to-point calls are compiled (:mod:`.fast`)."""

"""Simulated MPI: ranks as processes on a network model, with an mpi4py-like API.

    from ppt.mpi import MPIJob
    def main(mpi):
        comm = mpi.COMM_WORLD
        total = comm.allreduce(comm.rank, op=mpi.SUM)
    result = MPIJob(network, num_ranks=16).run(main)

Four rooms, each importing only those before it:

* the base: ``constants``, ``errors``, ``settings`` (the MPI library's eager limit and
  overheads), ``stats`` (per-rank counts), ``mapping`` (ranks to nodes), ``unsupported``
  (the one-line error for what PPT does not model);
* ``collectives``: the named algorithms (``calls``), their per-rank schedules
  (``algorithms``, ``schedule``), NCCL's (``nccl``), reduction ops and payload slicing;
* ``surface``: what a program sees, mpi4py's API (``api``) in rooms of its own: buffers and
  datatypes, the core of every call (its hot point-to-point calls compiled: ``fast``),
  communicators, topologies, RMA windows; and LANL PPT style ``mpi_*`` functions;
* ``engine``: the one MPI engine (``core``, C) and its Python side: program ranks
  (``program``), trace replay (``replay``), parallel windows (``windows``), models of one's
  own (``pynet``), outcomes and deadlock reports;

and ``job``, which places a job's ranks on nodes and runs them on the engine.
"""
from ppt.mpi.constants import ANY_SOURCE, ANY_TAG, PROC_NULL, UNDEFINED
from ppt.mpi.errors import MPIError

#: Names taken from the rooms on first use, so a command that reads only the base (a preset's ``mpi``
#: settings, say) does not load the engine, the surface and numpy with them.  Request and Status come
#: through the surface's top (``api``), which gives the surface's classes their mpi4py names.
_LAZY = {"MPIJob": "ppt.mpi.job", "JobResult": "ppt.mpi.job", "Request": "ppt.mpi.surface.api",
         "Status": "ppt.mpi.surface.api", **{name: "ppt.mpi.collectives.ops" for name in
         ("Op", "SUM", "PROD", "MAX", "MIN", "LAND", "LOR", "BAND", "BOR", "BXOR")}}

__all__ = ["MPIJob", "JobResult", "MPIError", "Request", "Status", "Op", "ANY_SOURCE", "ANY_TAG", "PROC_NULL",
           "UNDEFINED", "SUM", "PROD", "MAX", "MIN", "LAND", "LOR", "BAND", "BOR", "BXOR"]


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ppt.mpi' has no attribute {name!r}")
    from importlib import import_module
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value

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
from ppt.mpi.job import JobResult, MPIJob
from ppt.mpi.collectives.ops import BAND, BOR, BXOR, LAND, LOR, MAX, MIN, PROD, SUM, Op
from ppt.mpi.surface.core.requests import Request, Status

__all__ = ["MPIJob", "JobResult", "MPIError", "Request", "Status", "Op", "ANY_SOURCE", "ANY_TAG", "PROC_NULL",
           "UNDEFINED", "SUM", "PROD", "MAX", "MIN", "LAND", "LOR", "BAND", "BOR", "BXOR"]

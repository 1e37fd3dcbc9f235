"""Simulated MPI: ranks as processes on a network model, with an mpi4py-like API.

    from ppt.mpi import MPIJob
    def main(mpi):
        comm = mpi.COMM_WORLD
        total = comm.allreduce(comm.rank, op=mpi.SUM)
    result = MPIJob(network, num_ranks=16).run(main)

Modules: ``job`` (placing and running ranks), ``p2p`` (matching, eager and
rendezvous protocols, requests), ``comm`` (communicators), ``group``,
``cart`` (Cartesian topologies), ``collectives`` (named algorithms), ``api`` (the per-rank
``mpi`` object), ``names`` (mpi4py's capitalised spellings, the one table of
them), ``buffers`` (mpi4py's buffer arguments), ``bufp2p`` and ``bufcoll``
(mpi4py's buffer calls), ``datatypes``, ``environment`` (functions of
mpi4py's ``MPI`` module), ``message`` (matched probes), ``persistent``
(persistent requests), ``unsupported`` (the one-line error for what PPT
does not model), ``lanl`` (LANL PPT style ``mpi_*`` functions),
``deadlock``, ``stats``, ``mapping``, ``ops``, ``payload``.
"""
from ppt.mpi.constants import ANY_SOURCE, ANY_TAG, PROC_NULL, UNDEFINED
from ppt.mpi.errors import MPIError
from ppt.mpi.job import JobResult, MPIJob
from ppt.mpi.ops import BAND, BOR, BXOR, LAND, LOR, MAX, MIN, PROD, SUM, Op
from ppt.mpi.p2p import Request, Status

__all__ = ["MPIJob", "JobResult", "MPIError", "Request", "Status", "Op", "ANY_SOURCE", "ANY_TAG", "PROC_NULL",
           "UNDEFINED", "SUM", "PROD", "MAX", "MIN", "LAND", "LOR", "BAND", "BOR", "BXOR"]

"""MPI_Ibarrier that really is nonblocking: the dissemination barrier progressed by its messages.

Programs such as the NBX sparse exchange (T. Hoefler, C. Siebert, A.
Lumsdaine, "Scalable communication protocols for dynamic sparse data
exchange", PPoPP 2010, doi:10.1145/1693453.1693476) enter a barrier and keep
receiving until it completes; a barrier that blocked at the call would
deadlock them.  The request starts round 0 of the dissemination barrier
(ceil(log2 P) rounds: send to rank + 2^k, receive from rank - 2^k) at the
call; each round's completion starts the next, as an MPI library's progress
engine would, and the last completes the request.  The rounds after the
first cost the rank no software overhead (the progress engine runs them, as
a rendezvous CTS).  The engine runs the rounds (``ppt/mpi/engine/core/ibarrier.c``,
:class:`ppt.mpi.engine.program.CBarrierRequest`).
"""
from __future__ import annotations

from ppt.mpi.surface.core.calls import mpi_call


@mpi_call("MPI_Ibarrier")
def ibarrier(comm):
    """Start a barrier on ``comm``; the request completes once every rank has entered it."""
    comm.coll_seq += 1                           # its messages' tag: every rank calls collectives in one order
    return comm._rank.barrier_class(comm, comm.coll_seq)

"""MPI_Ibarrier that really is nonblocking: the dissemination barrier progressed by its messages.

Programs such as the NBX sparse exchange (T. Hoefler, C. Siebert, A.
Lumsdaine, "Scalable communication protocols for dynamic sparse data
exchange", PPoPP 2010, doi:10.1145/1693453.1693476) enter a barrier and keep
receiving until it completes; a barrier that blocked at the call would
deadlock them.  :class:`BarrierRequest` starts round 0 of the dissemination
barrier (ceil(log2 P) rounds: send to rank + 2^k, receive from rank - 2^k)
at the call; each round's completion starts the next from the messaging
layer's callbacks, as an MPI library's progress engine would, and the last
completes the request.  The rounds after the first cost the rank no
software overhead (the progress engine runs them, as a rendezvous CTS).
On the compiled engine the engine runs the same rounds itself
(``ppt/mpi/core/ibarrier.c``, :class:`ppt.mpi.compiled_rank.CBarrierRequest`).
"""
from __future__ import annotations

from ppt.mpi.calls import mpi_call
from ppt.mpi.constants import PROC_NULL
from ppt.mpi.p2p import Request


class BarrierRequest(Request):
    """The request of one Ibarrier on ``comm``; ``pending``: messages of the current round not yet complete."""

    __slots__ = ("dist", "pending", "seq")

    def __init__(self, comm, seq: int):
        super().__init__(comm._rank, True, comm, PROC_NULL, 0, comm.coll_ctx)
        self.seq = seq
        self.dist = 1
        self.pending = 0
        if comm.size == 1:
            self.done = True
        else:
            self._round()

    def _round(self) -> None:
        rank, comm = self._rank, self.comm
        me, size = comm.rank, comm.size
        self.pending = 2
        rank.isend(comm, (me + self.dist) % size, self.seq, 0, (("MPI_Ibarrier", None, self.seq), None), self.ctx,
                   into=_Round(self))
        rank.irecv(comm, (me - self.dist) % size, self.seq, self.ctx, into=_Round(self))

    def describe(self) -> str:
        comm = self.comm
        return f"Ibarrier round to rank {(comm.rank + self.dist) % comm.size}, comm={comm.label}"

    def round_done(self) -> None:
        """One message of the current round completed: start the next round, or complete the barrier."""
        self.pending -= 1
        if self.pending:
            return
        self.dist <<= 1
        if self.dist >= self.comm.size:
            self.finish()
            return
        rank = self._rank
        owed, rank.owed_s = rank.owed_s, 0.0     # sent by the progress engine now, not at the rank's clock
        try:
            self._round()
        finally:
            rank.owed_s = owed


class _Round(Request):
    """A message of a barrier round; completing it tells the barrier."""

    __slots__ = ("barrier",)

    def __init__(self, barrier: BarrierRequest):
        self.barrier = barrier

    def finish(self) -> None:
        self.done = True
        self.barrier.round_done()


@mpi_call("MPI_Ibarrier")
def ibarrier(comm) -> BarrierRequest:
    """Start a barrier on ``comm``; the request completes once every rank has entered it."""
    comm.coll_seq += 1                           # its messages' tag: every rank calls collectives in one order
    return (comm._rank.barrier_class or BarrierRequest)(comm, comm.coll_seq)

"""Persistent requests (MPI_Send_init, MPI_Recv_init ... and MPI_Start): set up once, started many times.

A :class:`Prequest` is an inactive request until ``start()``; each start
sends what its buffer holds then (or posts the receive into its buffer) as
the nonblocking call would, and a wait or test retires it back to inactive.
"""
from __future__ import annotations

from ppt.mpi.surface.buffers.arguments import message, outgoing
from ppt.mpi.surface.core.calls import mpi_call
from ppt.mpi.constants import BUFFERED, STANDARD, SYNC
from ppt.mpi.surface.core.requests import Request

#: Send mode of each kind of persistent send.
MODES = {"send": STANDARD, "ssend": SYNC, "bsend": BUFFERED, "rsend": STANDARD}


class Prequest(Request):
    """A persistent send (``kind`` a key of :data:`MODES`) or receive (``kind`` ``"recv"``) on ``comm``
    with mpi4py buffer ``buf``; ``peer``: destination or source rank."""

    __slots__ = ("kind", "buf")

    def __init__(self, comm, kind: str, buf, peer: int, tag: int):
        super().__init__(comm._rank, kind != "recv", comm, peer, tag, comm.ctx)
        self.done = True
        self.active = False
        self.kind = kind
        self.buf = buf

    @mpi_call("MPI_Start")
    def start(self) -> None:
        """Start the operation: the send takes a snapshot of its buffer now."""
        rank, comm = self._rank, self.comm
        if self.active:
            raise rank.error("the persistent request is still active: wait for it before starting it again")
        peer, tag = self.peer, self.tag
        if self.kind == "recv":
            comm._irecv(peer, tag, into=self)
            self.buffer = None if self.buf is None else message(rank, self.buf, 1, "receive")
        else:
            data, nbytes = outgoing(rank, self.buf)
            comm._isend(data, peer, tag, nbytes, MODES[self.kind], into=self)

    @staticmethod
    def startall(requests) -> None:
        """Start every request of ``requests`` (MPI_Startall)."""
        if requests:
            _startall(requests[0], requests)


@mpi_call("MPI_Startall")
def _startall(first, requests) -> None:
    for req in requests:
        req.start()

"""Matched messages (MPI_Mprobe / MPI_Improbe): a probed message taken off the queue for one receive.

:func:`matched` removes the message a probe found from the rank's unexpected
messages, so no other receive can match it; its :class:`Message` receives
it with ``recv``/``irecv`` (mpi4py also: ``Recv``/``Irecv`` into a buffer,
from :mod:`ppt.mpi.surface.names`).  Receiving a rendezvous message sends its CTS
then, as a receive posted at that moment would.
"""
from __future__ import annotations

from ppt.mpi.surface.core.calls import mpi_call
from ppt.mpi.constants import ANY_SOURCE, ANY_TAG, PROC_NULL
from ppt.mpi.surface.core.nulls import NullOwner
from ppt.mpi.surface.core.requests import Request
from ppt.mpi.unsupported import Refusing


class Message(metaclass=Refusing):
    """A message matched by a probe, for exactly one receive (``env`` None: from PROC_NULL)."""

    __slots__ = ("_rank", "comm", "env", "freed")

    def __init__(self, rank=None, comm=None, env=None):
        """The message ``env`` matched on ``comm`` by ``rank``; without a rank, mpi4py's ``MPI.Message()``:
        a null message, equal to ``MPI.MESSAGE_NULL``."""
        self._rank = NullOwner("MPI.MESSAGE_NULL") if rank is None else rank
        self.comm = comm
        self.env = env
        self.freed = rank is None

    def __bool__(self):
        return not self.freed

    def __repr__(self):
        return "Message(PROC_NULL)" if self.env is None else f"Message(from world rank {self.env.src})"

    def _request(self) -> Request:
        rank, comm, env = self._rank, self.comm, self.env
        if env is None:
            return rank.irecv(comm, PROC_NULL, ANY_TAG, comm.ctx)
        self.env = None
        return rank.mrecv(comm, env)

    @mpi_call("MPI_Mrecv")
    def recv(self, status=None):
        """Receive the message; returns its payload and fills ``status`` if given."""
        req = self._request()
        self._rank.wait(req)
        req.status.copy_to(status)
        return req.value

    @mpi_call("MPI_Imrecv")
    def irecv(self) -> Request:
        return self._request()


def matched(comm, source: int, tag) -> Message:
    """Take the message a probe of ``comm`` for ``source``/``tag`` just found off the queue."""
    rank = comm._rank
    if source == PROC_NULL:
        return Message(rank, comm, None)
    src = ANY_SOURCE if source == ANY_SOURCE else comm.world_of(source)
    return Message(rank, comm, rank._find_unexpected(comm.ctx, src, tag, remove=True))

"""Persistent requests: set up once (MPI_Send_init, MPI_Recv_init ..., MPI_Bcast_init, MPI_Allreduce_init ...),
started many times (MPI_Start, MPI_Startall).

A :class:`Prequest` is an inactive request until ``start()``; each start of a persistent send sends what its
buffer holds then (a persistent receive posts the receive into its buffer) as the nonblocking call would,
and a wait or test retires it back to inactive.  A persistent collective (MPI 4.0 6.13) starts as its
nonblocking form (``Allreduce_init`` as ``Iallreduce``) of the same arguments would at the start, with its
buffers' contents then: the same messages and the same time.  ``free()`` frees an inactive request (or an
active send or receive, which still completes); a start after it is an MPI error.
"""
from __future__ import annotations

from ppt.mpi.surface.buffers.arguments import message, outgoing
from ppt.mpi.surface.core.calls import mpi_call
from ppt.mpi.constants import BUFFERED, STANDARD, SYNC
from ppt.mpi.surface.core.requests import Request
from ppt.mpi.surface.core.nulls import NULLS

#: mpi4py's ``MPI.INFO_NULL``, the only info object PPT has, which a persistent collective's init may end with.
INFO_NULL = NULLS["INFO_NULL"]

#: Send mode of each kind of persistent send.
MODES = {"send": STANDARD, "ssend": SYNC, "bsend": BUFFERED, "rsend": STANDARD}


class Prequest(Request):
    """A persistent send (``kind`` a key of :data:`MODES`) or receive (``kind`` ``"recv"``) on ``comm``
    with mpi4py buffer ``buf``; ``peer``: destination or source rank.  (A persistent collective's class is
    the engine's :class:`ppt.mpi.engine.program.CPcollRequest`, whose ``kind`` names its nonblocking call.)"""

    __slots__ = ("kind", "buf", "freed")

    def __init__(self, comm, kind: str, buf, peer: int, tag: int):
        super().__init__(comm._rank, kind != "recv", comm, peer, tag, comm.ctx)
        self.done = True
        self.active = False
        self.kind = kind
        self.buf = buf
        self.freed = False

    @mpi_call("MPI_Start")
    def start(self) -> None:
        """Start the operation: a send or a collective takes its buffers' contents now."""
        if self.active:
            raise self._rank.error("the persistent request is still active: wait for it before starting it again")
        self._begin()

    def _begin(self) -> None:
        """Start the send (a snapshot of its buffer) or post the receive."""
        rank, comm = self._rank, self.comm
        peer, tag = self.peer, self.tag
        if self.kind == "recv":
            comm._irecv(peer, tag, into=self)
            self.buffer = None if self.buf is None else message(rank, self.buf, 1, "receive")
        else:
            data, nbytes = outgoing(rank, self.buf)
            comm._isend(data, peer, tag, nbytes, MODES[self.kind], into=self)

    def free(self) -> None:
        """Free the request (MPI_Request_free, uncounted as a nonpersistent request's ``Free``): it is false
        from now on, and starting it an MPI error.  An active send or receive still completes, unseen; an
        active collective cannot be freed (MPI 4.0 6.13)."""
        if self.active and self.kind not in MODES and self.kind != "recv":
            raise self._rank.error("the persistent collective is still active: wait for it before freeing it",
                                   "MPI_Request_free")
        self.active = False
        self.freed = True

    @staticmethod
    def startall(requests) -> None:
        """Start every request of ``requests`` (MPI_Startall)."""
        if requests:
            _startall(requests[0], requests)


@mpi_call("MPI_Startall")
def _startall(first, requests) -> None:
    for req in requests:
        req.start()


def live(req) -> bool:
    """A persistent request's truth (its ``__bool__``): true until freed, active or not (mpi4py's handle)."""
    return not req.freed


def named(req) -> str:
    """A persistent request's ``repr`` in error messages: ``the persistent request (Iallreduce)``."""
    return f"the persistent request ({req.kind})"


def same_handle(req, other):
    """A persistent request's ``==``: equal to itself, and once freed to every false request (mpi4py's
    ``REQUEST_NULL``, as a freed handle turns null)."""
    if req is other:
        return True
    return not other if req.freed and hasattr(other, "active") else NotImplemented


def persistent(name: str, nonblocking: str):
    """MPI call ``name`` (``MPI_Allreduce_init`` ...) of a communicator: an inactive persistent collective
    request each of whose starts calls the communicator's ``nonblocking`` (``Iallreduce``) with the arguments
    given here (mpi4py's ``info`` is accepted and ignored)."""
    @mpi_call(name)
    def init(comm, *args, info=None, **kwargs):
        begin = getattr(comm, nonblocking)
        args = args[:-1] if args and args[-1] is INFO_NULL else args
        return comm._rank.pcoll_class(comm, nonblocking, lambda: begin(*args, **kwargs))
    init.__name__ = name[len("MPI_"):]
    return init


def persistent_forms(names) -> dict:
    """mpi4py's persistent collectives (``Bcast_init`` ...) of the collectives ``names`` (``Bcast`` ...)."""
    return {f"{name}_init": persistent(f"MPI_{name}_init", f"I{name.lower()}") for name in names}

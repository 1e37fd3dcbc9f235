"""Requests and statuses of point-to-point calls, as the mpi4py surface returns them.

The engine (:mod:`ppt.mpi.engine.program`) keeps a request's state; a :class:`Request` is what a program
holds: its communicator, peer, tag and size, whether a wait or test has retired it (mpi4py's
``REQUEST_NULL``), and the completion calls over several requests.
"""
from __future__ import annotations

from ppt.mpi.constants import ANY_SOURCE, ANY_TAG, PROC_NULL, UNDEFINED
from ppt.mpi.unsupported import Refusing


class Status(metaclass=Refusing):
    """Source rank (in the receiving communicator), tag and size in bytes of a received message."""

    __slots__ = ("source", "tag", "bytes")

    def __init__(self, source: int = ANY_SOURCE, tag: int = ANY_TAG, nbytes: int = 0):
        self.source = source
        self.tag = tag
        self.bytes = nbytes

    def copy_to(self, other) -> None:
        if other is not None:
            other.source, other.tag, other.bytes = self.source, self.tag, self.bytes

    def __repr__(self):
        return f"Status(source={self.source}, tag={self.tag}, bytes={self.bytes})"


class Request(metaclass=Refusing):
    """A nonblocking send or receive.  After completion ``status`` (receives) and ``value`` are set."""

    __slots__ = ("_rank", "is_send", "comm", "peer", "tag", "ctx", "nbytes", "value", "done",
                 "active", "status", "buffer")

    def __init__(self, rank=None, is_send=False, comm=None, peer=PROC_NULL, tag=0, ctx=-1, nbytes=0, value=None):
        """A request of ``rank``; without a rank, mpi4py's ``MPI.Request()``: a null request, equal to
        ``MPI.REQUEST_NULL``, that waits and tests return at once."""
        self._rank = rank
        self.is_send = is_send
        self.comm = comm
        self.peer = peer          # rank in comm (or ANY_SOURCE / PROC_NULL)
        self.tag = tag
        self.ctx = ctx
        self.nbytes = nbytes
        self.value = value        # send: the payload; receive: the received payload
        self.done = rank is None
        self.active = rank is not None        # False once a wait/test has returned it
        self.status = None
        #: mpi4py's ``Irecv(buf)``: the buffer the payload is copied into when a wait or test retires it.
        self.buffer = None

    def __eq__(self, other):
        """As mpi4py's handles: a retired request (waited or tested complete, or freed) is REQUEST_NULL,
        equal to every other retired one; a persistent request stays itself."""
        if self is other:
            return True
        if type(self) is Request and type(other) is Request:
            return not self.active and not other.active
        return NotImplemented

    __hash__ = object.__hash__

    def __bool__(self):
        """False for a null request (``MPI.Request()``, or one a wait or test retired), as mpi4py's handles;
        a persistent one (with a ``start``) stays true."""
        return self.active or hasattr(self, "start")

    def wait(self, status=None):
        """Block until complete; returns the received payload (None for sends, and at once for a null request)."""
        return None if self._rank is None else self._rank.api.wait(self, status)

    def test(self, status=None):
        """``(done, payload)`` without blocking."""
        return (True, None) if self._rank is None else self._rank.api.test(self, status)

    # Over requests that are all null (or none), each returns what MPI returns for no active request.
    @staticmethod
    def waitall(requests, statuses=None):
        api = _api(requests)
        return api.waitall(requests, statuses) if api else [None] * len(requests)

    @staticmethod
    def waitany(requests, status=None):
        api = _api(requests)
        return api.waitany(requests, status) if api else (UNDEFINED, None)

    @staticmethod
    def waitsome(requests, statuses=None):
        api = _api(requests)
        return api.waitsome(requests, statuses) if api else (None, None)

    @staticmethod
    def testall(requests, statuses=None):
        api = _api(requests)
        return api.testall(requests, statuses) if api else (True, [None] * len(requests))

    @staticmethod
    def testany(requests, status=None):
        api = _api(requests)
        return api.testany(requests, status) if api else (UNDEFINED, True, None)

    @staticmethod
    def testsome(requests, statuses=None):
        api = _api(requests)
        return api.testsome(requests, statuses) if api else (None, None)

    def describe(self) -> str:
        """``source=1, tag=7, comm=WORLD``-style arguments for reports."""
        comm = self.comm
        if self.ctx == comm.coll_ctx:
            verb = "sending to" if self.is_send else "waiting for"
            return f"{verb} rank {_rank_name(self.peer)}, comm={comm.label}"
        if self.is_send:
            return f"dest={self.peer}, tag={self.tag}, {self.nbytes} B, comm={comm.label}"
        return f"source={_rank_name(self.peer)}, tag={_tag_name(self.tag)}, comm={comm.label}"


def _api(requests):
    """The MPI of the rank whose ``requests`` these are (None if all are null)."""
    for req in requests:
        if req._rank is not None:
            return req._rank.api
    return None


def _rank_name(rank: int) -> str:
    return "ANY_SOURCE" if rank == ANY_SOURCE else str(rank)


def _tag_name(tag) -> str:
    return "ANY_TAG" if tag == ANY_TAG else str(tag)

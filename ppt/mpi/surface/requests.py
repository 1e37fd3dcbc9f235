"""Requests and statuses of point-to-point calls, as the mpi4py surface returns them.

The engine (:mod:`ppt.mpi.engine.program`) keeps a request's state; a :class:`Request` is what a program
holds: its communicator, peer, tag and size, whether a wait or test has retired it (mpi4py's
``REQUEST_NULL``), and the completion calls over several requests.
"""
from __future__ import annotations

from ppt.mpi.constants import ANY_SOURCE, ANY_TAG, UNDEFINED
from ppt.mpi.surface.names import mpi4py_names
from ppt.mpi.unsupported import Refusing


@mpi4py_names
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


@mpi4py_names
class Request(metaclass=Refusing):
    """A nonblocking send or receive.  After completion ``status`` (receives) and ``value`` are set."""

    __slots__ = ("_rank", "is_send", "comm", "peer", "tag", "ctx", "nbytes", "value", "done",
                 "active", "status", "buffer")

    def __init__(self, rank, is_send, comm, peer, tag, ctx, nbytes=0, value=None):
        self._rank = rank
        self.is_send = is_send
        self.comm = comm
        self.peer = peer          # rank in comm (or ANY_SOURCE / PROC_NULL)
        self.tag = tag
        self.ctx = ctx
        self.nbytes = nbytes
        self.value = value        # send: the payload; receive: the received payload
        self.done = False
        self.active = True        # False once a wait/test has returned it
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

    def wait(self, status=None):
        """Block until complete; returns the received payload (None for sends)."""
        return self._rank.api.wait(self, status)

    def test(self, status=None):
        """``(done, payload)`` without blocking."""
        return self._rank.api.test(self, status)

    @staticmethod
    def waitall(requests, statuses=None):
        return _api(requests).waitall(requests, statuses) if requests else []

    @staticmethod
    def waitany(requests, status=None):
        return _api(requests).waitany(requests, status) if requests else (UNDEFINED, None)

    @staticmethod
    def waitsome(requests, statuses=None):
        return _api(requests).waitsome(requests, statuses) if requests else (None, None)

    @staticmethod
    def testall(requests, statuses=None):
        return _api(requests).testall(requests, statuses) if requests else (True, [])

    @staticmethod
    def testany(requests, status=None):
        return _api(requests).testany(requests, status) if requests else (UNDEFINED, True, None)

    @staticmethod
    def testsome(requests, statuses=None):
        return _api(requests).testsome(requests, statuses) if requests else (None, None)

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
    return requests[0]._rank.api


def _rank_name(rank: int) -> str:
    return "ANY_SOURCE" if rank == ANY_SOURCE else str(rank)


def _tag_name(tag) -> str:
    return "ANY_TAG" if tag == ANY_TAG else str(tag)

"""One rank's map from op-stream handles (communicators, groups, ops, requests) to simulated MPI objects.

A stream numbers its handles per rank (``COMM_WORLD`` = 0, ``COMM_SELF`` = 1,
the communicators and groups its ops create as their first aux value;
predefined reduction ops below ``FIRST_USER_OP``; requests as the trace
numbered them; see :mod:`ppt.traces.opstream`), so every simulated rank keeps
its own tables.

Requests: a trace may give several live requests one id (DUMPI derives it from
the MPI library's request pointer, and Open MPI hands out one shared object
for sends that completed at once, and reuses freed request objects).  Each id
therefore holds a FIFO of simulated requests: a call that completes id ``k``
takes the oldest request started under ``k``.
"""
from __future__ import annotations

from collections import deque

from ppt.errors import TraceError
from ppt.mpi import SUM, Op
from ppt.oprecord import COMM_SELF, COMM_WORLD, FIRST_USER_OP


def _user_op(a, b):
    """Stands for a traced user reduction (replays carry no data, so it is never applied)."""
    return a


class RequestFifos:
    """Trace request id -> the items (simulated requests, schedule labels ...) started under it, oldest first:
    several live requests may share an id (see the module's docstring)."""

    __slots__ = ("queues",)

    def __init__(self):
        self.queues: dict[int, deque] = {}

    def start(self, handle: int, item) -> None:
        self.queues.setdefault(handle, deque()).append(item)

    def take(self, handle: int):
        """The oldest item started under ``handle``, now retired (None if none)."""
        queue = self.queues.get(handle)
        if not queue:
            return None
        item = queue.popleft()
        if not queue:
            del self.queues[handle]
        return item

    def peek_all(self, handles) -> list:
        """The oldest item of each distinct id in ``handles`` (left in place)."""
        queues = self.queues
        return [queues[h][0] for h in dict.fromkeys(handles) if h in queues]


class Handles:
    """Stream handle -> simulated object tables of one rank (``where`` names the rank in errors)."""

    __slots__ = ("where", "comms", "groups", "ops", "requests")

    def __init__(self, mpi, where: str):
        self.where = where
        self.comms = {COMM_WORLD: mpi.COMM_WORLD, COMM_SELF: mpi.COMM_SELF}
        self.groups = {}
        self.ops = {}
        self.requests = RequestFifos()

    # -- communicators and groups ----------------------------------------------
    def comm(self, handle: int):
        comm = self.comms.get(handle)
        if comm is None:
            raise TraceError(f"{self.where} uses communicator {handle}, which no replayed call created "
                             "(was it made by a skipped call?)")
        return comm

    def set_comm(self, handle: int, comm) -> None:
        """Bind ``handle`` to ``comm`` (None: this rank is not a member, the trace holds COMM_NULL)."""
        if comm is not None:
            self.comms[handle] = comm

    def free_comm(self, handle: int):
        return self.comms.pop(handle, None) if handle > COMM_SELF else None

    def group(self, handle: int):
        group = self.groups.get(handle)
        if group is None:
            raise TraceError(f"{self.where} uses group {handle}, which no replayed call created "
                             "(was it made by a skipped call?)")
        return group

    # -- ops ------------------------------------------------------------------------
    def op(self, handle: int) -> Op:
        """Predefined ops are commutative (SUM stands for all); user ops keep their commutativity."""
        return self.ops.get(handle, SUM) if handle >= FIRST_USER_OP else SUM

    def create_op(self, handle: int, commute: bool) -> None:
        self.ops[handle] = Op.create(_user_op, commute=commute)

    # -- requests ---------------------------------------------------------------
    def start(self, handle: int, req) -> None:
        """Record simulated request ``req`` started under trace request id ``handle``."""
        self.requests.start(handle, req)

    def take(self, handle: int):
        """The oldest request started under ``handle``, now retired from the table (None if none)."""
        return self.requests.take(handle)

    def take_all(self, handles) -> list:
        return [req for req in map(self.take, handles) if req is not None]

    def peek_all(self, handles) -> list:
        """The oldest request of each distinct id in ``handles`` (left in the table)."""
        return self.requests.peek_all(handles)


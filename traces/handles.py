"""One rank's map from DUMPI handles (communicators, groups, ops, requests) to simulated MPI objects.

DUMPI numbers handles per rank (``COMM_WORLD`` = 2, ``COMM_SELF`` = 3, new
communicators from 4 on; ``REQUEST_NULL`` = 1, ...; see
:mod:`ppt.traces.libundumpi`), so every simulated rank keeps its own tables.

Requests: DUMPI derives a request id from the MPI library's request pointer,
so several live requests can share one id (Open MPI hands out one shared
object for sends that completed at once, and reuses freed request objects).
Each id therefore holds a FIFO of simulated requests: a call that completes
id ``k`` takes the oldest request started under ``k``.
"""
from __future__ import annotations

from collections import deque

from ppt.errors import TraceError
from ppt.mpi import SUM, UNDEFINED, Op
from ppt.mpi.constants import ANY_SOURCE, PROC_NULL
from ppt.traces import libundumpi as lu

#: First user-defined op handle (``DUMPI_FIRST_USER_OP``); lower ones are MPI's predefined ops.
FIRST_USER_OP = 15


def _user_op(a, b):
    """Stands for a traced user reduction (replays carry no data, so it is never applied)."""
    return a


class Handles:
    """DUMPI handle -> simulated object tables of one rank (``where`` names the rank in errors)."""

    __slots__ = ("where", "comms", "groups", "ops", "requests")

    def __init__(self, mpi, where: str):
        self.where = where
        self.comms = {lu.COMM_WORLD: mpi.COMM_WORLD, lu.COMM_SELF: mpi.COMM_SELF}
        self.groups = {}
        self.ops = {}
        self.requests: dict[int, deque] = {}

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
        return self.comms.pop(handle, None) if handle > lu.COMM_SELF else None

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
        self.requests.setdefault(handle, deque()).append(req)

    def take(self, handle: int):
        """The oldest request started under ``handle``, now retired from the table (None if none)."""
        queue = self.requests.get(handle)
        if not queue:
            return None
        req = queue.popleft()
        if not queue:
            del self.requests[handle]
        return req

    def take_all(self, handles) -> list:
        return [req for req in map(self.take, handles) if req is not None]

    def peek_all(self, handles) -> list:
        """The oldest request of each distinct id in ``handles`` (left in the table)."""
        return [self.requests[h][0] for h in dict.fromkeys(handles) if h in self.requests]


def peer(rank: int, wildcard: bool) -> int:
    """A traced peer rank as a simulated one.

    DUMPI records ``ANY_SOURCE`` as -1 and other special ranks as the MPI
    library's value (Open MPI's ``PROC_NULL`` is -2); a negative destination,
    or a negative source other than ``ANY_SOURCE``, is ``PROC_NULL``.
    """
    if rank >= 0:
        return rank
    return ANY_SOURCE if wildcard and rank == lu.ANY_SOURCE else PROC_NULL


def color(value: int) -> int:
    """A traced ``Comm_split`` colour: negative values are ``MPI_UNDEFINED``."""
    return value if value >= 0 else UNDEFINED

"""The object every rank's main function receives (``def main(mpi): ...``), shaped like mpi4py's MPI.

``mpi.COMM_WORLD`` / ``mpi.COMM_SELF`` are this rank's communicators;
constants (``ANY_SOURCE``, ``ANY_TAG``, ``PROC_NULL``, ``UNDEFINED``) and ops
(``SUM``, ``MAX``, ...) are attributes; time advances with ``compute`` and
``sleep``; request helpers mirror mpi4py's ``Request.waitall`` and friends.
mpi4py's capitalised names (``Wtime``, ``DOUBLE``, ``IN_PLACE``, and
``Split``, ``Allreduce``, ``Get_source`` ... on the objects) come from
:mod:`ppt.mpi.surface.names`.
"""
from __future__ import annotations

import math
from numbers import Real

from ppt.mpi import constants
from ppt.mpi.collectives import ops
from ppt.mpi.surface.core.calls import as_call, mpi_call
from ppt.mpi.surface.topology.cart import Cartcomm
from ppt.mpi.surface.communicators.comm import Comm
from ppt.mpi.surface.topology.graph import Distgraphcomm, Graphcomm
from ppt.mpi.surface.communicators.group import Group
from ppt.mpi.surface.communicators.intercomm import Intercomm
from ppt.mpi.surface.communicators.message import Message
from ppt.mpi.surface.names import mpi4py_names
from ppt.mpi.constants import SELF_ID, WORLD_ID
from ppt.mpi.surface.core.requests import Request, Status
from ppt.mpi.surface.communicators.persistent import Prequest
from ppt.mpi.surface.rma.window import Win
from ppt.mpi.errors import AfterFinalize
from ppt.mpi.surface.core.fast import FINALIZED, complete, retire, test, wait, waitall


@mpi4py_names
class MPI:
    """One rank's view of the simulated MPI library."""

    ANY_SOURCE = constants.ANY_SOURCE
    ANY_TAG = constants.ANY_TAG
    PROC_NULL = constants.PROC_NULL
    UNDEFINED = constants.UNDEFINED
    SUM, PROD, MAX, MIN = ops.SUM, ops.PROD, ops.MAX, ops.MIN
    LAND, LOR, BAND, BOR, BXOR = ops.LAND, ops.LOR, ops.BAND, ops.BOR, ops.BXOR
    Op = ops.Op
    Status = Status
    Request = Request
    Comm = Intracomm = Comm
    Cartcomm = Cartcomm
    Graphcomm, Distgraphcomm = Graphcomm, Distgraphcomm
    Intercomm = Intercomm
    Group = Group
    Message = Message
    Prequest = Prequest

    __slots__ = ("_rank", "COMM_WORLD", "COMM_SELF", "argv", "initialized", "finalized", "bsend_buffer",
                 "_poll_clock", "_polls", "_win")

    @classmethod
    def of_rank(cls, rank, num_ranks: int, argv=()) -> "MPI":
        """The view of ``rank`` (its ``world_rank`` of a job of ``num_ranks``), with its COMM_WORLD and COMM_SELF."""
        me = rank.world_rank
        world = Comm(rank, range(num_ranks), None, WORLD_ID, "WORLD")
        return cls(rank, world, Comm(rank, (me,), {me: 0}, SELF_ID, "SELF"), argv)

    def __init__(self, rank, world, self_comm, argv=()):
        self._rank = rank
        self.COMM_WORLD = world
        self.COMM_SELF = self_comm
        #: The script's arguments: ``ppt run --script-args 'ARGS'`` split like a shell command line.
        self.argv = list(argv)
        #: MPI is initialised on this rank (it is when the rank starts; see MPI.Init).
        self.initialized = True
        #: MPI.Finalize() was called on this rank.
        self.finalized = False
        #: The buffer of MPI.Attach_buffer, given back by MPI.Detach_buffer.
        self.bsend_buffer = None
        #: The rank's clock after its last unsuccessful poll, s, and the polls made unsuccessfully since
        #: time last passed otherwise (see polled).
        self._poll_clock = -1.0
        self._polls = set()
        self._win = None

    @property
    def Win(self) -> type:
        """mpi4py's ``MPI.Win`` (:class:`ppt.mpi.surface.rma.window.Win`) of this rank: its windows are made on its
        COMM_SELF where the call names no communicator, as mpi4py's are."""
        if self._win is None:
            self._win = type("Win", (Win,), {"__slots__": (), "_self_comm": self.COMM_SELF})
        return self._win

    @property
    def REQUEST_NULL(self) -> Request:
        """An inactive request of this rank's: waits and tests on it return at once."""
        req = Request(self._rank)
        req.active, req.done = False, True
        return req

    @property
    def rank(self) -> int:
        """World rank of this process."""
        return self._rank.world_rank

    @property
    def size(self) -> int:
        return self.COMM_WORLD.size

    @property
    def node(self) -> int:
        """The compute node this rank runs on."""
        return self._rank.node

    # -- for tools driving the simulated MPI (trace replay) ------------------------
    def call_as(self, name: str, fn, *args):
        """Run ``fn(*args)`` as the MPI call ``name``; returns its result.

        The call is counted and timed under ``name`` (e.g. ``"MPI_Cart_sub"``)
        and the simulated MPI calls ``fn`` makes are part of it, not counted
        themselves; inside another MPI call it is just ``fn(*args)``.
        """
        return as_call(name)(self, fn, args)

    def group(self, world_ranks) -> Group:
        """A group of the given world ranks, in that order, made without any MPI call."""
        return Group(self._rank, world_ranks)

    # -- time ------------------------------------------------------------------
    def wtime(self) -> float:
        """MPI_Wtime: :meth:`now_s`, refused after MPI_Finalize as MPICH refuses it."""
        rank = self._rank
        if rank.call is FINALIZED:
            raise AfterFinalize(rank.world_rank, "MPI_Wtime")
        return self.now_s()

    def now_s(self) -> float:
        """Current simulated time of this rank, seconds (with the CPU time its code used so far, under a meter)."""
        rank = self._rank
        if rank.meter is not None:
            rank.meter.lap(rank)
        return rank.clock_s()

    def compute(self, work) -> float:
        """Advance time by computing ``work``: a tasklist (timed by the node model) or seconds.

        Returns the seconds spent.
        """
        rank = self._rank
        if type(work) is float or isinstance(work, Real) and not isinstance(work, bool):
            seconds = float(work)
            if not (math.isfinite(seconds) and seconds >= 0.0):
                raise rank.error(f"compute time {work!r} must be a finite number of seconds >= 0", "compute")
        else:
            seconds = rank.job.time_compute(rank, work)
        rank.stats.compute_s += seconds
        rank.proc.sleep(rank.owed_s + seconds)
        rank.owed_s = 0.0
        return seconds

    def sleep(self, seconds: float) -> None:
        """Let ``seconds`` of simulated time pass (counted as compute time)."""
        if not (isinstance(seconds, Real) and math.isfinite(seconds) and seconds >= 0.0):
            raise self._rank.error(f"sleep time {seconds!r} must be a finite number of seconds >= 0", "sleep")
        self.compute(seconds)

    # -- requests --------------------------------------------------------------
    # the hot calls are compiled (ppt.mpi.surface.core.fast): retiring requests, wait, test and waitall
    _complete, _retire, wait, test, waitall = complete, retire, wait, test, waitall

    def polled(self, call: str) -> None:
        """An unsuccessful test or probe, MPI call ``call``: the rank spends ``poll_overhead_s``
        (``MPISettings``) if it made an unsuccessful call of that kind since time last passed other
        than by polling.

        So a polling loop (``while not req.Test(): pass``, or rounds of Iprobe and Test) pays for every
        call after its first round and lets simulated time pass, while a single test or probe -- whose
        cost is below the model's other uncertainties -- leaves closed-form timings exact.
        """
        rank = self._rank
        if rank.clock_s() != self._poll_clock:         # time passed since the last unsuccessful poll
            self._polls = set()
        if call in self._polls:
            rank.owed_s += rank.job.settings.poll_overhead_s
        self._polls.add(call)
        self._poll_clock = rank.clock_s()

    @mpi_call("MPI_Request_get_status")
    def request_status(self, req, status=None) -> bool:
        """Whether ``req`` is complete (or inactive), filling ``status``, without retiring it."""
        self._rank.pay()
        if not req.active:
            return True
        if not req.done:
            self.polled("MPI_Test")
            return False
        if req.status is not None:
            req.status.copy_to(status)
        return True

    @mpi_call("MPI_Waitany")
    def waitany(self, requests, status=None):
        """``(index, payload)`` of one completed request (the lowest index); (UNDEFINED, None) if none active."""
        self._rank.pay()
        while True:
            pending = []
            for i, req in enumerate(requests):
                if req.active:
                    if req.done:
                        return i, self._complete(req, status)
                    pending.append(req)
            if not pending:
                return constants.UNDEFINED, None
            self._rank.block(pending)

    @mpi_call("MPI_Waitsome")
    def waitsome(self, requests, statuses=None):
        """``(indices, payloads)`` of all requests complete once at least one is; (None, None) if none active."""
        self._rank.pay()
        while True:
            pending = [req for req in requests if req.active and not req.done]
            indices, values = self._retire_done(requests, statuses)
            if indices:
                return indices, values
            if not pending:
                return None, None
            self._rank.block(pending)

    def _retire_done(self, requests, statuses):
        indices, values = [], []
        for i, req in enumerate(requests):
            if req.active and req.done:
                indices.append(i)
                values.append(self._complete(req, statuses[len(indices) - 1] if statuses else None))
        return indices, values

    @mpi_call("MPI_Testall")
    def testall(self, requests, statuses=None):
        """``(True, payloads)`` if all are complete (retiring them), else ``(False, None)``."""
        self._rank.pay()
        if all(req.done or not req.active for req in requests):
            values = [self._complete(req, statuses[i] if statuses else None) if req.active else None
                      for i, req in enumerate(requests)]
            return True, values
        self.polled("MPI_Testall")
        return False, None

    @mpi_call("MPI_Testany")
    def testany(self, requests, status=None):
        """``(index, True, payload)`` of the first complete request; ``(UNDEFINED, False, None)`` if none is
        complete yet, ``(UNDEFINED, True, None)`` if none is active."""
        self._rank.pay()
        active = False
        for i, req in enumerate(requests):
            if req.active:
                if req.done:
                    return i, True, self._complete(req, status)
                active = True
        if active:
            self.polled("MPI_Testany")
        return constants.UNDEFINED, not active, None

    @mpi_call("MPI_Testsome")
    def testsome(self, requests, statuses=None):
        """``(indices, payloads)`` of the complete requests (empty lists if none); (None, None) if none active."""
        self._rank.pay()
        if not any(req.active for req in requests):
            return None, None
        indices, values = self._retire_done(requests, statuses)
        if not indices:
            self.polled("MPI_Testsome")
        return indices, values

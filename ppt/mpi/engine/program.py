"""Python programs on the MPI engine: each rank's messaging in C, its own code in its process.

A rank of a program run is a :class:`CompiledRank`: the rank :mod:`ppt.mpi.surface.communicators.comm`,
:mod:`ppt.mpi.surface.api` and the collectives call, over the engine's matching, protocols, networks and schedules
(``ppt/mpi/engine/core/program.c``), its hot calls compiled (:mod:`ppt.mpi.surface.core.fast`).  Its process is a
greenlet, which the engine's run resumes at the events that concern it.  A nonblocking call is one
call into C; a blocking one switches the process out only when it cannot complete at once.

Payloads travel as handles: the engine carries an integer per message, and the object waits here
until its receive takes it.  A collective call runs as its schedule in the engine, the process
asleep until the rank's part is over; a call whose slots hold payloads has them combined in Python
then (:class:`~ppt.mpi.collectives.schedule.Exchange`), once per call, not message by message.

Every call a program can make runs here: a persistent request (:class:`CPrequest`) posts a fresh
engine send or receive at each start; a matched probe takes the message off the engine's queue for
its ``Mrecv``; an ``Ibarrier``'s rounds run in the engine (``ppt/mpi/engine/core/ibarrier.c``), progressing
while the rank does other things, and so do the other nonblocking collectives' schedules (``icoll.c``,
:class:`CCollRequest`).

A parallel run (``mpiexec``, on the analytic or packet network) runs on each simulation process the
ranks of its nodes (:mod:`ppt.mpi.engine.windows`); the payloads and non-integer tags of messages
to other processes, and each collective call's parts (for the call's Exchange wherever its members
run), travel beside the engine's records in the window exchange, pickled.  It gives the serial
run's result to the last bit.

Several jobs can share one engine and one network (a job mix, :mod:`ppt.jobs.mix`): :class:`ProgramRun` numbers
every job's ranks in turn in the engine (:class:`Jobs`), each rank translating its peers and its communicators'
members between its job's world ranks and the engine's (:attr:`CompiledRank.base`), and slices each job's result
out of the run.
"""
from __future__ import annotations

import time
from types import MemberDescriptorType

from greenlet import getcurrent, greenlet

from ppt.engine import parallel
from ppt.engine.core import young_garbage_only
from ppt.engine.process import run_body
from ppt.errors import SimulationError
from ppt.mpi.engine.core import ffi, lib
from ppt.mpi.surface.api import MPI
from ppt.mpi.engine.replay import Engine, flatten, mismatch, strays
from ppt.mpi.engine.windows import CallParts, SampledRun, Windows, drive, gathered
from ppt.mpi.constants import ANY_SOURCE, ANY_TAG, PROC_NULL
from ppt.mpi.engine.deadlock import barrier_text, describe, schedule_text
from ppt.mpi.engine.outcome import JobResult, raise_failures, rank_body
from ppt.mpi.errors import rank_error
from ppt.mpi.surface.core.requests import Request, Status
from ppt.mpi.surface.communicators.persistent import Prequest, live, named, same_handle
from ppt.mpi.stats import RankStats, total_calls
from ppt.mpi.surface.core.fast import EngineRequest, Handover, RankCore, resume_ranks, running
from ppt.mpi.unsupported import Refusing


#: Schedules of at most this many steps keep their flattened form for later calls.
CACHED_STEPS = 64
#: Hand-overs a communicator keeps, at most (it forgets them all when it would keep more).
CACHED_HANDOVERS = 64
#: Tags that are not integers are numbered from here in the engine.
OBJECT_TAGS = 1 << lib.PPT_MPI_OBJECT_TAG_BITS


class _Clock:
    """``rank.sim`` of a compiled rank: the engine's time (s) and events, and the processes still alive,
    as the MPI calls' bookkeeping and the progress hook (:class:`ppt.progress.Progress`) read them."""

    __slots__ = ("m", "rank", "size", "ranks")

    def __init__(self, m):
        self.m = m
        self.rank, self.size = 0, 1
        self.ranks = []

    @property
    def processes(self) -> list:
        return [r.proc for r in self.ranks if not r.proc.done]

    @property
    def now(self) -> float:
        return lib.ppt_mpi_now(self.m)

    @property
    def events(self) -> int:
        return lib.ppt_mpi_events(self.m)


class _Process:
    """A rank's process: its program in a greenlet, resumed by the run loop (:func:`run_job`)."""

    __slots__ = ("rank", "name", "glet", "fn", "args", "blocked_in", "done", "main")

    def __init__(self, rank, fn, args, name, main):
        self.rank = rank
        self.name = name
        self.fn = fn
        self.args = args
        self.main = main
        self.glet = greenlet(self._body, parent=main)
        self.blocked_in = None
        self.done = False

    def __repr__(self):
        return f"process {self.name!r} of node[{self.rank.node}]"

    def _body(self):
        try:
            run_body(self)
        finally:
            self.done = True

    @property
    def now(self) -> float:
        return lib.ppt_mpi_now(self.rank.m)

    def sleep(self, delay_s: float) -> None:
        """Block this process for ``delay_s`` seconds of simulated time."""
        if delay_s < 0.0:
            raise SimulationError(f"node[{self.rank.node}] scheduled an event in the past (delay {delay_s!r} s)")
        lib.ppt_mpi_sleep(self.rank.m, self.rank.me, delay_s)
        self.main.switch()
        running(self.rank)

    def hibernate(self, why=None):
        """Block until the engine resumes the process; ``why`` is shown in deadlock reports."""
        self.blocked_in = why
        value = self.main.switch()
        self.blocked_in = None
        return value


def _with_calls_of(*classes):
    """Class decorator of a request class whose state is the engine's
    (:class:`~ppt.mpi.surface.core.fast.EngineRequest`): what the bodies of request classes ``classes`` define
    besides their state (their calls, mpi4py's names and refusals), later classes first, where the decorated class defines nothing of that name itself."""
    def decorate(cls):
        for klass in reversed(classes):
            for name, value in vars(klass).items():
                if not (name.startswith("__") or isinstance(value, MemberDescriptorType) or name in cls.__dict__):
                    setattr(cls, name, value)
        return cls
    return decorate


@_with_calls_of(Request)
class CRequest(EngineRequest, metaclass=Refusing):
    """A nonblocking send or receive on the compiled engine."""

    __slots__ = ()

    def __eq__(self, other):
        """As :meth:`Request.__eq__`: retired requests are equal (mpi4py's REQUEST_NULL)."""
        if self is other:
            return True
        if type(self) is CRequest and type(other) in (Request, CRequest):
            return not self.active and not other.active
        return NotImplemented

    __hash__ = object.__hash__


@_with_calls_of(Request, Prequest)
class CPrequest(EngineRequest, metaclass=Refusing):
    """A persistent request on the compiled engine: each start posts a fresh send or receive in the engine."""

    __slots__ = ("kind", "buf", "freed")

    def __init__(self, comm, kind: str, buf, peer: int, tag: int):
        EngineRequest.__init__(self, comm._rank, kind != "recv", comm, peer, tag, comm.ctx)
        self.active = False
        self.kind = kind
        self.buf = buf
        self.freed = False

    __bool__, __eq__, __hash__, __repr__ = live, same_handle, object.__hash__, named


class CBarrierRequest(CRequest):
    """The request of an MPI_Ibarrier on ``comm``, its messages tagged ``seq``, whose rounds the engine runs
    (``ppt/mpi/engine/core/ibarrier.c``; :mod:`ppt.mpi.surface.communicators.ibarrier`)."""

    __slots__ = ()

    def __init__(self, comm, seq: int):
        rank = comm._rank
        engine = rank.engine
        EngineRequest.__init__(self, rank, True, comm, PROC_NULL, 0, comm.coll_ctx)
        self.q = lib.ppt_mpi_ibarrier(rank.m, rank.me, engine.members_array(comm.members, rank.base)[1], comm.size,
                                      comm.rank, comm.coll_ctx, seq, engine.names.id("MPI_Ibarrier"))

    def describe(self) -> str:
        """The round the barrier waits in, for deadlock reports."""
        return barrier_text(self.comm, lib.ppt_mpi_ibarrier_dist(self._rank.m, self.q))


class CCollRequest(CRequest):
    """The request of a nonblocking collective call ``c`` (MPI_Iallreduce ...) whose schedule the engine runs in
    the background (``ppt/mpi/engine/core/icoll.c``; :mod:`ppt.mpi.surface.communicators.icoll`): ``flat``, kept
    while it runs, and the call's key in the engine's parts."""

    __slots__ = ("flat", "key", "me", "call", "finish")

    def __init__(self, c, flat, sizes: list, members_array, key: tuple):
        rank = c.rank
        EngineRequest.__init__(self, rank, False, c.comm, PROC_NULL, 0, c.ctx)
        call, root, _ = c.hdr
        self.flat, self.key, self.me, self.call = flat, key, c.me, call
        #: Called with the slots once the request is complete (the surface's rest of the call), or None.
        self.finish = None
        self.q = lib.ppt_mpi_icoll(rank.m, rank.me, flat, ffi.new("int64_t[]", list(sizes) or [0]), len(sizes),
                                   members_array, c.ctx, c.tag, rank.engine.names.id(call),
                                   -1 if root is None else root)

    @property
    def value(self):
        """None (MPI's nonblocking collectives return nothing); once complete, the first read runs the rest of
        the call (:attr:`finish`) with the call's slots, as :meth:`CompiledRank.plan` returns them."""
        finish = self.finish
        if finish is not None and self.done:
            self.finish = None
            rank = self._rank
            if self.status.tag:                         # the engine's mark: another call's message came
                raise mismatch(rank.m, rank.engine.names, rank, self.comm, rank.base)
            finish(rank.engine.parts.values(self.key, self.me, combined=False))
        return None

    def describe(self) -> str:
        """The step the collective waits in, for deadlock reports."""
        out = self._rank.out
        step = lib.ppt_mpi_icoll_waiting(self._rank.m, self.q, out)
        return schedule_text(self.call, self.comm, step, out[0], out[1])


#: What a request of the engine is, besides its rank and its truth: what a persistent collective takes over from
#: the request its nonblocking call returns (any request's, then a schedule's, None where the request has none).
_ENGINE_STATE = ("is_send", "comm", "peer", "tag", "ctx", "nbytes", "data", "raw", "built", "buffer", "due_s", "q")
_SCHEDULE_STATE = ("flat", "key", "me", "call", "finish")


@_with_calls_of(Prequest)
class CPcollRequest(CCollRequest):
    """A persistent collective request (MPI_Bcast_init ...) on the compiled engine: each start calls ``begin``,
    the nonblocking collective (``kind``: ``Ibcast`` ...) of the init's arguments, and takes over the request it
    returns (a schedule running in the background, an Ibarrier's rounds, or a request complete at once), so
    that a wait or test completes the collective as one on that request would."""

    __slots__ = ("kind", "begin", "started", "freed")

    def __init__(self, comm, kind: str, begin):
        EngineRequest.__init__(self, comm._rank, False, comm, PROC_NULL, 0, comm.coll_ctx)
        self.active = False
        for name in _SCHEDULE_STATE:
            setattr(self, name, None)
        self.kind, self.begin, self.started, self.freed = kind, begin, None, False

    __bool__, __eq__, __hash__, __repr__ = live, same_handle, object.__hash__, named

    def _begin(self) -> None:
        started = self.begin()
        for name in _ENGINE_STATE:
            setattr(self, name, getattr(started, name))
        for name in _SCHEDULE_STATE:
            setattr(self, name, getattr(started, name, None))
        self.active, self.started = True, started

    def describe(self) -> str:
        """What the started collective waits for, for deadlock reports."""
        return self.started.describe()


class _Matched:
    """An unreceived message a probe found (a matched probe then took it off the rank's queue, as
    :class:`ppt.mpi.surface.communicators.message.Message` reads it): its world source, its tag, its bytes and its
    index in the engine."""

    __slots__ = ("src", "tag", "nbytes", "index")

    def __init__(self, src: int, tag, nbytes: int, index: int):
        self.src, self.tag, self.nbytes, self.index = src, tag, nbytes, index


class _RunWait:
    """What a rank waits in during a collective's schedule (for deadlock reports)."""

    __slots__ = ("rank", "comm")

    def __init__(self, rank, comm):
        self.rank, self.comm = rank, comm

    @property
    def done(self) -> bool:
        return lib.ppt_mpi_run_state(self.rank.m, self.rank.me, self.rank.out) != 0

    def describe(self) -> str:
        lib.ppt_mpi_run_state(self.rank.m, self.rank.me, self.rank.out)
        is_send, peer = self.rank.out[0], self.rank.world_of(self.rank.out[1])
        verb = "sending to" if is_send == 1 else "waiting for"
        return f"{verb} rank {self.comm.local_of(peer)}, comm={self.comm.label}"


class CompiledRank(RankCore):
    """One simulated MPI process: world rank
    ``world_rank`` of ``job``, whose world ranks are the engine's from ``base`` on (``me``: this rank's number
    there), so that several jobs' ranks share one engine (:class:`Jobs`).  Its clock, sends, receives and
    waits are compiled (:class:`~ppt.mpi.surface.core.fast.RankCore`)."""

    __slots__ = ("job", "world_rank", "node", "sim", "api", "result", "next_ctx", "recv_overhead_s",
                 "node_of", "out", "background")
    error = rank_error
    prequest_class = CPrequest
    pcoll_class = CPcollRequest
    barrier_class = CBarrierRequest

    def __init__(self, engine: "ProgramEngine", job, base: int, world_rank: int):
        self.job = job
        self.world_rank = world_rank
        self.base = base
        self.me = base + world_rank
        self.node = job.node_of[world_rank]
        self.engine = engine
        self.m = engine.m
        self.sim = engine.clock
        self.proc = None
        self.stats = RankStats()
        self.api = None
        self.call = None
        self.result = None
        self.next_ctx = 2
        self.meter = None
        self.cpu_mark = 0.0
        self.recv_overhead_s = job.settings.recv_overhead_s
        self.object_costs = None        # mpi4py's object layer: ppt exec charges it (ppt.exec.runner)
        self.call_costs = None          # a call's cost beyond its messages: ppt exec charges it too
        self.node_of = job.node_of
        self.out = engine.out
        self.request_class = CRequest
        #: Set by a nonblocking collective call (:mod:`ppt.mpi.surface.communicators.icoll`): takes the request of its
        #: schedule started in the background and returns its slots once complete.
        self.background = None
        lib.ppt_mpi_set_program(self.m, self.me)

    def __repr__(self):
        return f"rank {self.world_rank}"

    def iprobe(self, comm, source: int, tag, ctx: int):
        if source == PROC_NULL:
            return Status(PROC_NULL, ANY_TAG, 0)
        self.pay()
        found = self._find_unexpected(ctx, source if source == ANY_SOURCE else comm.world_of(source), tag, 0)
        return None if found is None else Status(comm.local_of(found.src), found.tag, found.nbytes)

    def wait_probe(self, comm, source, tag, ctx) -> Status:
        while True:
            status = self.iprobe(comm, source, tag, ctx)
            if status is not None:
                return status
            lib.ppt_mpi_probe_wait(self.m, self.me, 1)
            self.proc.hibernate(("probe", comm, source, tag))
            lib.ppt_mpi_probe_wait(self.m, self.me, 0)

    def _find_unexpected(self, ctx, src, tag, remove):
        """The first unreceived message from world rank ``src`` (or ANY_SOURCE) with ``tag`` in context
        ``ctx``, taken off the queue if ``remove``; None if there is none."""
        out = self.out
        index = lib.ppt_mpi_find(self.m, self.me, ctx, self.engine_of(src), self.engine.tag_id(tag), remove, out)
        return None if index < 0 else _Matched(self.world_of(out[0]), self.engine.tag_of(out[1]), out[2], index)

    def mrecv(self, comm, found: _Matched) -> CRequest:
        """A receive of the message a matched probe took off the queue ."""
        req = CRequest(self, False, comm, comm.local_of(found.src), found.tag, comm.ctx)
        req.q = lib.ppt_mpi_mrecv(self.m, self.me, found.index)
        return req

    # -- blocking ---------------------------------------------------------------------------------------
    def block(self, requests) -> None:
        """Hibernate until one of the pending ``requests`` completes."""
        qs = ffi.new("int32_t[]", [req.q for req in requests])
        lib.ppt_mpi_block(self.m, self.me, qs, len(requests))
        self.proc.hibernate(requests)
        lib.ppt_mpi_unblock(self.m, self.me, qs, len(requests))

    # -- collectives --------------------------------------------------------------------------------------
    def plan(self, c, schedule, values: list, sizes: list, op) -> list:
        """Run collective call ``c``'s ``schedule`` in the engine, the process asleep until the rank's part
        is over; returns the slots, their payloads combined in Python if any rank's hold one (every rank
        adds its part to the call's :class:`~ppt.mpi.collectives.schedule.Exchange`: the ranks a rank's part waited
        for have all added theirs by its end)."""
        engine = self.engine
        handover = self.handover(c, schedule, sizes)
        key = (c.ctx, c.tag, handover.members[0])         # disjoint communicators may share a context
        engine.parts.add(key, handover.members, c.me, schedule, values, list(sizes), op)
        if self.background is not None and lib.ppt_mpi_icoll_runs(handover.flat):
            members_array = engine.members_array(c.comm.members, self.base)[1]
            return self.background(CCollRequest(c, handover.flat, sizes, members_array, key))
        if self.run_schedule(handover, c.ctx, c.tag) < 0:
            raise mismatch(self.m, engine.names, self, c.comm, self.base)
        return engine.parts.values(key, c.me, combined=False)

    def handover(self, c, schedule, sizes: list) -> Handover:
        """``schedule`` with slot ``sizes`` as call ``c`` hands it to the engine, kept by the call's communicator for
        the later calls that run it again if it is short (at most :data:`CACHED_STEPS` steps: the algorithms'
        cached O(log P) schedules); a long one lives as long as the call that runs it."""
        call, root, _ = c.hdr
        if schedule.nsteps > CACHED_STEPS:
            return self._handover(c, schedule, sizes, call, root)
        kept = c.comm.handovers
        if kept is None:
            kept = c.comm.handovers = {}
        key = (id(schedule), call, root, *sizes)          # the schedule is kept alive by the engine's flat
        found = kept.get(key)
        if found is None:
            if len(kept) >= CACHED_HANDOVERS:
                kept.clear()
            found = kept[key] = self._handover(c, schedule, sizes, call, root)
        return found

    def _handover(self, c, schedule, sizes: list, call: str, root) -> Handover:
        """A new hand-over of ``schedule`` with slot ``sizes`` for call ``c`` (named ``call``, root ``root``)."""
        engine = self.engine
        members, members_array = engine.members_array(c.comm.members, self.base)
        return Handover(engine.flatten(schedule), sizes, members, members_array, [_RunWait(self, c.comm)],
                        engine.names.id(call), -1 if root is None else root)


class ProgramEngine(Engine):
    """The compiled engine of a program run: the engine, the ranks' payloads by handle, the collective calls'
    parts and flattened schedules, and the engine's numbers for tags that are not integers."""

    def __init__(self, job):
        super().__init__(job)
        self.clock = _Clock(self.m)
        self.out = ffi.new("int64_t[8]")
        self.payloads: dict[int, object] = {}
        #: Receives waiting with a large buffer of their own, by request serial (``EngineRequest.listen``).
        self.receivers: dict[int, object] = {}
        self.next_payload = 0
        #: The collective calls whose slots Python combines (their members on any simulation process).
        self.parts = CallParts(self.m, self.comm)
        self.flat: dict[int, tuple] = {}
        self.tags: dict = {}
        self.tag_objects: dict[int, object] = {}

    def tag_id(self, tag) -> int:
        """The engine's integer for message tag ``tag``: the tag itself if an integer, else one of its own
        (programs may tag with any object that compares equal)."""
        if type(tag) is int:
            return tag
        found = self.tags.get(tag)
        if found is None:
            found = self.tags[tag] = OBJECT_TAGS + len(self.tags)
            self.tag_objects[found] = tag
        return found

    def tag_of(self, tag_id: int):
        return self.tag_objects.get(tag_id, tag_id) if tag_id >= OBJECT_TAGS else tag_id

    def keep(self, data) -> int:
        """A handle for payload ``data`` until its receive takes it."""
        self.next_payload += 1
        self.payloads[self.next_payload] = data
        return self.next_payload

    def flatten(self, schedule):
        """The schedule as the engine reads it (:func:`ppt.mpi.engine.replay.flatten`): kept, with the schedule, if
        it is short (the algorithms' cached O(log P) schedules, called again and again); a long one lives as
        long as the call that runs it."""
        found = self.flat.get(id(schedule))
        if found is not None:
            return found[1]
        flat = flatten(schedule)
        if schedule.nsteps <= CACHED_STEPS:
            self.flat[id(schedule)] = (schedule, flat)
        return flat


def _handles(records):
    """Which records carry a payload handle: a program's messages with a payload; a collective schedule's
    messages (a header's sequence number from 1) carry a stream's or a flow's mark instead."""
    return (records["payload"] != 0) & (records["hdr_seq"] == 0)


class _Cargo:
    """What travels between the simulation processes of a parallel program run beside the engine's records
    (a :class:`~ppt.mpi.engine.windows.Windows` cargo): the payloads the records name and their tags that
    are not integers (the numbers of both are each process's own), and the collective calls' parts
    (:class:`~ppt.mpi.engine.windows.CallParts`)."""

    def __init__(self, engine: ProgramEngine):
        self.engine = engine

    def pack(self, batches: list) -> list:
        """Per process: the payloads and tag objects of its records, in record order, and the calls' parts
        (None when there are none of these)."""
        payloads, tags = self.engine.payloads, self.engine.tag_objects
        out = []
        for records, parts in zip(batches, self.engine.parts.pack(batches)):
            data, objects = [], []
            if len(records):
                handles, numbers = records["payload"], records["tag"]
                data = [payloads.pop(h) for h in handles[_handles(records)].tolist()]
                objects = [tags[t] for t in numbers[numbers >= OBJECT_TAGS].tolist()]
            out.append((data, objects, parts) if data or objects or parts else None)
        return out

    def unpack(self, records, objects) -> None:
        """Keep the payloads and tags here under this process's numbers, and add the calls' parts."""
        engine = self.engine
        data, tags, parts = objects
        if data:
            records["payload"][_handles(records)] = [engine.keep(value) for value in data]
        if tags:
            records["tag"][records["tag"] >= OBJECT_TAGS] = [engine.tag_id(tag) for tag in tags]
        if parts:
            engine.parts.unpack(records, parts)


class Jobs:
    """Several MPI jobs on one network as the engine sees them: one job whose ranks are every job's, numbered
    in turn (job ``j``'s world rank ``r`` is the engine's rank ``bases[j] + r``), each rank bound to its own
    job's communicators.  The jobs share the network, their MPI settings (one machine's: the same for all)
    and the simulation processes' mpi4py communicator ``comm``."""

    sampler = None

    def __init__(self, jobs: list, comm):
        settings = {job.settings for job in jobs}
        if len(settings) > 1 or len({id(job.network) for job in jobs}) > 1:
            raise ValueError("jobs sharing an engine share their network and MPI settings")
        self.jobs = jobs
        self.network, self.settings, self.comm = jobs[0].network, jobs[0].settings, comm
        self.bases = [sum(job.num_ranks for job in jobs[:j]) for j in range(len(jobs))]
        self.num_ranks = sum(job.num_ranks for job in jobs)
        self.node_of = [node for job in jobs for node in job.node_of]


class ProgramRun:
    """The programs of several MPI jobs sharing one compiled engine (:class:`Jobs`), each rank running
    ``main(mpi, *args)`` of its job's ``(job, main, args, argv)`` in ``programs``: :meth:`run`, then
    :meth:`results`.  ``comm``: the simulation processes' mpi4py communicator (AUTO: the mpiexec world, if
    any); ``progress``: the progress hook.  The jobs must be carried (:func:`ppt.mpi.engine.replay.unsupported`)."""

    def __init__(self, programs: list, comm=parallel.AUTO, progress=None):
        self.wall = time.perf_counter()
        self.jobs = Jobs([job for job, *_ in programs], comm)
        self.engine = engine = ProgramEngine(self.jobs)
        self.windows = Windows.of(engine, engine.comm, _Cargo(engine))
        if self.windows is not None:
            engine.clock.rank, engine.clock.size = self.windows.rank, self.windows.size
        self.progress = progress
        main_greenlet = getcurrent()
        #: Per job, its ranks on this simulation process.
        self.ranks = [self._local_ranks(job, base, main, args, argv, main_greenlet)
                      for (job, main, args, argv), base in zip(programs, self.jobs.bases)]
        #: Each local rank's process by engine rank (None for the others).
        self.processes = [None] * self.jobs.num_ranks
        for ranks in self.ranks:
            for rank in ranks:
                self.processes[rank.me] = rank.proc
        engine.clock.ranks = [rank for ranks in self.ranks for rank in ranks]
        if progress is not None:
            lib.ppt_mpi_set_progress(engine.m, 1 << 62)        # every 65,536 events

    def _local_ranks(self, job, base: int, main, args, argv, main_greenlet) -> list:
        """``job``'s ranks local to this simulation process, each with its process, not yet started."""
        ranks = []
        for world_rank in range(job.num_ranks):
            if lib.ppt_mpi_is_local(self.engine.m, base + world_rank):
                rank = CompiledRank(self.engine, job, base, world_rank)
                rank.api = MPI.of_rank(rank, job.num_ranks, argv)
                rank.proc = _Process(rank, rank_body, (rank, main, args), f"rank {world_rank}", main_greenlet)
                ranks.append(rank)
        return ranks

    def run(self, sampler=None) -> None:
        """Run every rank to its end (or the events' end), over every window of a parallel run, or driven
        by ``sampler`` (a :class:`~ppt.drivers.sampling.Sampler`) to each of its sample times."""
        with young_garbage_only():
            drive(self.engine, self.windows, self._step, sampler)

    def by_time(self) -> SampledRun:
        """The run driven up to one time after another (a sampler's, a job mix's checks), serially or in
        windows."""
        return SampledRun(self.engine, self.windows, self._step)

    def _step(self) -> None:
        """Run the engine until no events remain, its window ends or the next event is at its horizon."""
        engine = self.engine
        m = engine.m
        while True:
            status = resume_ranks(m, self.processes)
            if status in (lib.PPT_MPI_DONE, lib.PPT_MPI_HORIZON):
                return
            if status == lib.PPT_MPI_NEED_PROGRESS:
                self.progress(engine.clock)
            elif engine.python is not None and engine.python.failure is not None:
                raise engine.python.failure         # the model of one's own raised
            else:
                raise SimulationError(f"compiled MPI engine: {ffi.string(lib.ppt_mpi_reason(m)).decode()}")

    def gathered(self, obj) -> list:
        """Every simulation process's ``obj``, in process order."""
        return gathered(self.windows, obj)

    def results(self, now_s: float | None = None) -> list[JobResult]:
        """Per job, in order, its JobResult (its ``network`` and ``events`` the whole run's), gathered over the
        simulation processes; the first job's DeadlockError or MPIError raised as
        :meth:`ppt.mpi.job.MPIJob.result` raises it (``now_s``: the time it reports, default the engine's)."""
        wall_s = time.perf_counter() - self.wall
        engine = self.engine
        local = {"jobs": [self._local_outcome(ranks) for ranks in self.ranks], "now": lib.ppt_mpi_now(engine.m),
                 "network": engine.network_stats(), "events": lib.ppt_mpi_events(engine.m)}
        parts = self.gathered(local)
        network = engine.net.merge_stats([p["network"] for p in parts])
        events = sum(p["events"] for p in parts)
        now_s = max(p["now"] for p in parts) if now_s is None else now_s
        return [_job_result(job, [p["jobs"][j] for p in parts], now_s, network, events, wall_s)
                for j, job in enumerate(self.jobs.jobs)]

    def _local_outcome(self, ranks: list) -> dict:
        """One job's ranks on this process: blocked ones, stray collective messages, statistics and returns."""
        m, out, names = self.engine.m, self.engine.out, self.engine.names
        per_rank = []
        for rank in ranks:
            lib.ppt_mpi_program_stats(m, rank.me, out)
            rank.stats.messages_sent, rank.stats.bytes_sent = out[0], out[1]
            entry = rank.stats.as_dict(rank.world_rank, rank.node)
            entry["unreceived_messages"] = out[2]
            per_rank.append(entry)
        return {"blocked": [(r.world_rank, describe(r)) for r in ranks if r.stats.finish_s is None],
                "stray": [s for r in ranks for s in strays(m, names, r, r.base)],
                "per_rank": list(zip(per_rank, [r.result for r in ranks]))}


def _job_result(job, parts: list, now_s: float, network: dict, events: int, wall_s: float) -> JobResult:
    """The JobResult of ``job`` from its ranks' outcomes on every simulation process (``parts``); DeadlockError
    or MPIError as :meth:`ppt.mpi.job.MPIJob.result` raises."""
    raise_failures([dict(p, now=now_s) for p in parts], job.num_ranks)
    ranked = sorted((pair for p in parts for pair in p["per_rank"]), key=lambda pair: pair[0]["rank"])
    per_rank = [entry for entry, _ in ranked]
    return JobResult(ranks=job.num_ranks, predicted_s=max(e["finish_s"] for e in per_rank), per_rank=per_rank,
                     calls=total_calls(per_rank), network=network, returns=[value for _, value in ranked],
                     events=events, wall_s=wall_s)


def run_job(job, main, args=(), argv=(), progress=None) -> JobResult:
    """Run ``main(mpi, *args)`` on every rank of ``job``.  The job's sampler, if any, drives the run to each
    sample time (:class:`~ppt.mpi.engine.windows.SampledRun`)."""
    run = ProgramRun([(job, main, args, argv)], job.comm, progress)
    run.run(job.sampler)
    return run.results()[0]

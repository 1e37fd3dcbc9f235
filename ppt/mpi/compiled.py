"""Trace replay on the compiled MPI engine (``ppt/mpi/core``): no Python per message.

The engine runs every rank of a job as a state machine over its op stream
(:mod:`ppt.traces.opstream`), with point-to-point matching, the eager and
rendezvous protocols, the ranks' overheads, the networks (analytic, flow,
and the packet network's compiled core) and the nodes' shared memory in C.
It makes the events the Python engine makes, in the same order, so a replay
predicts the same times, calls and statistics to the last bit
(``tests/test_compiled_replay.py`` holds the two engines equal).  A network or
node memory model of one's own runs in Python beside the engine
(:mod:`ppt.mpi.pynet`), called per message and per event of the model.

Python is called once per distinct collective call of a rank (the engine
keeps the plan for the rank's later calls with the same arguments), to choose
its algorithm and build its schedule (:mod:`ppt.mpi.algorithms`) with the very
code the Python engine runs (:class:`Planner`), once per rank per chunk of its
stream, and once per node pair and message size the network has not seen.

:func:`replay_job` runs a replay on the engine, or returns None when the
engine does not carry it -- a parallel or sampled run, NCCL's tree all-reduce or
ring all-gather, a call the simulated MPI refuses, mismatched collectives or a
deadlock -- and the Python engine then replays the trace (and reports any error)
as before.
"""
from __future__ import annotations

import time
from array import array

import numpy as np
from greenlet import getcurrent, greenlet

from ppt.interconnects.core import ffi, lib
from ppt.interconnects.networks.analytic import AnalyticNetwork
from ppt.interconnects.networks.nodememory import NodeMemory
from ppt.interconnects.networks.flownet import FlowNetwork
from ppt.interconnects.networks.packetnet import PacketNetwork
from ppt.engine import parallel
from ppt.engine.core import young_garbage_only
from ppt.mpi import nccl
from ppt.mpi.api import MPI
from ppt.mpi.errors import MPIError
from ppt.mpi.outcome import JobResult
from ppt.mpi.p2p import Rank
from ppt.mpi.pynet import PythonModels
from ppt.mpi.schedule import Exchange
from ppt.mpi.stats import RankStats, total_calls
from ppt.errors import PPTError
from ppt.traces.opstream import OP_DTYPE, Op

#: Ops replayed (all ranks) between two progress reports.
PROGRESS_RECORDS = 1024


def unsupported(job, sampling: bool = False) -> str | None:
    """Why the compiled engine cannot run ``job`` (a replay or its ranks' programs), or None; ``sampling``:
    the caller drives the job's sampler, if any (program runs do, replay does not yet)."""
    comm = parallel.world() if job.comm is parallel.AUTO else job.comm
    if comm is not None and comm.size > 1 or job.sampler is not None and not sampling:
        return "parallel and sampled runs use the Python engine"
    if set(job.algorithms.items()) & nccl.IN_PROCESS:
        return "NCCL's tree all-reduce and ring all-gather run on the Python engine"
    return None


class _PlanRank:
    """A rank as the collectives and communicator calls see it while a call is planned: its job, name,
    node, current call, planner and the smallest communicator id it has not used (``Rank.next_ctx``)."""

    __slots__ = ("job", "world_rank", "node", "call", "plan", "next_ctx")
    error = Rank.error

    def __init__(self, job, world_rank: int, plan):
        self.job = job
        self.world_rank = world_rank
        self.node = job.node_of[world_rank]
        self.call = None
        self.plan = plan
        self.next_ctx = 2


class Planner:
    """Runs the Python engine's own code for the calls the engine asks about, on every rank's own
    communicators, groups and ops (kept here as the Python engine keeps them):

    * a collective call: the comm method, the algorithm choice and the slot layout
      (:mod:`ppt.mpi.collectives`) give its schedule and slot sizes (:meth:`plan`);
    * an op on communicators, groups or reduction ops (:meth:`comm_op`): it runs as the Python replay
      runs it; a new communicator's agreement (a small collective among the parent's members) is
      handed to the engine as a schedule, and the call is suspended (a greenlet) until the rank's part has
      run, then finished with the values the members exchanged (:class:`~ppt.mpi.schedule.Exchange`).
    """

    def __init__(self, job, replayer_cls):
        self.job = job
        self.replayers = []
        self.recorded = None
        self.flats: list = []
        #: While a communicator call runs in its greenlet: the greenlet to return to at its collective.
        self.parent = None
        #: Collective calls of communicator calls by (context, tag, first member), executed for their values as
        #: members join.
        self.exchanges: dict[tuple, Exchange] = {}
        #: Ranks suspended in a communicator call: (greenlet, call key, rank in the parent communicator).
        self.suspended: dict[int, tuple] = {}
        for world_rank in range(job.num_ranks):
            rank = _PlanRank(job, world_rank, self.record)
            self.replayers.append(replayer_cls(MPI.of_rank(rank, job.num_ranks)))

    def record(self, c, schedule, values, sizes, op):
        """Coll.run's stand-in: keep the call's schedule and slot sizes.  A collective call returns the slots
        as they are (the engine carries no payloads); a communicator call's agreement waits, suspended,
        for the values its members exchange."""
        if self.parent is None:
            self.recorded = (c, schedule, sizes)
            return values
        key = (c.ctx, c.tag, c.comm.members[0])     # disjoint communicators may share a context
        exchange = self.exchanges.get(key)
        if exchange is None:
            exchange = self.exchanges[key] = Exchange(c.size)
        exchange.add(c.me, schedule, list(values), list(sizes), op)
        return self.parent.switch((c, schedule, sizes, key))

    def _run(self, world_rank: int, name: str, row: tuple, aux: list):
        replayer = self.replayers[world_rank]
        rank = replayer.mpi._rank
        replayer.aux = aux
        rank.call = name
        try:
            replayer.handle(row)
        finally:
            rank.call = None

    def plan(self, world_rank: int, name: str, row: tuple, aux: list):
        """``(collective call, schedule, slot sizes)`` of the collective op ``row`` of a rank (None: the
        call sends nothing, e.g. on a communicator of one rank)."""
        self.recorded = None
        self._run(world_rank, name, row, aux)
        return self.recorded

    def comm_op(self, world_rank: int, name: str, row: tuple, aux: list):
        """Start op ``row`` on communicators, groups or ops of a rank: ``(call, schedule, slot sizes)`` of the
        agreement a new communicator needs, else None (the op is over)."""
        self.parent = getcurrent()
        body = greenlet(lambda: self._run(world_rank, name, row, aux))
        try:
            started = body.switch()
        finally:
            self.parent = None
        if body.dead:
            return None
        c, schedule, sizes, key = started
        self.suspended[world_rank] = (body, key, c.me)
        return c, schedule, sizes

    def finish_comm_op(self, world_rank: int) -> None:
        """Finish a rank's communicator call once its agreement ran: with the values exchanged."""
        found = self.suspended.pop(world_rank, None)
        if found is None:
            return
        body, key, me = found
        exchange = self.exchanges[key]
        values = exchange.values(me)
        if not exchange.left:
            del self.exchanges[key]
        self.parent = getcurrent()
        try:
            body.switch(values)
        finally:
            self.parent = None
        if not body.dead:
            raise ValueError("a communicator call made a second collective call")

    def comm(self, world_rank: int, handle: int):
        """The rank's communicator of op-stream handle ``handle``, or None."""
        return self.replayers[world_rank].handles.comms.get(handle)

    def flatten(self, schedule):
        """:func:`flatten`, kept as long as the planner (the engine's plans point into it; a plan is made
        once per rank and set of arguments, so each schedule is flattened about once)."""
        flat = flatten(schedule)
        self.flats.append(flat)
        return flat


def flatten(schedule):
    """The schedule as the engine reads it: ``[steps, offset of each step, per step: posts, 4 ints per post,
    waits, the waits]`` (a C int32 array)."""
    steps = schedule.steps
    out = [len(steps)] + [0] * len(steps)
    append, extend = out.append, out.extend
    for i, (posts, waits, _) in enumerate(steps, 1):
        out[i] = len(out)
        append(len(posts))
        for post in posts:
            extend(post)
        append(len(waits))
        extend(waits)
    return ffi.from_buffer("int32_t[]", array("i", out))      # keeps the array alive


@ffi.def_extern()
def ppt_mpi_path_cb(handle, src, dst, out):
    """(hops, latency s, bandwidth bytes/s) of the network's path from node src to node dst."""
    hops, latency_s, bandwidth_Bps = ffi.from_handle(handle).path(src, dst)
    out[0], out[1], out[2] = hops, latency_s, bandwidth_Bps
    return 0


@ffi.def_extern()
def ppt_mpi_route_cb(handle, src, dst, nbytes, now_s, out):
    """(path, router hops, latency s, wire bytes, queue) of a message of nbytes from node src to node dst on
    the flow network at now_s, as FlowNic.send_off_node reckons them."""
    net = ffi.from_handle(handle)
    net.share.entity.sim.now = now_s                    # adaptive routings walk the flows' backlogs now
    path, hops, latency_s, packet_s_per_B, queue = net.route(src, dst, nbytes)
    packetizer = net.packetizer
    out[0], out[1], out[3], out[4] = path, hops, packetizer.wire_bytes(nbytes), queue
    out[2] = latency_s + packet_s_per_B * packetizer.size(min(nbytes, packetizer.max_payload_B))
    return 0


@ffi.def_extern()
def ppt_mpi_wire_cb(handle, nbytes):
    """Bytes a message of nbytes puts on the wire."""
    return ffi.from_handle(handle).wire_bytes(nbytes)


class _Names:
    """Job-wide ids of call names (the engine counts calls by id), and which of them replay may skip
    when the trace could not express them (``skip``: a predicate of the name)."""

    def __init__(self, skip=lambda name: False):
        self.ids: dict[str, int] = {}
        self.names: list[str] = []
        self.skip = skip
        self.skippable = ffi.new("int8_t[]", 1)

    def id(self, name: str) -> int:
        found = self.ids.get(name)
        if found is None:
            found = self.ids[name] = len(self.names)
            self.names.append(name)
        return found

    def update(self, m) -> None:
        """Tell the engine which of the names so far replay skips."""
        if len(self.skippable) < len(self.names):
            self.skippable = ffi.new("int8_t[]", [int(self.skip(name)) for name in self.names])
            lib.ppt_mpi_set_skippable(m, self.skippable, len(self.names))


class _Stream:
    """One rank's op stream fed to the engine chunk by chunk (the current chunk's arrays kept alive)."""

    __slots__ = ("chunks", "held", "calls")

    def __init__(self, chunks):
        self.chunks = iter(chunks)
        self.held = None
        self.calls = ()

    def feed(self, m, rank: int, names: _Names) -> None:
        chunk = next(self.chunks, None)
        if chunk is None:
            self.held = None
            lib.ppt_mpi_set_chunk(m, rank, ffi.NULL, 0, ffi.NULL, ffi.NULL, len(names.names))
            return
        ops = np.ascontiguousarray(chunk.ops, dtype=OP_DTYPE)
        aux = np.ascontiguousarray(chunk.aux, dtype=np.int64) if len(chunk.aux) else np.zeros(1, np.int64)
        ids = np.array([names.id(name) for name in chunk.calls] or [0], dtype=np.int32)
        names.update(m)
        self.held = (ops, aux, ids, chunk.calls)      # the chunk's rows need not stay
        lib.ppt_mpi_set_chunk(m, rank, ffi.from_buffer("ppt_op_t[]", ops), len(ops),
                              ffi.from_buffer("int64_t[]", aux), ffi.from_buffer("int32_t[]", ids),
                              len(names.names))


class Engine:
    """The compiled engine of one job, on the job's network: ``m`` (the C engine), the network's model
    when it has one to drive (``sim``: the packet core's or the flow solver's simulation, else None), and
    the job-wide ids of call names (``names``)."""

    def __init__(self, job):
        net, settings, num_ranks = job.network, job.settings, job.num_ranks
        self.job, self.net = job, net
        node_eid = np.array([net.nic_eid(node) for node in range(net.num_nodes)], dtype=np.int64)
        node_of = np.asarray(job.node_of, dtype=np.int32)
        self.m = m = ffi.gc(lib.ppt_mpi_new(num_ranks, net.num_nodes, ffi.from_buffer("int32_t[]", node_of),
                                            ffi.from_buffer("int64_t[]", node_eid), settings.eager_threshold_B,
                                            settings.send_overhead_s, settings.recv_overhead_s,
                                            settings.poll_overhead_s),
                            lib.ppt_mpi_free)
        self.handle = ffi.new_handle(net)
        self.sim = None
        #: The models of one's own, run in Python (:mod:`ppt.mpi.pynet`), or None.
        self.python = None
        if type(net) is PacketNetwork:
            self.sim = net.simulation(comm=None, name="mpi")        # builds the core, which the engine drives
            lib.ppt_mpi_set_packet_network(m, net.core.c, net.core.message_latency, net.core.lead_s)
        elif type(net) is FlowNetwork:
            self.sim = net.simulation(comm=None, name="mpi")        # builds the solver, which the engine drives
            lib.ppt_mpi_set_flow_network(m, net.share.c, net.share.entity.eid, int(not net.chunks),
                                         net.nic_buffer_B, self.handle)
        elif type(net) is AnalyticNetwork:
            lib.ppt_mpi_set_network(m, int(net.uniform), net.latency_s + 0 * net.per_hop_s, net.bandwidth_Bps,
                                    int(net.wire_identity), self.handle)
        memory = net.node_memory
        if not self.built_in_network or type(memory) is not NodeMemory:
            self.sim = self.sim or net.simulation(comm=None, name="mpi")
            self.python = PythonModels(m, net, self.sim, job.node_of, whole_network=not self.built_in_network)
        else:
            lib.ppt_mpi_set_memory(m, memory.bandwidth_Bps, memory.latency_s)
        self.names = _Names()
        self.members: dict[int, tuple] = {}

    @property
    def built_in_network(self) -> bool:
        """Whether the engine carries the job's network in C (else it runs in Python: :mod:`ppt.mpi.pynet`)."""
        return type(self.net) in (AnalyticNetwork, FlowNetwork, PacketNetwork)

    def members_array(self, members):
        """The C array of a communicator's members (world ranks), kept as long as the engine."""
        found = self.members.get(id(members))
        if found is None:
            found = self.members[id(members)] = (members, ffi.new("int32_t[]", list(members) or [0]))
        return found[1]

    def network_stats(self) -> dict:
        """The network's statistics at the end of the run, as the Python engine's run leaves them."""
        net, m = self.net, self.m
        counts = ffi.new("int64_t[5]")
        lib.ppt_mpi_network_stats(m, counts)
        if type(net) in (AnalyticNetwork, FlowNetwork):     # the Python models' own counters
            net.messages, net.bytes, net.hop_sum = counts[0], counts[1], counts[2]
        if self.python is None:                             # (a model in Python counts its own)
            net.node_memory.copies, net.node_memory.bytes = counts[3], counts[4]
        if self.sim is not None:
            self.sim.now = lib.ppt_mpi_now(m)
        return net.merge_stats([net.stats(self.sim)])


def replay_job(job, trace, replayer_cls, options: dict, progress=None):
    """Replay ``trace`` on ``job`` with the compiled engine: ``(JobResult, None)``, or ``(None, why)`` when
    the engine does not carry it (see the module docstring); the JobResult's ``returns`` are the ranks'
    replay reports, as :class:`~ppt.traces.replay.RankReplay` makes them.

    ``options``: ``compute_scale``, ``keep_startup``, ``clock`` (``"wall"`` or ``"cpu"``), and the calls
    replay skips where the trace could not express them (``skip``, a set of names, or all with
    ``skip_unsupported``);
    ``replayer_cls``: :class:`~ppt.traces.replay.RankReplay` (whose collective handlers plan the calls);
    ``progress``: a :class:`~ppt.traces.replay.ReplayProgress`.
    """
    why = unsupported(job)
    if why is not None:
        return None, why
    wall = time.perf_counter()
    num_ranks = job.num_ranks
    engine = Engine(job)
    m = engine.m
    lib.ppt_mpi_set_replay(m, int(options["clock"] == "cpu"), options["compute_scale"],
                           int(options["keep_startup"]))
    for rank in range(num_ranks):
        lib.ppt_mpi_set_has_init(m, rank, int(trace.has_init(rank)))
    if progress is not None:
        lib.ppt_mpi_set_progress(m, PROGRESS_RECORDS)
    names = engine.names
    skip, skip_unsupported = options.get("skip", frozenset()), options.get("skip_unsupported", False)
    names.skip = lambda name: skip_unsupported or name in skip
    streams = [_Stream(trace.stream(rank)) for rank in range(num_ranks)]
    planner = Planner(job, replayer_cls)
    done_records = 0
    with young_garbage_only():         # the trace and tables held: no rescans
        while True:
            status = lib.ppt_mpi_run(m)
            if status == lib.PPT_MPI_DONE:
                break
            if status == lib.PPT_MPI_NEED_CHUNK:
                rank = lib.ppt_mpi_need_rank(m)
                streams[rank].feed(m, rank, names)
            elif status in (lib.PPT_MPI_NEED_COLL, lib.PPT_MPI_NEED_COMM):
                if not _python_step(engine, status, planner, streams):
                    return None, "a call the simulated MPI refuses"
            elif status == lib.PPT_MPI_NEED_PROGRESS:
                if progress is not None:
                    records = lib.ppt_mpi_records(m)
                    progress.done += records - done_records
                    done_records = records
                    progress.progress.count(progress.done, progress.total, lib.ppt_mpi_now(m),
                                            "records over all ranks")
            else:
                return None, ffi.string(lib.ppt_mpi_reason(m)).decode()
    if lib.ppt_mpi_unfinished(m):
        return None, "ranks are left blocked (a deadlock)"
    result = _results(m, job, names, engine.network_stats(), time.perf_counter() - wall)
    return (result, None) if result is not None else (None, "collective messages were left unreceived")


#: Op kinds that make a communicator (the others the planner runs, from Op.COMM_FREE on, only touch a
#: rank's tables).
MAKES_COMM = range(Op.COMM_DUP, Op.CART_SUB + 1)


def _op_row(m):
    """The rank's op the engine stopped at, as a replay row (its aux values a list of its own)."""
    op = lib.ppt_mpi_need_op(m)
    aux_ptr = lib.ppt_mpi_need_aux(m)
    aux = [aux_ptr[op.aux_start + i] for i in range(op.aux_len)]
    return op, tuple(getattr(op, name) for name in OP_DTYPE.names[:-1]) + (0,), aux


def _python_step(engine: Engine, status: int, planner: Planner, streams: list) -> bool:
    """Answer the engine's stop at a collective or a communicator op: run the op's Python part and hand the
    engine what it needs; False if the Python engine must replay instead (the call raised, e.g. an
    algorithm refusing the communicator)."""
    m, names = engine.m, engine.names
    rank = lib.ppt_mpi_need_rank(m)
    op, row, aux = _op_row(m)
    name = streams[rank].held[3][op.call]
    try:
        if status == lib.PPT_MPI_NEED_COMM and lib.ppt_mpi_need_stage(m) == 1:
            planner.finish_comm_op(rank)
            comm = planner.comm(rank, aux[0])
            if comm is not None:
                lib.ppt_mpi_set_comm(m, aux[0], comm.ctx, comm.size, comm.rank, engine.members_array(comm.members))
            return True
        parent = planner.comm(rank, op.comm)
        if parent is not None:
            parent.coll_seq = lib.ppt_mpi_need_seq(m)
        if status == lib.PPT_MPI_NEED_COLL:
            planned = planner.plan(rank, name, row, aux)
        elif op.kind in MAKES_COMM:
            planned = planner.comm_op(rank, name, row, aux)
        else:
            planner.comm_op(rank, name, row, aux)
            if op.kind == Op.COMM_FREE and op.comm > 1:
                lib.ppt_mpi_drop_comm(m, op.comm)
            return True
    except (PPTError, MPIError, TypeError, ValueError, IndexError, AttributeError, KeyError):
        return False
    if planned is None:
        if status == lib.PPT_MPI_NEED_COLL:
            lib.ppt_mpi_set_plan(m, ffi.NULL, ffi.NULL, 0, 0, 0, -1)
        return True
    c, schedule, sizes = planned
    call, root, _ = c.hdr
    lib.ppt_mpi_set_plan(m, planner.flatten(schedule), ffi.new("int64_t[]", list(sizes) or [0]), len(sizes),
                         c.ctx, names.id(call), -1 if root is None else root)
    return True


def _results(m, job, names: _Names, network: dict, wall_s: float):
    """The JobResult of a finished replay (its ``returns`` the ranks' replay reports); None if collective
    messages were left unreceived (mismatched collectives: the Python engine reports them)."""
    num_calls = max(len(names.names), 1)
    times, counts = ffi.new("double[11]"), ffi.new("int64_t[7]")
    calls, skipped = ffi.new("int64_t[]", num_calls), ffi.new("int64_t[]", num_calls)
    per_rank, returns = [], []
    for rank in range(job.num_ranks):
        lib.ppt_mpi_rank_stats(m, rank, times, counts)
        lib.ppt_mpi_rank_calls(m, rank, calls, skipped, num_calls)
        (compute_s, comm_s, finish_s, dropped_s, recorded_mpi_s, wall_gaps_s, cpu_gaps_s,
         first_s, first_recorded_s, last_s, last_recorded_s) = times
        messages_sent, bytes_sent, records, p2p_bytes, unreceived, unreceived_coll, wtimes = counts
        if unreceived_coll:
            return None
        stats = RankStats()
        stats.compute_s, stats.comm_s, stats.finish_s = compute_s, comm_s, finish_s
        stats.messages_sent, stats.bytes_sent = messages_sent, bytes_sent
        stats.calls = {names.names[i]: calls[i] for i in range(len(names.names)) if calls[i]}
        entry = stats.as_dict(rank, job.node_of[rank])
        entry["unreceived_messages"] = unreceived
        per_rank.append(entry)
        spans = wtimes >= 2
        returns.append({"records": records, "p2p_bytes": p2p_bytes,
                        "skipped": {names.names[i]: skipped[i] for i in range(len(names.names)) if skipped[i]},
                        "startup_dropped_s": dropped_s, "recorded_mpi_s": recorded_mpi_s,
                        "compute_wall_s": wall_gaps_s, "compute_cpu_s": cpu_gaps_s,
                        "wtime_span_s": last_s - first_s if spans else None,
                        "recorded_wtime_span_s": last_recorded_s - first_recorded_s if spans else None})
    return JobResult(ranks=job.num_ranks, predicted_s=max(e["finish_s"] for e in per_rank), per_rank=per_rank,
                      calls=total_calls(per_rank), network=network, returns=returns,
                      events=lib.ppt_mpi_events(m), wall_s=wall_s)

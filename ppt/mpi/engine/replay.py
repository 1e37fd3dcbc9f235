"""Trace replay on the MPI engine (``ppt/mpi/engine/core``): no Python per message.

The engine runs every rank of a job as a state machine over its op stream
(:mod:`ppt.traces.opstream`), with point-to-point matching, the eager and
rendezvous protocols, the ranks' overheads, the networks (analytic, flow,
and the packet network's compiled core) and the nodes' shared memory in C.
A network or node memory model of one's own runs in Python beside the engine
(:mod:`ppt.mpi.engine.pynet`), called per message and per event of the model.

Python is called once per distinct collective call of a rank (the engine
keeps the plan for the rank's later calls with the same arguments), to choose
its algorithm and build its schedule (:mod:`ppt.mpi.collectives.algorithms`) with the very
code a program's collective call runs (:class:`Planner`), once per rank per chunk of its
stream, and once per node pair and message size the network has not seen.

:func:`replay_job` runs a replay on the engine, sampled or not (the job's sampler drives it to each sample
time, :class:`~ppt.mpi.engine.windows.SampledRun`).  A replay that
goes wrong stops where it goes wrong, with the error a program's call would raise: a call the simulated
MPI refuses (the engine stops at the op, and Python issues it through the mpi4py surface's checks, which
raise), mismatched collectives, and, once the events run out, a deadlock (every blocked rank and the
call it waits in, :mod:`ppt.mpi.engine.deadlock`) or a collective message nobody received.  A parallel run
(``mpiexec``) runs each process's ranks on its own engine (:mod:`ppt.mpi.engine.windows`), a model of
one's own its part of the model beside it, and gives the serial run's result to the last bit.
"""
from __future__ import annotations

import time
from array import array

import numpy as np
from greenlet import getcurrent, greenlet

from ppt.interconnects.networks.analytic import AnalyticNetwork
from ppt.interconnects.networks.nodememory import NodeMemory
from ppt.interconnects.networks.flownet import FlowNetwork
from ppt.interconnects.networks.packetnet import PacketNetwork
from ppt.engine import parallel
from ppt.engine.core import young_garbage_only
from ppt.engine.process import ProcessError
from ppt.mpi.surface.api import MPI
from ppt.mpi.collectives.calls import mismatch_error
from ppt.mpi.engine.core import ffi, lib
from ppt.mpi.engine.windows import CallParts, Windows, drive, gathered
from ppt.mpi.constants import ANY_SOURCE
from ppt.mpi.engine.deadlock import barrier_text, describe, schedule_text
from ppt.mpi.errors import MPIError, rank_error
from ppt.mpi.engine.outcome import JobResult, raise_failures, stray
from ppt.mpi.surface.core.requests import Request
from ppt.mpi.engine.pynet import PythonModels
from ppt.mpi.collectives.schedule import FLOW, RECV, SEND, Rounds
from ppt.mpi.stats import RankStats, total_calls
from ppt.errors import PPTError, SimulationError
from ppt.oprecord import BLOCKING_COLLECTIVES, KIND, NONBLOCKING, NONBLOCKING_COLLECTIVES, OP_DTYPE, Op

#: Ops replayed (all ranks) between two progress reports.
PROGRESS_RECORDS = 1024
#: What a blocked replay rank waits in (``ppt_mpi_blocked``): a request, a probe, a collective's schedule, a
#: nonblocking collective's request.
BLOCKED_REQUEST, BLOCKED_PROBE, BLOCKED_RUN, BLOCKED_COLL = 1, 2, 3, 4


#: The networks the engine carries in C; any other runs in Python beside it (:mod:`ppt.mpi.engine.pynet`).
BUILT_IN_NETWORKS = (AnalyticNetwork, FlowNetwork, PacketNetwork)


class _Pending:
    """A nonblocking collective's request a blocked replay rank waits for, as deadlock reports describe it."""

    __slots__ = ("text",)
    done = False

    def __init__(self, text: str):
        self.text = text

    def describe(self) -> str:
        return self.text


class _PlanProcess:
    """A replay rank's process as reports name it (``process 'rank 3' of node[1]``, as a program's), and
    what it waits in (``blocked_in``, as :func:`ppt.mpi.engine.deadlock.describe` reads it)."""

    __slots__ = ("name", "node", "blocked_in")

    def __init__(self, name: str, node: int):
        self.name, self.node, self.blocked_in = name, node, None

    def __repr__(self):
        return f"process {self.name!r} of node[{self.node}]"


class _PlanRank:
    """A rank as the collectives and communicator calls see it while a call is planned: its job, name,
    node, current call, planner, the smallest communicator id it has not used (``next_ctx``), its
    process (for error reports), its communicators by point-to-point context (``by_ctx``), and whether
    an op is issued only for its error (``refusing``)."""

    __slots__ = ("job", "world_rank", "node", "call", "plan", "next_ctx", "proc", "by_ctx", "refusing")
    error = rank_error

    def __init__(self, job, world_rank: int, plan):
        self.job = job
        self.world_rank = world_rank
        self.node = job.node_of[world_rank]
        self.call = None
        self.plan = plan
        self.next_ctx = 2
        self.proc = _PlanProcess(f"rank {world_rank}", self.node)
        self.by_ctx = {}                # filled as the rank's communicators are made (Planner)
        self.refusing = False

    def _no_message(self, *args, **kwargs) -> None:
        """Point-to-point calls: a plan sends nothing (a collective is a schedule); an op issued for the error
        the simulated MPI raises (:meth:`Planner.refusal`) may make them before it (a Sendrecv's send is
        checked once its receive is posted), and they do nothing."""
        if not self.refusing:
            raise SimulationError(f"rank {self.world_rank} in {self.call}: a collective sent a message of its own "
                                  "while planned for the MPI engine")

    isend = irecv = wait = wait_all = take = _no_message


class Planner:
    """Runs the mpi4py surface's own code for the calls the engine asks about, on every rank's own
    communicators, groups and ops (kept here as a program's rank keeps them):

    * a collective call: the comm method, the algorithm choice and the slot layout
      (:mod:`ppt.mpi.collectives.calls`) give its schedule and slot sizes (:meth:`plan`);
    * an op on communicators, groups or reduction ops (:meth:`comm_op`): it runs as the Python replay
      runs it; a new communicator's agreement (a small collective among the parent's members) is
      handed to the engine as a schedule, and the call is suspended (a greenlet) until the rank's part has
      run, then finished with the values the members exchanged (:class:`~ppt.mpi.collectives.schedule.Exchange`).
    """

    def __init__(self, job, replayer_cls, parts):
        self.job = job
        self.replayers = []
        self.recorded = None
        self.flats: list = []
        #: While a communicator call runs in its greenlet: the greenlet to return to at its collective.
        self.parent = None
        #: Collective calls of communicator calls by (context, tag, first member), executed for their values as
        #: members join (:class:`~ppt.mpi.engine.windows.CallParts`: on whichever process they run).
        self.parts = parts
        #: Ranks suspended in a communicator call: (greenlet, call key, rank in the parent communicator).
        self.suspended: dict[int, tuple] = {}
        for world_rank in range(job.num_ranks):
            rank = _PlanRank(job, world_rank, self.record)
            mpi = MPI.of_rank(rank, job.num_ranks)
            rank.by_ctx = {comm.ctx: comm for comm in (mpi.COMM_WORLD, mpi.COMM_SELF)}
            self.replayers.append(replayer_cls(mpi))

    def record(self, c, schedule, values, sizes, op):
        """Coll.run's stand-in: keep the call's schedule and slot sizes.  A collective call returns the slots
        as they are (the engine carries no payloads); a communicator call's agreement waits, suspended,
        for the values its members exchange."""
        if self.parent is None:
            self.recorded = (c, schedule, sizes)
            return values
        key = (c.ctx, c.tag, c.comm.members[0])     # disjoint communicators may share a context
        self.parts.add(key, c.comm.members, c.me, schedule, list(values), list(sizes), op)
        return self.parent.switch((c, schedule, sizes, key))

    def rank(self, world_rank: int) -> _PlanRank:
        return self.replayers[world_rank].mpi._rank

    def _run(self, world_rank: int, name: str, row: tuple, aux: list):
        """Issue op ``row`` of a rank as call ``name``; an error is raised as the rank's process in the Python
        engine raises it."""
        replayer = self.replayers[world_rank]
        rank = self.rank(world_rank)
        replayer.aux = aux
        rank.call = name
        if row[KIND] in NONBLOCKING_COLLECTIVES:     # planned as the blocking call, whose schedule it runs
            row = (row[KIND] - NONBLOCKING,) + row[1:]
        try:
            replayer.handle(row)
        except PPTError:
            raise
        except Exception as exc:
            raise ProcessError.of(rank.proc, exc) from exc
        finally:
            rank.call = None

    def refusal(self, world_rank: int, name: str, row: tuple, aux: list, reason: str) -> PPTError:
        """The error the Python replay raises at op ``row`` of a rank, which the engine refused (``reason``:
        the engine's words, reported should the Python replay go on)."""
        rank = self.rank(world_rank)
        rank.refusing = True
        try:
            if row[KIND] == Op.OTHER:
                self.replayers[world_rank].refuse(name)
            else:
                self._run(world_rank, name, row, aux)
        except PPTError as exc:
            return exc
        finally:
            rank.refusing = False
        return SimulationError(f"compiled MPI engine: {reason}")

    def mismatch(self, m, names: "_Names", world_rank: int, name: str, op) -> MPIError:
        """The error of a rank's op ``op`` of call ``name`` that found its collective call had received another
        call's message (:func:`mismatch`): a collective's, or a completion's of a nonblocking collective."""
        rank = self.rank(world_rank)
        rank.call = name
        comm = (self.comm(world_rank, op.comm) if op.kind in BLOCKING_COLLECTIVES
                else rank.by_ctx[lib.ppt_mpi_mismatch_ctx(m) - 1])
        return mismatch(m, names, rank, comm)

    def unfinished(self, m, names: "_Names", world_rank: int) -> list:
        """``[(world rank, error text)]`` for a rank whose stream started nonblocking collectives that none of its
        ops completed (empty if none)."""
        out = ffi.new("int64_t[3]")
        count = lib.ppt_mpi_open_colls(m, world_rank, out)
        if not count:
            return []
        comm = self.rank(world_rank).by_ctx[out[0] - 1]
        more = f" (and {count - 1} more)" if count > 1 else ""
        return [(world_rank, f"rank {world_rank}: {names.names[out[1]]} on {comm.label} (collective #{out[2]}) never "
                             f"completed{more}: no Wait or Test of its trace completes the request")]

    def blocked(self, m, names: "_Names", world_ranks) -> list[tuple[int, str]]:
        """``(world rank, the call it waits in)`` of every rank of ``world_ranks`` left blocked in the engine,
        as :func:`ppt.mpi.engine.deadlock.describe` tells it."""
        out = ffi.new("int64_t[7]")
        found = []
        for world_rank in world_ranks:
            kind = lib.ppt_mpi_blocked(m, world_rank, out)
            if kind < 0:
                continue
            rank = self.rank(world_rank)
            rank.call = names.names[out[0]]
            rank.proc.blocked_in = self._blocked_in(rank, kind, out, names)
            found.append((world_rank, describe(rank)))
        return found

    def _blocked_in(self, rank: _PlanRank, kind: int, out, names: "_Names"):
        """What the rank's process would wait in (``Process.blocked_in``), from ``ppt_mpi_blocked``."""
        if kind == BLOCKED_REQUEST:
            is_send, peer, ctx, tag, nbytes = out[2], out[3], out[4], out[5], out[6]
            comm = rank.by_ctx[ctx]
            local = peer if peer == ANY_SOURCE else comm.local_of(peer)
            return (Request(rank, bool(is_send), comm, local, tag, ctx, nbytes),)
        if kind == BLOCKED_PROBE:
            return ("probe", self.comm(rank.world_rank, out[1]), out[2], out[3])
        if kind == BLOCKED_RUN:
            comm = self.comm(rank.world_rank, out[1])
            return (Request(rank, out[2] == 1, comm, comm.local_of(out[3]), 0, comm.coll_ctx),)
        if kind == BLOCKED_COLL:
            comm = rank.by_ctx[out[2] - 1]
            step, is_send, peer = out[4], out[5], out[6]
            return (_Pending(barrier_text(comm, is_send) if step < 0
                             else schedule_text(names.names[out[3]], comm, step, is_send, peer)),)
        return None

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
        values = self.parts.values(key, me)
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

    def bind(self, world_rank: int, handle: int):
        """The rank's communicator of ``handle`` once a call made it (None: not a member), kept by its
        context for reports on its requests (even once freed)."""
        comm = self.comm(world_rank, handle)
        if comm is not None:
            self.rank(world_rank).by_ctx[comm.ctx] = comm
        return comm

    def flatten(self, schedule):
        """:func:`flatten`, kept as long as the planner (the engine's plans point into it; a plan is made
        once per rank and set of arguments, so each schedule is flattened about once)."""
        flat = flatten(schedule)
        self.flats.append(flat)
        return flat


def mismatch(m, names: "_Names", rank, comm, base: int = 0) -> MPIError:
    """The error of ``rank``'s collective call on ``comm`` that received another call's message, as
    :meth:`ppt.mpi.collectives.calls.Coll.value` raises it (the headers read from the engine: ppt_mpi_mismatch;
    ``base``: the engine's number of the job's world rank 0)."""
    out = ffi.new("int64_t[7]")
    lib.ppt_mpi_mismatch(m, out)
    return mismatch_error(rank, comm, comm.local_of(out[3] - base), _header(names, out, 0), _header(names, out, 4))


def _header(names: "_Names", out, k: int) -> tuple:
    """The collective header ``(call, root or None, sequence number)`` the engine wrote at ``out[k:k+3]``."""
    return names.names[out[k]], None if out[k + 1] < 0 else out[k + 1], out[k + 2]


def strays(m, names: "_Names", rank, base: int = 0) -> list:
    """Collective messages nobody received of ``rank`` (its ``world_rank``; ``base``: the engine's number of
    the job's world rank 0), as :func:`ppt.mpi.engine.outcome.stray` reports them."""
    found, out, k = [], ffi.new("int64_t[5]"), 0
    while lib.ppt_mpi_stray(m, base + rank.world_rank, k, out):
        found.append(stray(rank.world_rank, out[1] - base, _header(names, out, 2) if out[0] == 0 else None))
        k += 1
    return found


def flatten(schedule):
    """The schedule as the engine reads it: ``[steps, offset of each step, per step: posts, 4 ints per post,
    waits, the waits; then the flows]`` (a C int32 array).  A ``FLOW`` post names its flow by offset:
    ``[window, peers, (peer, count) per peer, streams, per stream: tasks, per task: needs, the needed
    slots, combines, their destination slots, sends, (peer, slot, mark) per send]`` (the engine carries
    sizes, not payloads: a combine's destination keeps its size)."""
    if type(schedule) is Rounds:
        return _flatten_rounds(schedule)
    steps = schedule.steps
    out = [len(steps)] + [0] * len(steps)
    append, extend = out.append, out.extend
    flow_posts = []
    for i, (posts, waits, _) in enumerate(steps, 1):
        out[i] = len(out)
        append(len(posts))
        for post in posts:
            if post[0] == FLOW:
                flow_posts.append((len(out) + 1, post[1]))
            extend(post)
        append(len(waits))
        extend(waits)
    for at, index in flow_posts:
        out[at] = len(out)
        _flatten_flow(schedule.flows[index], out)
    return ffi.from_buffer("int32_t[]", array("i", out))      # keeps the array alive


#: A round of a :class:`~ppt.mpi.collectives.schedule.Rounds` as :func:`flatten` lays it out: two posts (a
#: receive, then a send, of one slot each) and two waits; the columns of its variable fields.
ROUND = (2, RECV, -1, -1, 1, SEND, -1, -1, 1, 2, -1, -1)
SOURCE, INTO, DEST, SLOT, FIRST_WAIT = 2, 3, 6, 7, 10


def _flatten_rounds(rounds: Rounds):
    """:func:`flatten` of ``rounds``, made with array operations (its rounds are alike)."""
    n = rounds.nsteps
    out = np.empty(1 + n + len(ROUND) * n, dtype=np.int32)
    out[0] = n
    out[1:n + 1] = np.arange(1 + n, len(out), len(ROUND))
    body = out[n + 1:].reshape(n, len(ROUND))
    body[:] = ROUND
    body[:, SOURCE], body[:, INTO], body[:, DEST], body[:, SLOT] = rounds.sources, rounds.intos, rounds.dests, rounds.sends
    body[:, FIRST_WAIT] = np.arange(0, 2 * n, 2)
    body[:, FIRST_WAIT + 1] = body[:, FIRST_WAIT] + 1
    return ffi.from_buffer("int32_t[]", out)      # keeps the array alive


def _flatten_flow(flow, out: list) -> None:
    """Append ``flow`` to ``out`` as :func:`flatten` lays it out."""
    append, extend = out.append, out.extend
    extend((flow.window, len(flow.receives)))
    for receive in flow.receives:
        extend(receive)
    append(len(flow.streams))
    for tasks in flow.streams:
        append(len(tasks))
        for needs, combines, sends in tasks:
            append(len(needs))
            extend(needs)
            append(len(combines))
            extend(dst for _, dst, _, _ in combines)
            append(len(sends))
            for send in sends:
                extend(send)


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
        #: The packet network's core (this process's part of it) when the engine drives it, else None.
        self.core = None
        #: The simulation processes' mpi4py communicator (the mpiexec world by default), or None.
        self.comm = comm = parallel.world() if job.comm is parallel.AUTO else job.comm
        #: The models of one's own, run in Python (:mod:`ppt.mpi.engine.pynet`), or None.
        self.python = None
        if type(net) is PacketNetwork:      # builds the core (this process's part of it), which the engine drives
            net.node_weights = np.bincount(node_of, minlength=net.num_nodes)     # parallel runs share the ranks out
            self.sim = net.simulation(comm=comm, name="mpi")
            self.core = net.core.c
            lib.ppt_mpi_set_packet_network(m, net.core.c, net.core.message_latency, net.core.lead_s)
        elif type(net) is FlowNetwork:
            self.sim = net.simulation(comm=comm, name="mpi")        # builds the solver (refusing mpiexec)
            lib.ppt_mpi_set_flow_network(m, net.share.c, net.share.entity.eid, int(not net.chunks),
                                         net.nic_buffer_B, self.handle)
        elif type(net) is AnalyticNetwork:
            lib.ppt_mpi_set_network(m, int(net.uniform), net.latency_s + 0 * net.per_hop_s, net.bandwidth_Bps,
                                    int(net.wire_identity), self.handle)
        self._set_classes(settings.class_of)
        memory = net.node_memory
        if not self.built_in_network or type(memory) is not NodeMemory:
            self.sim = self.sim or net.simulation(comm=comm, name="mpi")
            self.python = PythonModels(m, net, self.sim, job.node_of, whole_network=not self.built_in_network)
        else:
            lib.ppt_mpi_set_memory(m, memory.bandwidth_Bps, memory.latency_s)
        self.names = _Names()
        self.members: dict = {}

    def _set_classes(self, classes) -> None:
        """Hand the job's message classes (:mod:`ppt.mpi.classes`) to the engine, checked against the network's."""
        if not classes.on:
            return
        packet = type(self.net) is PacketNetwork
        classes.check(self.net.classes.count if packet else 1,
                      "the packet network (network.traffic_classes)" if packet
                      else "this network (classes need the packet network)")
        if packet:
            low, high, number = zip(*classes.tag_ranges) if classes.tag_ranges else ((), (), ())
            lib.ppt_mpi_set_classes(self.m, classes.collectives, classes.point_to_point, len(low),
                                    ffi.new("int64_t[]", low), ffi.new("int64_t[]", high), ffi.new("int32_t[]", number))

    @property
    def built_in_network(self) -> bool:
        """Whether the engine carries the job's network in C (else it runs in Python: :mod:`ppt.mpi.engine.pynet`)."""
        return type(self.net) in BUILT_IN_NETWORKS

    def members_array(self, members, base: int = 0) -> tuple:
        """``(engine ranks, their C array)`` of a communicator's members (world ranks of a job whose world
        rank 0 is the engine's ``base``), kept as long as the engine: one per member list (the job interns
        them), and one for every rank's COMM_WORLD (each rank's own ``range``, equal to the others'), so a job
        of P ranks does not keep P arrays of P members."""
        key = (members if type(members) is range else id(members), base)
        found = self.members.get(key)
        if found is None:
            shifted = (range(members.start + base, members.stop + base, members.step) if type(members) is range
                       else tuple(world + base for world in members))
            found = self.members[key] = (members, shifted, ffi.new("int32_t[]", list(shifted) or [0]))
        return found[1], found[2]

    def end_s(self) -> float:
        """The time of this simulation process's last event, the network's own included, s
        (:meth:`~ppt.interconnects.networks.network.Network.end_s`)."""
        if self.sim is None:
            return lib.ppt_mpi_now(self.m)
        self.sim.now = lib.ppt_mpi_now(self.m)
        return self.net.end_s(self.sim)

    def network_stats(self) -> dict:
        """The network's statistics at the end of the run, as ``Network.stats`` reports them: this
        simulation process's part (``Network.stats``), which ``Network.merge_stats`` combines over processes."""
        net, m = self.net, self.m
        counts = ffi.new("int64_t[5]")
        lib.ppt_mpi_network_stats(m, counts)
        if type(net) in (AnalyticNetwork, FlowNetwork):     # the Python models' own counters
            net.messages, net.bytes, net.hop_sum = counts[0], counts[1], counts[2]
        if self.python is None:                             # (a model in Python counts its own)
            net.node_memory.copies, net.node_memory.bytes = counts[3], counts[4]
        if self.sim is not None:
            self.sim.now = lib.ppt_mpi_now(m)
        return net.stats(self.sim)


def replay_job(job, trace, replayer_cls, options: dict, progress=None):
    """Replay ``trace`` on ``job``: the JobResult, whose ``returns`` are the ranks' replay reports, as
    :class:`~ppt.traces.replay.RankReplay` makes them.
    Raises the Python replay's errors, with its text: a call the simulated MPI refuses (at the call),
    mismatched collectives (at the receive that finds them; a nonblocking collective's at the Wait or Test that
    completes it), a DeadlockError naming every rank left blocked and the call it waits in, and an MPIError for
    a collective message nobody received or a nonblocking collective no op completed (once the run ends).

    ``options``: ``compute_scale``, ``keep_startup``, ``clock`` (``"wall"`` or ``"cpu"``), and the calls
    replay skips where the trace could not express them (``skip``, a set of names, or all with
    ``skip_unsupported``);
    ``replayer_cls``: :class:`~ppt.traces.replay.RankReplay` (whose collective handlers plan the calls);
    ``progress``: a :class:`~ppt.traces.replay.ReplayProgress`.
    """
    wall = time.perf_counter()
    num_ranks = job.num_ranks
    engine = Engine(job)
    m = engine.m
    parts = CallParts(m, engine.comm)
    windows = Windows.of(engine, engine.comm, parts)
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
    planner = Planner(job, replayer_cls, parts)
    done_records = 0

    def step():
        """Run the engine to the end of the job, of its window or before its horizon; a replay that goes wrong
        raises its error."""
        nonlocal done_records
        while True:
            status = lib.ppt_mpi_run(m)
            if status in (lib.PPT_MPI_DONE, lib.PPT_MPI_HORIZON):
                return None
            if status == lib.PPT_MPI_NEED_CHUNK:
                rank = lib.ppt_mpi_need_rank(m)
                streams[rank].feed(m, rank, names)
            elif status in (lib.PPT_MPI_NEED_COLL, lib.PPT_MPI_NEED_COMM):
                _python_step(engine, status, planner, streams)
            elif status in (lib.PPT_MPI_REFUSED, lib.PPT_MPI_MISMATCH):
                raise _error(engine, status, planner, streams)
            elif status == lib.PPT_MPI_NEED_PROGRESS:
                if progress is not None:
                    records = lib.ppt_mpi_records(m)
                    progress.done += records - done_records
                    done_records = records
                    progress.progress.count(progress.done, progress.total, lib.ppt_mpi_now(m),
                                            "records over all ranks")
            elif engine.python is not None and engine.python.failure is not None:
                raise engine.python.failure         # the model of one's own raised
            else:
                raise SimulationError(f"compiled MPI engine: {_reason(m)}")

    with young_garbage_only():         # the trace and tables held: no rescans
        drive(engine, windows, step, job.sampler)
    _check_finished(m, names, planner, windows)
    return _results(m, job, names, engine, windows, time.perf_counter() - wall)


def _check_finished(m, names: _Names, planner: Planner, windows) -> None:
    """Raise what :meth:`ppt.mpi.job.MPIJob.result` raises for a replay that ran out of events, over every
    simulation process of a parallel run (:func:`ppt.mpi.engine.outcome.raise_failures`), else an MPIError for
    the first rank whose stream started a nonblocking collective none of its ops completed."""
    local = [r for r in range(planner.job.num_ranks) if lib.ppt_mpi_is_local(m, r)]
    part = {"blocked": planner.blocked(m, names, local), "now": lib.ppt_mpi_now(m),
            "stray": [s for r in local for s in strays(m, names, planner.rank(r))],
            "unfinished": [u for r in local for u in planner.unfinished(m, names, r)]}
    parts = gathered(windows, part)
    raise_failures(parts, planner.job.num_ranks)
    unfinished = sorted(u for p in parts for u in p["unfinished"])
    if unfinished:
        raise MPIError(unfinished[0][1])


def _reason(m) -> str:
    return ffi.string(lib.ppt_mpi_reason(m)).decode()


#: Op kinds that make a communicator (the others the planner runs, from Op.COMM_FREE on, only touch a
#: rank's tables).
MAKES_COMM = range(Op.COMM_DUP, Op.CART_SUB + 1)


def _op_row(m):
    """The rank's op the engine stopped at, as a replay row (its aux values a list of its own)."""
    op = lib.ppt_mpi_need_op(m)
    aux_ptr = lib.ppt_mpi_need_aux(m)
    aux = [aux_ptr[op.aux_start + i] for i in range(op.aux_len)]
    return op, tuple(getattr(op, name) for name in OP_DTYPE.names[:-1]) + (0,), aux


def _python_step(engine: Engine, status: int, planner: Planner, streams: list) -> None:
    """Answer the engine's stop at a collective or a communicator op: run the op's Python part and hand the
    engine what it needs.  A call the simulated MPI refuses (e.g. an algorithm refusing the communicator)
    raises the Python replay's error."""
    m, names = engine.m, engine.names
    rank = lib.ppt_mpi_need_rank(m)
    op, row, aux = _op_row(m)
    name = streams[rank].held[3][op.call]
    if status == lib.PPT_MPI_NEED_COMM and lib.ppt_mpi_need_stage(m) == 1:
        planner.finish_comm_op(rank)
        comm = planner.bind(rank, aux[0])
        if comm is not None:
            lib.ppt_mpi_set_comm(m, aux[0], comm.ctx, comm.size, comm.rank, engine.members_array(comm.members)[1])
        return
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
        return
    if planned is None:
        if status == lib.PPT_MPI_NEED_COLL:
            lib.ppt_mpi_set_plan(m, ffi.NULL, ffi.NULL, 0, 0, 0, -1)
        return
    c, schedule, sizes = planned
    call, root, _ = c.hdr
    lib.ppt_mpi_set_plan(m, planner.flatten(schedule), ffi.new("int64_t[]", list(sizes) or [0]), len(sizes),
                         c.ctx, names.id(call), -1 if root is None else root)


def _error(engine: Engine, status: int, planner: Planner, streams: list) -> PPTError:
    """The error of the rank the engine stopped at, at an op it refuses or a mismatched collective, as the Python
    replay raises it."""
    m = engine.m
    rank = lib.ppt_mpi_need_rank(m)
    op, row, aux = _op_row(m)
    name = streams[rank].held[3][op.call]
    if status == lib.PPT_MPI_MISMATCH:
        return planner.mismatch(m, engine.names, rank, name, op)
    return planner.refusal(rank, name, row, aux, _reason(m))


def _results(m, job, names: _Names, engine: Engine, windows, wall_s: float):
    """The JobResult of a finished replay (its ``returns`` the ranks' replay reports), gathered over the
    simulation processes of a parallel run."""
    num_calls = max(len(names.names), 1)
    times, counts = ffi.new("double[11]"), ffi.new("int64_t[7]")
    calls, skipped = ffi.new("int64_t[]", num_calls), ffi.new("int64_t[]", num_calls)
    per_rank, returns = [], []
    for rank in filter(lambda rank: lib.ppt_mpi_is_local(m, rank), range(job.num_ranks)):
        lib.ppt_mpi_rank_stats(m, rank, times, counts)
        lib.ppt_mpi_rank_calls(m, rank, calls, skipped, num_calls)
        (compute_s, comm_s, finish_s, dropped_s, recorded_mpi_s, wall_gaps_s, cpu_gaps_s,
         first_s, first_recorded_s, last_s, last_recorded_s) = times
        messages_sent, bytes_sent, records, p2p_bytes, unreceived, _, wtimes = counts
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
    local = (per_rank, returns, engine.network_stats(), lib.ppt_mpi_events(m))
    parts = gathered(windows, local)
    ranked = sorted((pair for part in parts for pair in zip(part[0], part[1])), key=lambda pair: pair[0]["rank"])
    per_rank, returns = [entry for entry, _ in ranked], [report for _, report in ranked]
    return JobResult(ranks=job.num_ranks, predicted_s=max(e["finish_s"] for e in per_rank), per_rank=per_rank,
                      calls=total_calls(per_rank), network=engine.net.merge_stats([part[2] for part in parts]),
                      returns=returns, events=sum(part[3] for part in parts), wall_s=wall_s)

"""Replays on the MPI engine (ppt.mpi.engine.replay) give the outcomes recorded when a Python twin of the
engine checked it to the last bit (tests/golden.py).

Every check replays one trace and asserts the whole prediction (times to the last bit, calls, per-rank
statistics, network counts) or the error is the one recorded.  The traces are the
shared DUMPI traces (the shipped DUMPI samples instead replay as the op-stream samples they were written
from), traces that go wrong (deadlocks, mismatched collectives, refused calls), and random
op streams that mix blocking and nonblocking point-to-point calls,
wildcards, probes, every completion call, rendezvous sizes, same-node copies that share the node's
memory, overheads, every collective the op-stream form has, with each MPI algorithm, and
communicators split off, duplicated and freed.
"""
from __future__ import annotations

import json
import random

import pytest

import golden
from ppt.errors import DeadlockError, PPTError
from ppt.interconnects.networks.analytic import AnalyticNetwork
from ppt.mpi.job import MPIJob
from ppt.mpi.settings import MPISettings
from ppt.traces.ideal import IDEAL_EAGER_B, ideal_network
from ppt.oprecord import ANY_SOURCE, ANY_TAG, NO_INDEX, UNDEFINED, Op
from ppt.traces.opstream import MemoryTrace
from ppt.traces.replay import replay

from shared_traces import SAMPLE_SETS, needs_real, path as set_path, real

#: The shared traces (amg, npb_ft and snap make communicators).
SHARED_TRACES = ["amg_n4", "hpccg_n4", "npb_cg_W_n4", "npb_ft_W_n4", "npb_is_W_n4", "osu_allreduce_n4",
                 "osu_latency_n2", "snap_mswp_n4"]


def _outcome(trace, make_job):
    """The replay's JSON (but the trace's path, which may be a test's own folder), or the error."""
    try:
        return json.dumps(dict(replay(trace, make_job()), trace=None), sort_keys=True,
                          default=repr)
    except PPTError as exc:
        return f"{type(exc).__name__}: {exc}"


def _same(trace, make_job):
    """The outcome is the one recorded: a prediction, or an error (its type and text), which the engine
    reports itself."""
    return golden.check(_outcome(trace, make_job))


def _shared(name):
    from ppt.traces.formats import open_trace
    return open_trace(set_path(name))


def _ideal(trace):
    return lambda: MPIJob(ideal_network(trace.num_ranks), trace.num_ranks, settings=MPISettings(IDEAL_EAGER_B))


def _two_per_node(trace):
    """Two ranks per node (same-node copies through shared memory), overheads, 4 KiB eager limit."""
    nodes = -(-trace.num_ranks // 2)
    return lambda: MPIJob(AnalyticNetwork(nodes, 1e-6, 5e9), trace.num_ranks, ranks_per_node=2,
                          settings=MPISettings(4096, 2e-7, 3e-7))


def _packet(trace, system="dragonfly-booksim", per_node=1, kind="packet", **mpi):
    """The packet (or ``kind``) network of a preset (its MPI settings, or ``mpi``)."""
    from ppt.hardware.systems import load_system
    from ppt.machine import Machine
    preset = load_system(system)
    if mpi:
        preset = dict(preset, mpi=dict(preset.get("mpi", {}), **mpi))
    return lambda: MPIJob.on_machine(Machine(preset, kind), trace.num_ranks, ranks_per_node=per_node)


@pytest.mark.parametrize("name", real(*SHARED_TRACES))
def test_shared_traces_replay_as_recorded(name):
    trace = _shared(name)
    for make_job in (_ideal(trace), _two_per_node(trace), _packet(trace, per_node=2)):
        assert "predicted_s" in _same(trace, make_job)


@pytest.mark.parametrize("name", SAMPLE_SETS)
def test_dumpi_samples_replay_as_the_op_streams_they_were_written_from(name):
    """Every byte of the prediction: DUMPI keeps what replay reads (times to the nanosecond)."""
    from ppt.traces import bundled, opstream
    from ppt.traces.readers.dumpi import TraceSet
    dumpi, ops = TraceSet(set_path(name)), opstream.load(bundled.path(name))
    for make in (_ideal, _two_per_node, lambda t: _packet(t, per_node=2),
                 lambda t: _packet(t, "fattree-4-3", per_node=2, kind="flow")):
        got, expected = json.loads(_outcome(dumpi, make(dumpi))), json.loads(_outcome(ops, make(ops)))
        assert got["predicted_s"] == pytest.approx(expected["predicted_s"], rel=1e-9)
        _close(got, expected)


def _close(got, expected, where="outcome"):
    """``got`` is ``expected`` but for floats within 1e-9 relative (DUMPI's nanoseconds)."""
    if isinstance(expected, dict):
        assert set(got) == set(expected), where
        for key in expected:
            _close(got[key], expected[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert len(got) == len(expected), where
        for i, (a, b) in enumerate(zip(got, expected)):
            _close(a, b, f"{where}[{i}]")
    elif isinstance(expected, float):
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12), where
    else:
        assert got == expected, where


@needs_real
@pytest.mark.parametrize("system", ["dragonfly-booksim", "edison", "fattree-4-3"])
def test_flow_network_replays_as_recorded(system):
    """Oblivious and adaptive routings (a route per pair, or per message in chunks), with and without
    the bytes a NIC sends ahead into the first router's buffer."""
    for name in ("hpccg_n4", "snap_mswp_n4"):
        trace = _shared(name)
        result = json.loads(_same(trace, _packet(trace, system, per_node=2, kind="flow")))
        assert result["network"]["reshares"] > 0


@needs_real
def test_packet_network_replays_as_recorded_with_its_counters():
    trace = _shared("hpccg_n4")
    result = json.loads(_same(trace, _packet(trace, "fattree-4-3", send_overhead_s=1e-7, recv_overhead_s=2e-7)))
    assert result["packets"] > 0 and result["network"]["message_latency_p50_s"] > 0


@needs_real
def test_nccl_tree_all_reduce_replays_as_recorded():
    trace = _shared("hpccg_n4")
    _same(trace, lambda: MPIJob(AnalyticNetwork(2, 1e-6, 5e9), 4, ranks_per_node=2, settings=MPISettings(4096, 2e-7, 3e-7),
                                algorithms={"allreduce": "nccl_tree"}))


# -- random op streams ---------------------------------------------------------------------------
COLLECTIVES = [Op.BARRIER, Op.BCAST, Op.REDUCE, Op.ALLREDUCE, Op.SCAN, Op.EXSCAN, Op.GATHER, Op.SCATTER,
               Op.SCATTERV, Op.ALLGATHER, Op.ALLGATHERV, Op.ALLTOALL, Op.ALLTOALLV, Op.REDUCE_SCATTER]
ALGORITHMS = [{}, {"allreduce": "ring", "bcast": "linear", "reduce": "linear", "gather": "linear",
                   "scatter": "linear", "allgather": "ring", "alltoall": "isend_irecv", "scan": "linear",
                   "exscan": "linear", "reduce_scatter": "reduce_scatterv"},
              {"allreduce": "reduce_bcast", "allgather": "bruck"}]


class _Program:
    """A random program written as every rank's op stream, phase by phase (so that most runs finish);
    ``drop``: the number of an op (from 1, in the order written) to leave out."""

    def __init__(self, rng, ranks, drop=0):
        self.rng, self.ranks = rng, ranks
        self.trace = MemoryTrace("random", ranks)
        self.requests = [0] * ranks
        self.clock = [0.0] * ranks
        self.written, self.drop = 0, drop
        for rank in range(ranks):
            self.add(rank, Op.INIT, "MPI_Init")

    def add(self, rank, kind, call, **fields):
        gap = self.rng.choice([0.0, 0.0, 1e-7, 2.5e-6])
        self.clock[rank] += gap
        self.written += 1
        if self.written == self.drop:
            return
        self.trace.builder(rank).add(int(kind), call, gap_wall_s=gap, gap_cpu_s=gap / 2, call_s=1e-7,
                                     start_s=self.clock[rank], **fields)

    def request(self, rank):
        self.requests[rank] += 1
        return self.requests[rank] % 7            # ids are reused, as traces reuse them

    def size(self):
        return self.rng.choice([0, 8, 1000, 4096, 5000, 70000])

    def exchange(self):
        """Nonblocking messages between random pairs, each receiver completing them its own way."""
        rng = self.rng
        sends = {r: [] for r in range(self.ranks)}
        recvs = {r: [] for r in range(self.ranks)}
        pairs = [(rng.randrange(self.ranks), rng.randrange(self.ranks)) for _ in range(rng.randint(1, 3 * self.ranks))]
        for tag, (src, dst) in enumerate(pairs):       # a wildcard never takes another receive's message
            nbytes = self.size()
            sends[src].append((dst, tag, nbytes))
            alone = pairs.count((src, dst)) == 1
            source = ANY_SOURCE if rng.random() < 0.2 else src
            wild_tag = alone and source != ANY_SOURCE and rng.random() < 0.3
            recvs[dst].append((source, ANY_TAG if wild_tag else tag, nbytes))
        for rank in range(self.ranks):
            posted = []
            items = [("r", x) for x in recvs[rank]] + [("s", x) for x in sends[rank]]
            rng.shuffle(items)
            for what, (peer, tag, nbytes) in items:
                req = self.request(rank)
                if what == "r":
                    self.add(rank, Op.IRECV, "MPI_Irecv", peer=peer, tag=tag, nbytes=nbytes, request=req)
                else:
                    self.add(rank, Op.ISEND, "MPI_Isend", peer=peer, tag=tag, nbytes=nbytes, request=req)
                posted.append(req)
            if rng.random() < 0.3 and recvs[rank]:
                self.add(rank, Op.IPROBE, "MPI_Iprobe", peer=ANY_SOURCE, tag=ANY_TAG, flag=0)
            self.complete(rank, posted)

    def complete(self, rank, posted):
        rng = self.rng
        style = rng.choice(["waitall", "wait", "waitany", "waitsome", "testall", "test", "testsome"])
        if style == "waitall" or not posted:
            self.add(rank, Op.WAITALL, "MPI_Waitall", aux=posted)
            return
        if style in ("test", "testall", "testsome"):       # failed polls first, then the recorded success
            if style == "test":
                self.add(rank, Op.TEST, "MPI_Test", request=posted[0], flag=0)
            elif style == "testall":
                self.add(rank, Op.TESTALL, "MPI_Testall", aux=posted, flag=0)
                self.add(rank, Op.TESTALL, "MPI_Testall", aux=posted, flag=0)
            else:
                self.add(rank, Op.TESTSOME, "MPI_Testsome", aux=posted, flag=0)
            self.add(rank, Op.TESTALL, "MPI_Testall", aux=posted, flag=1)
            return
        if style == "waitany":
            order = list(range(len(posted)))
            rng.shuffle(order)
            for index in order:
                self.add(rank, Op.WAITANY, "MPI_Waitany", aux=posted, flag=index)
            self.add(rank, Op.WAITANY, "MPI_Waitany", aux=posted, flag=NO_INDEX)
            return
        if style == "waitsome":
            indices = list(range(len(posted)))
            rng.shuffle(indices)
            cut = rng.randint(1, len(indices))
            for part in (indices[:cut], indices[cut:]):
                if part:
                    self.add(rank, Op.WAITSOME, "MPI_Waitsome", aux=posted + part, flag=len(part))
            return
        for req in posted:
            self.add(rank, Op.WAIT, "MPI_Wait", request=req)

    def blocking(self):
        """A shift: even ranks send then receive, odd ranks receive then send (Sendrecv sometimes)."""
        rng = self.rng
        shift = rng.randint(1, max(1, self.ranks - 1))
        nbytes, tag = self.size(), rng.randrange(4)
        ordered = self.ranks % 2 == 0 and shift % 2 == 1     # even ranks send first, odd ones receive first
        probed = {rank for rank in range(self.ranks) if rng.random() < 0.3}
        for rank in range(self.ranks):
            dst, src = (rank + shift) % self.ranks, (rank - shift) % self.ranks
            if not ordered or rng.random() < 0.3:
                self.add(rank, Op.SENDRECV, "MPI_Sendrecv", peer=dst, tag=tag, nbytes=nbytes,
                         aux=[src, tag, nbytes])
            else:
                send = lambda r=rank, d=dst: self.add(r, Op.SEND, "MPI_Send", peer=d, tag=tag, nbytes=nbytes)
                recv = lambda r=rank, s=src: self.add(r, Op.RECV, "MPI_Recv", peer=s, tag=tag, nbytes=nbytes)
                if rank % 2:
                    recv(), send()
                else:
                    send(), recv()
            if dst in probed:                       # one more message, which its receiver probes for first
                self.add(rank, Op.ISEND, "MPI_Isend", peer=dst, tag=9, nbytes=nbytes, request=99)
            if rank in probed:
                self.add(rank, Op.PROBE if rng.random() < 0.5 else Op.IPROBE, "MPI_Probe", peer=src, tag=9, flag=1)
                self.add(rank, Op.RECV, "MPI_Recv", peer=src, tag=9, nbytes=nbytes)
            if dst in probed:
                self.add(rank, Op.WAIT, "MPI_Wait", request=99)

    def collective(self):
        rng = self.rng
        kind = rng.choice(COLLECTIVES)
        root, nbytes = rng.randrange(self.ranks), self.size()
        comm = 1 if rng.random() < 0.1 else 0
        name = "MPI_" + kind.name.title().replace("_", "_")
        for rank in range(self.ranks):
            fields = {"comm": comm, "root": root if comm == 0 else 0, "nbytes": nbytes, "op": 3}
            if kind in (Op.SCATTERV, Op.ALLTOALLV, Op.REDUCE_SCATTER):
                size = self.ranks if comm == 0 else 1
                fields["aux"] = [rng.choice([0, 8, 100, 9000]) for _ in range(size)]
                if kind == Op.SCATTERV and rank != fields["root"]:
                    fields["aux"] = []
            self.add(rank, kind, name, **fields)

    def split(self):
        """A communicator split off COMM_WORLD (some ranks in none), a collective and a shift on it, then
        freed or kept."""
        rng = self.rng
        self.handles = getattr(self, "handles", 1) + 1
        handle, colours = self.handles, rng.randint(1, 3)
        entries = [(rng.choice([UNDEFINED] + list(range(colours))) if rng.random() < 0.2 else r % colours,
                    rng.randrange(4)) for r in range(self.ranks)]
        for rank, (colour, key) in enumerate(entries):
            self.add(rank, Op.COMM_SPLIT, "MPI_Comm_split", aux=[handle, colour, key])
        kind, nbytes = rng.choice([Op.ALLREDUCE, Op.BCAST, Op.ALLGATHER, Op.BARRIER]), self.size()
        for colour in range(colours):
            members = sorted((key, r) for r, (c, key) in enumerate(entries) if c == colour)
            members = [r for _, r in members]
            for me, rank in enumerate(members):
                self.add(rank, kind, "MPI_" + kind.name.title(), comm=handle, root=0, nbytes=nbytes, op=3)
                right, left = (me + 1) % len(members), (me - 1) % len(members)
                self.add(rank, Op.SENDRECV, "MPI_Sendrecv", comm=handle, peer=right, tag=5, nbytes=nbytes,
                         aux=[left, 5, nbytes])
                if rng.random() < 0.5:
                    self.add(rank, Op.COMM_FREE, "MPI_Comm_free", comm=handle)
        if rng.random() < 0.3:
            self.handles += 1
            for rank in range(self.ranks):
                self.add(rank, Op.COMM_DUP, "MPI_Comm_dup", aux=[self.handles])
                self.add(rank, Op.BARRIER, "MPI_Barrier", comm=self.handles)

    def finish(self):
        for rank in range(self.ranks):
            if self.rng.random() < 0.5:
                self.add(rank, Op.WTIME, "MPI_Wtime")
            self.add(rank, Op.LOCAL, "MPI_Finalize")
        return self.trace


def _random_trace(seed, drop=0):
    rng = random.Random(seed)
    program = _Program(rng, rng.randint(2, 6), drop)
    for rank in range(program.ranks):
        program.add(rank, Op.WTIME, "MPI_Wtime")
    for _ in range(rng.randint(3, 8)):
        rng.choice([program.exchange, program.exchange, program.blocking, program.collective, program.split])()
    return program.finish(), rng


@pytest.mark.parametrize("seed", range(12))
def test_random_programs_replay_as_recorded_on_the_packet_and_flow_networks(seed):
    trace, rng = _random_trace(1000 + seed)
    _same(trace, _packet(trace, rng.choice(["fattree-4-3", "dragonfly-booksim"]), per_node=rng.choice([1, 2]),
                         kind="packet" if seed % 2 else "flow", eager_threshold_B=rng.choice([1000, 8192]),
                         send_overhead_s=rng.choice([0.0, 1e-7])))


def _random_job(trace, rng):
    """A random job for ``trace``: ranks per node, MPI settings, algorithms, analytic network."""
    ranks = trace.num_ranks
    per_node = rng.choice([1, 2, 3])
    nodes = -(-ranks // per_node)
    settings = MPISettings(rng.choice([0, 1000, 4096, 65536]), rng.choice([0.0, 1e-7]), rng.choice([0.0, 2e-7]),
                           rng.choice([0.0, 1e-7]))
    algorithms = rng.choice(ALGORITHMS)
    hops = rng.random() < 0.5

    def make_job():
        net = AnalyticNetwork(nodes, 1e-6, rng_bandwidth, per_hop_s=5e-8,
                              hops=(lambda a, b: abs(a - b)) if hops else None)
        return MPIJob(net, ranks, per_node, settings=settings, algorithms=algorithms)

    rng_bandwidth = rng.choice([1e9, 1e10, float("inf")])
    return make_job


@pytest.mark.parametrize("seed", range(40))
def test_random_programs_replay_as_recorded(seed):
    trace, rng = _random_trace(seed)
    _same(trace, _random_job(trace, rng))


@pytest.mark.parametrize("seed", range(30))
def test_random_programs_missing_an_op_go_wrong_as_recorded(seed):
    """A random program with one op after MPI_Init left out: most deadlock (in a receive, a wait, a probe,
    a collective's step or a new communicator's agreement), mismatch their collectives or leave collective
    messages unreceived, reported as recorded."""
    full, _ = _random_trace(seed)
    drop = random.Random(-1 - seed).randrange(full.num_ranks, sum(full.calls().values())) + 1
    trace, rng = _random_trace(seed, drop)
    _same(trace, _random_job(trace, rng))


@pytest.mark.parametrize("seed", range(8))
def test_random_programs_with_nccl_rings_replay_as_recorded(seed):
    """NCCL's ring collectives replay compiled, the all-gather's relays included (communicator splits
    agree by it), with chunks small enough to cut blocks into several pieces."""
    trace, rng = _random_trace(2000 + seed)
    ranks, per_node = trace.num_ranks, rng.choice([1, 2])
    settings = MPISettings(rng.choice([0, 1000, 65536]), rng.choice([0.0, 1e-7]), rng.choice([0.0, 2e-7]),
                           nccl_channels=rng.choice([1, 2]), nccl_chunk_B=rng.choice([64, 1000]))
    rings = {"allreduce": "nccl_ring", "allgather": "nccl_ring", "reduce_scatter": "nccl_ring"}
    _same(trace, lambda: MPIJob(AnalyticNetwork(-(-ranks // per_node), 1e-6, 1e9), ranks, per_node,
                                settings=settings, algorithms=rings))


def test_an_nccl_allgatherv_of_unequal_blocks_replays_as_recorded():
    """Each rank's block is cut into as many pieces as its size asks, which no other rank knows."""
    program = _Program(random.Random(0), 5)
    for rank in range(5):
        program.add(rank, Op.ALLGATHERV, "MPI_Allgatherv", comm=0, root=0, nbytes=300 * (rank % 3) + 7, op=3)
    trace = program.finish()
    result = json.loads(_same(trace, lambda: MPIJob(ideal_network(5), 5, settings=MPISettings(
        IDEAL_EAGER_B, nccl_chunk_B=100), algorithms={"allgather": "nccl_ring"})))
    assert result["network"]["messages"] == 4 * (1 + 4 + 7 + 1 + 4)


@pytest.mark.parametrize("overlap", [False, True])
def test_chakra_training_step_with_nccl_ring_replays_as_recorded(tmp_path, overlap):
    """A data-parallel step (Chakra ET files) on GPU nodes, NCCL's ring all-reduce, compute overlapped or not."""
    from ppt.hardware.systems import load_system
    from ppt.machine import Machine
    from ppt.traces.readers.chakra import ChakraTrace
    from ppt.traces.writers.chakra import dp_step
    dp_step(tmp_path / "dp", 8, 3, 1e-4, 2e-4, 3 << 20)
    trace = ChakraTrace(tmp_path / "dp", overlap=overlap)
    machine = Machine(load_system("dgx-a100"), "packet")

    def make_job():
        return MPIJob(machine.network(), trace.num_ranks, (1 + overlap) * 4, algorithms={"allreduce": "nccl_ring"},
                      settings=MPISettings.from_preset(machine.preset))
    result = json.loads(_same(trace, make_job))
    assert result["calls"]["ALL_REDUCE"] == 8 * 3


# -- errors ----------------------------------------------------------------------------------------------
def _trace(ranks, ops):
    """A trace of ``ranks`` ranks, each starting with MPI_Init, then ``ops``: (rank, kind, call, fields), 1 us
    apart unless the fields say otherwise."""
    trace = MemoryTrace("errors", ranks)
    for rank in range(ranks):
        trace.builder(rank).add(int(Op.INIT), "MPI_Init", gap_wall_s=1e-6, gap_cpu_s=1e-6, call_s=1e-7)
    for rank, kind, call, fields in ops:
        trace.builder(rank).add(int(kind), call, **dict(dict(gap_wall_s=1e-6, gap_cpu_s=1e-6, call_s=1e-7), **fields))
    return trace


def _all(ranks, kind, call, **fields):
    return [(rank, kind, call, fields) for rank in range(ranks)]


#: Traces that go wrong, by the error the engine reports.
ERRORS = {
    "DeadlockError": {
        "receives and a rendezvous send nobody matches": (3, [
            (0, Op.RECV, "MPI_Recv", dict(peer=1, tag=3, nbytes=8)),
            (1, Op.RECV, "MPI_Recv", dict(peer=ANY_SOURCE, tag=ANY_TAG, nbytes=8)),
            (2, Op.ISEND, "MPI_Isend", dict(peer=0, tag=4, nbytes=70000, request=5)),
            (2, Op.WAIT, "MPI_Wait", dict(request=5))]),
        "completion calls for receives never matched": (3, [
            (0, Op.IRECV, "MPI_Irecv", dict(peer=1, tag=0, request=1)),
            (0, Op.IRECV, "MPI_Irecv", dict(peer=2, tag=5, request=2)),
            (0, Op.WAITANY, "MPI_Waitany", dict(aux=[1, 2], flag=1)),
            (1, Op.IRECV, "MPI_Irecv", dict(peer=0, tag=1, request=3)),
            (1, Op.WAITSOME, "MPI_Waitsome", dict(aux=[3, 0], flag=1)),
            (2, Op.IRECV, "MPI_Irecv", dict(peer=ANY_SOURCE, tag=2, request=4)),
            (2, Op.TESTALL, "MPI_Testall", dict(aux=[4], flag=1))]),
        "a receive on a communicator freed since": (2, _all(2, Op.COMM_SPLIT, "MPI_Comm_split", aux=[2, 0, 0]) + [
            (0, Op.IRECV, "MPI_Irecv", dict(comm=2, peer=1, tag=0, request=1)),
            (0, Op.COMM_FREE, "MPI_Comm_free", dict(comm=2)),
            (0, Op.WAIT, "MPI_Wait", dict(request=1)),
            (1, Op.COMM_FREE, "MPI_Comm_free", dict(comm=2))]),
        "probes for messages never sent": (2, [
            (0, Op.PROBE, "MPI_Probe", dict(peer=ANY_SOURCE, tag=ANY_TAG, flag=1)),
            (1, Op.IPROBE, "MPI_Iprobe", dict(peer=0, tag=2, flag=1))]),
        "a collective one rank never calls": (4, _all(3, Op.ALLREDUCE, "MPI_Allreduce", nbytes=8, op=3)),
        "on a split communicator": (4, _all(4, Op.COMM_SPLIT, "MPI_Comm_split", aux=[2, 0, 0])[:2]
                                    + [(r, Op.COMM_SPLIT, "MPI_Comm_split", dict(aux=[2, 1, 0])) for r in (2, 3)]
                                    + _all(3, Op.BARRIER, "MPI_Barrier", comm=2)
                                    + [(3, Op.RECV, "MPI_Recv", dict(comm=2, peer=0, tag=1, nbytes=8))]),
        "in a new communicator's agreement": (3, _all(2, Op.COMM_DUP, "MPI_Comm_dup", aux=[2])),
        "many ranks, one per line": (9, _all(8, Op.BARRIER, "MPI_Barrier")),
    },
    "MPIError": {
        "mismatched collectives": (4, [(0, Op.BCAST, "MPI_Bcast", dict(nbytes=8, root=0))]
                                   + _all(4, Op.ALLREDUCE, "MPI_Allreduce", nbytes=8, op=3)[1:]),
        "mismatched collectives found after a wait": (2, [
            (0, Op.BCAST, "MPI_Bcast", dict(nbytes=8, root=0, gap_wall_s=1e-3, gap_cpu_s=1e-3)),
            (1, Op.ALLREDUCE, "MPI_Allreduce", dict(nbytes=8, op=3))]),
        "a collective message nobody received": (3, [(0, Op.BCAST, "MPI_Bcast", dict(nbytes=8, root=0))]),
        "a send to a rank out of range": (2, [(0, Op.SEND, "MPI_Send", dict(peer=5, tag=1, nbytes=8))]),
        "a negative receive tag": (2, [(1, Op.RECV, "MPI_Recv", dict(peer=0, tag=-7, nbytes=8))]),
        "a Sendrecv whose send is refused": (2, [(1, Op.SENDRECV, "MPI_Sendrecv",
                                                  dict(peer=7, tag=1, nbytes=8, aux=[0, 1, 8]))]),
        "a probe out of range": (2, [(1, Op.IPROBE, "MPI_Iprobe", dict(peer=3, tag=0, flag=0))]),
        "Scatterv without block sizes": (2, _all(2, Op.SCATTERV, "MPI_Scatterv", root=0, nbytes=8, aux=[])),
        "a negative split colour": (2, _all(2, Op.COMM_SPLIT, "MPI_Comm_split", aux=[2, -5, 0])),
    },
    "TraceError": {
        "a communicator no call created": (2, [(1, Op.BARRIER, "MPI_Barrier", dict(comm=9))]),
        "a send on a communicator no call created": (2, [(0, Op.ISEND, "MPI_Isend",
                                                          dict(comm=4, peer=1, tag=0, nbytes=8, request=1))]),
    },
    "ProcessError": {
        "a short Sendrecv record": (2, [(1, Op.SENDRECV, "MPI_Sendrecv", dict(peer=0, tag=1, nbytes=8, aux=[0, 1]))]),
        "a short Comm_split record": (2, _all(2, Op.COMM_SPLIT, "MPI_Comm_split", aux=[2, 0])),
    },
}


@pytest.mark.parametrize("error, case", [(error, case) for error, cases in ERRORS.items() for case in cases])
def test_errors_are_reported_by_the_engine_as_recorded(error, case):
    ranks, ops = ERRORS[error][case]
    trace = _trace(ranks, ops)
    for make_job in (_ideal(trace), _two_per_node(trace), _packet(trace, per_node=2)):
        assert _same(trace, make_job).startswith(f"{error}: ")


def test_a_deadlock_names_every_blocked_rank_and_its_call():
    trace = _trace(*ERRORS["DeadlockError"]["receives and a rendezvous send nobody matches"])
    message = _same(trace, _two_per_node(trace))
    assert "3 of 3 ranks blocked" in message
    for call in ("rank 0 in MPI_Recv(source=1, tag=3,", "rank 1 in MPI_Recv(source=ANY_SOURCE, tag=ANY_TAG,",
                 "rank 2 in MPI_Wait(dest=0, tag=4, 70000 B,"):
        assert call in message


def test_an_op_the_reader_translates_but_replay_cannot_is_refused_at_the_op():
    """An OTHER op of a call the trace claims to translate passes the check before the run and is refused
    at the op."""
    trace = _trace(2, [(1, Op.OTHER, "MPI_Foo", {})])
    trace.translates = lambda call: True
    assert _same(trace, _ideal(trace)) == ("TraceError: trace rank 1 calls MPI_Foo, which replay does not "
                                          "support; rerun with --skip-unsupported to ignore it")

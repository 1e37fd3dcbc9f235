"""Chakra execution traces: ET files written by PPT's writer, read into op streams and replayed; the
predicted time must equal the same program written as a PPT model on the same analytic network, and
bad input must be one line.

``chakra_traces/`` holds traces written with MLCommons' own protobuf classes (the mlc-chakra
package, 1.0.0): ``nodes`` every node type, collective type and attribute kind, unknown fields
and nodes out of id order; ``small`` and ``dp`` the sets PPT's writer made with that package's
encoder.  ``expected.json`` is what the reader made of them when it read them with that package:
ranks, calls, span and the SHA-256 of every op stream (:func:`outcome`)."""
import gzip
import hashlib
import json
import random
from collections import Counter
from pathlib import Path

import pytest

from ppt.cli.main import main
from ppt.errors import TraceError
from ppt.mpi import SUM, UNDEFINED, MPIJob
from ppt.traces.writers import chakra as cw
from ppt.traces.readers.chakra import ChakraTrace, collective_type_of_name, is_chakra, read_file
from ppt.traces.formats import format_of, open_trace
from ppt.oprecord import KIND, Op
from ppt.traces.replay import replay

from mpi_helpers import network

RANKS = 4
AR_B, P2P_B, AG_B, TAG = 1 << 20, 65536, 4096, 7
#: Process group "1": ranks 3 and 1, in that order (rank 3 is its rank 0).
SUBGROUP = [3, 1]
COMPUTE_S = (10e-6, 20e-6, 5e-6)


def small_nodes(rank):
    """Compute, an all-reduce on the world, a ring send/recv overlapping compute, an all-gather on a subgroup."""
    right, left = (rank + 1) % RANKS, (rank - 1) % RANKS
    nodes = [cw.process_group_init(0, {"0": list(range(RANKS)), "1": SUBGROUP}),
             cw.compute(1, "forward", COMPUTE_S[0]),
             cw.collective(2, "allreduce", "ALL_REDUCE", AR_B, [1], "0"),
             cw.send(3, "send", rank, right, P2P_B, TAG, [1]),
             cw.recv(4, "recv", left, rank, P2P_B, TAG, [3]),     # as ASTRA-sim rings chain them
             cw.compute(5, "independent", COMPUTE_S[1], [2]),
             cw.compute(6, "needs_recv", COMPUTE_S[2], [4, 5])]
    if rank in SUBGROUP:
        nodes.append(cw.collective(7, "allgather", "ALL_GATHER", AG_B, [6], "1"))
    return nodes


@pytest.fixture
def small(tmp_path):
    cw.write_set(tmp_path / "small", [small_nodes(r) for r in range(RANKS)])
    return tmp_path


def small_model(mpi):
    """The small trace's program as a PPT model."""
    world, rank = mpi.COMM_WORLD, mpi.rank
    member = rank in SUBGROUP
    sub = world.split(0 if member else UNDEFINED, SUBGROUP.index(rank) if member else 0)
    mpi.sleep(COMPUTE_S[0])
    sent = world.isend(None, (rank + 1) % RANKS, TAG, P2P_B)     # ready transfers are posted first
    received = world.irecv((rank - 1) % RANKS, TAG)
    world.allreduce(None, SUM, AR_B)
    mpi.sleep(COMPUTE_S[1])
    mpi.wait(received)
    mpi.sleep(COMPUTE_S[2])
    if member:
        sub.allgather(None, AG_B // len(SUBGROUP))
    mpi.wait(sent)


def kinds(trace, rank):
    return Counter(Op(op[KIND]).name for chunk in trace.stream(rank) for op in chunk.rows())


def job():
    return MPIJob(network(RANKS), RANKS, comm=None)


def test_small_set_op_counts(small):
    trace = open_trace(small)
    assert format_of(small).name == "chakra" and isinstance(trace, ChakraTrace)
    assert trace.num_ranks == RANKS and trace.name == "small"
    common = {"INIT": 1, "COMM_SPLIT": 1, "ALLREDUCE": 1, "ISEND": 1, "IRECV": 1, "WAIT": 2, "LOCAL": 1}
    for rank in range(RANKS):
        assert kinds(trace, rank) == Counter(common, ALLGATHER=int(rank in SUBGROUP))
    assert trace.calls() == Counter(TRACE_START=4, COMM_SPLIT=4, ALL_REDUCE=4, SEND=4, RECV=4, WAIT=8,
                                    ALL_GATHER=2, TRACE_END=4)
    assert trace.span() == (0.0, pytest.approx(sum(COMPUTE_S)))


def test_gzip_compressed_files_read_alike(small, tmp_path_factory):
    packed = tmp_path_factory.mktemp("packed")
    for rank in range(RANKS):
        (packed / f"small.{rank}.et").write_bytes(gzip.compress((small / f"small.{rank}.et").read_bytes()))
    plain, compressed = ChakraTrace(small), ChakraTrace(packed)
    for rank in range(RANKS):
        assert [c.rows() for c in compressed.stream(rank)] == [c.rows() for c in plain.stream(rank)]


def test_small_set_predicts_as_the_model(small):
    predicted = replay(open_trace(small / "small.0.et"), job())["predicted_s"]
    assert predicted == job().run(small_model).predicted_s
    assert predicted > sum(COMPUTE_S) + AR_B / 1e9


def test_dp_step_predicts_as_the_model(tmp_path):
    layers, forward_s, backward_s, grad_B = 3, 1e-3, 2e-3, 1 << 18
    cw.dp_step(tmp_path / "dp", RANKS, layers, forward_s, backward_s, grad_B)
    trace = open_trace(tmp_path / "dp")
    assert trace.calls() == Counter(TRACE_START=RANKS, ALL_REDUCE=RANKS * layers, TRACE_END=RANKS)

    def model(mpi):
        mpi.sleep(layers * forward_s + backward_s)
        for layer in range(layers):
            mpi.COMM_WORLD.allreduce(None, SUM, grad_B)
            if layer < layers - 1:
                mpi.sleep(backward_s)

    assert replay(trace, job())["predicted_s"] == job().run(model).predicted_s


def test_small_set_with_overlap_splits_each_rank_into_two_streams(small):
    trace = ChakraTrace(small, overlap=True)
    assert (trace.num_ranks, trace.chakra_ranks) == (2 * RANKS, RANKS)
    for rank in range(RANKS):
        member = int(rank in SUBGROUP)
        assert kinds(trace, 2 * rank) == Counter(INIT=1, COMM_SPLIT=2, SEND=1 + member, RECV=2, LOCAL=1)
        assert kinds(trace, 2 * rank + 1) == Counter(INIT=1, COMM_SPLIT=2, RECV=1 + member, ALLREDUCE=1, SEND=2,
                                                     ISEND=1, IRECV=1, WAIT=2, ALLGATHER=member, LOCAL=1)
    job = MPIJob(network(RANKS), 2 * RANKS, ranks_per_node=2, comm=None)
    assert replay(trace, job)["predicted_s"] > sum(COMPUTE_S) + AR_B / 1e9


def test_overlap_completes_receives_where_one_stream_does(tmp_path):
    """Two ranks post a receive, then the send it matches, then forward what arrived and compute on it:
    the communication stream must post the send before it waits for the receive, or both wait
    forever, and signal the receive it completed for the forward to the compute stream."""
    def exchange(rank):
        peer = 1 - rank
        return [cw.recv(1, "recv", peer, rank, P2P_B, TAG), cw.send(2, "send", rank, peer, P2P_B, TAG),
                cw.send(3, "forward", rank, peer, P2P_B, TAG + 1, [1]), cw.compute(4, "use", COMPUTE_S[0], [1]),
                cw.recv(5, "forwarded", peer, rank, P2P_B, TAG + 1)]

    cw.write_set(tmp_path / "x", [exchange(0), exchange(1)])
    one = replay(ChakraTrace(tmp_path), MPIJob(network(2), 2, comm=None))["predicted_s"]
    two = replay(ChakraTrace(tmp_path, overlap=True), MPIJob(network(2), 4, ranks_per_node=2, comm=None))
    # both forms overlap the compute with the forwarded message (the receive is posted first)
    assert 2 * P2P_B / 1e9 < one < 2 * P2P_B / 1e9 + COMPUTE_S[0]
    assert one < two["predicted_s"] < one + 5e-6      # the same, but for a same-node signal
    assert two["calls"]["SIGNAL"] == two["calls"]["SIGNAL_WAIT"] == 2


@pytest.mark.parametrize("overlap", [False, True])
def test_ready_transfers_are_posted_before_compute_waits(tmp_path, overlap):
    """Each of two ranks computes on what it receives before its id order reaches the send its peer
    waits for; ASTRA-sim issues that ready send at once, and so must the linear form."""
    def ranks(rank):
        peer = 1 - rank
        return [cw.recv(1, "recv", peer, rank, P2P_B, TAG), cw.compute(2, "use", COMPUTE_S[0], [1]),
                cw.send(3, "send", rank, peer, P2P_B, TAG)]

    cw.write_set(tmp_path / "r", [ranks(0), ranks(1)])
    trace = ChakraTrace(tmp_path, overlap=overlap)
    job = MPIJob(network(2), trace.num_ranks, ranks_per_node=1 + overlap, comm=None)
    # one message, then the compute (with overlap also the start-up split and a signal: a few us)
    assert replay(trace, job)["predicted_s"] == pytest.approx(P2P_B / 1e9 + COMPUTE_S[0], abs=10e-6)


def random_ring_program(seed: int, rank: int) -> list:
    """Compute, all-reduces and ring transfers (send right, receive from the left, either first) with
    random dependencies on earlier nodes; every rank has the same graph, so it cannot deadlock as
    ASTRA-sim runs it."""
    rng = random.Random(seed)
    nodes, tag = [], 0
    for _ in range(rng.randint(3, 14)):
        deps = [n.id for n in nodes if rng.random() < 0.3]
        kind = rng.choice(["compute", "compute", "allreduce", "ring"])
        if kind == "compute":
            nodes.append(cw.compute(len(nodes) + 1, "c", rng.choice([1e-6, 1e-5, 1e-4]), deps))
        elif kind == "allreduce":
            nodes.append(cw.collective(len(nodes) + 1, "a", "ALL_REDUCE", rng.choice([8, 1 << 16, 1 << 20]), deps))
        else:
            tag, size = tag + 1, rng.choice([8, P2P_B])
            send = lambda d: cw.send(len(nodes) + 1, "s", rank, (rank + 1) % RANKS, size, tag, d)
            recv = lambda d: cw.recv(len(nodes) + 1, "r", (rank - 1) % RANKS, rank, size, tag, d)
            first, second = (send, recv) if rng.random() < 0.5 else (recv, send)
            nodes.append(first(deps))
            nodes.append(second([d for d in deps if rng.random() < 0.5]))
    return nodes


#: Seeds whose programs deadlocked when ready sends and receives were posted first but nodes waiting
#: for a receive in flight were not put last.
DEADLOCKED_IN_ID_ORDER = (24, 53, 188, 194, 211, 227, 241, 283)


@pytest.mark.parametrize("seed", DEADLOCKED_IN_ID_ORDER + (0, 1, 2))
def test_random_ring_programs_replay_in_both_forms(tmp_path, seed):
    cw.write_set(tmp_path / "p", [random_ring_program(seed, r) for r in range(RANKS)])
    one = replay(ChakraTrace(tmp_path), MPIJob(network(RANKS), RANKS, comm=None))["predicted_s"]
    two = replay(ChakraTrace(tmp_path, overlap=True), MPIJob(network(RANKS), 2 * RANKS, ranks_per_node=2, comm=None))
    assert 0.0 < two["predicted_s"] < one + 50e-6     # overlap costs at most signals and the start-up split


def test_dp_step_with_overlap_predicts_as_the_two_stream_model(tmp_path):
    layers, forward_s, backward_s, grad_B = 3, 1e-3, 2e-3, 4 << 20
    cw.dp_step(tmp_path / "dp", RANKS, layers, forward_s, backward_s, grad_B)

    def model(mpi):
        """Even ranks compute and signal each gradient; odd ranks all-reduce it and signal back."""
        world, partner = mpi.COMM_WORLD, mpi.rank ^ 1
        communicates = mpi.rank % 2 == 1
        grads = world.split(0 if communicates else UNDEFINED, mpi.rank // 2)
        for layer in range(layers):
            if communicates:
                world.recv(partner, layer)
                grads.allreduce(None, SUM, grad_B)
                world.send(None, partner, layers + layer, 0)
            else:
                mpi.sleep(backward_s + (layers * forward_s if layer == 0 else 0.0))
                world.send(None, partner, layer, 0)
        if not communicates:
            for layer in range(layers):
                world.recv(partner, layers + layer)

    def job():
        return MPIJob(network(RANKS), 2 * RANKS, ranks_per_node=2, comm=None)

    overlapped = replay(ChakraTrace(tmp_path / "dp", overlap=True), job())["predicted_s"]
    assert overlapped == job().run(model).predicted_s
    blocking = replay(ChakraTrace(tmp_path / "dp"), MPIJob(network(RANKS), RANKS, comm=None))["predicted_s"]
    compute_s = layers * (forward_s + backward_s)
    allreduce_s = (blocking - compute_s) / layers
    assert allreduce_s > backward_s         # so the all-reduces queue: the first starts after one backward pass
    # plus the start-up split of the communication ranks' communicator and two 1 us signals: a few us
    assert overlapped == pytest.approx(layers * forward_s + backward_s + layers * allreduce_s, abs=10e-6)


def one_line_error(path, match):
    with pytest.raises(TraceError, match=match) as info:
        ChakraTrace(path)
    assert "\n" not in str(info.value)


def test_not_a_chakra_trace(tmp_path):
    (tmp_path / "notes.0.et").write_text("these are notes, not a trace\n")
    assert is_chakra(tmp_path)
    one_line_error(tmp_path, "not a Chakra execution trace")
    (tmp_path / "notes.0.et").write_bytes(b"")
    one_line_error(tmp_path / "notes.0.et", "empty")


@pytest.mark.parametrize("command", [["trace-info"], ["replay", "--system", "stampede", "--network", "analytic"]])
def test_cli_refuses_bad_input_in_one_line(tmp_path, capsys, command):
    cw.write_set(tmp_path / "t", [[cw.compute(1, "a", 1e-6, [2]), cw.compute(2, "b", 1e-6, [1])]])
    code = main([command[0], str(tmp_path), *command[1:]])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("ppt: error:"), err
    assert "nodes 1 -> 2 -> 1 form a dependency cycle" in err


def test_missing_rank_file(tmp_path):
    cw.write_set(tmp_path / "t", [[cw.compute(1, "c", 1e-6)]] * 3)
    (tmp_path / "t.1.et").unlink()
    one_line_error(tmp_path / "t", "lacks rank 1's file")


@pytest.mark.parametrize("comm_type", ["REDUCE", "GATHER"])
def test_unknown_collective(tmp_path, comm_type):
    cw.write_set(tmp_path / "t", [[cw.collective(1, "odd", comm_type, 8)]] * 2)
    one_line_error(tmp_path, f"node 1 \\(odd\\) is a collective of type '{comm_type}'")


def test_dependency_cycle_names_its_nodes(tmp_path):
    nodes = [cw.compute(1, "a", 1e-6), cw.compute(2, "b", 1e-6, [4]), cw.compute(3, "c", 1e-6, [2]),
             cw.compute(4, "d", 1e-6, [3])]
    cw.write_set(tmp_path / "t", [nodes])
    one_line_error(tmp_path, "nodes 2 -> 4 -> 3 -> 2 form a dependency cycle")


def test_dependency_on_an_absent_node(tmp_path):
    cw.write_set(tmp_path / "t", [[cw.compute(1, "a", 1e-6, [9])]])
    one_line_error(tmp_path, "node 1 \\(a\\) depends on node 9, which the file lacks")


def test_undeclared_process_group(tmp_path):
    cw.write_set(tmp_path / "t", [[cw.collective(1, "ar", "ALL_REDUCE", 8, (), "tp")]] * 2)
    one_line_error(tmp_path, "process group 'tp', which no process_group:init")



# -- the committed traces ------------------------------------------------------------------------
TRACES = Path(__file__).with_name("chakra_traces")
EXPECTED = json.loads((TRACES / "expected.json").read_text())


def outcome(trace) -> dict:
    """What :data:`EXPECTED` keeps of a trace read: sizes, calls, span and a digest of every op stream."""
    streams = [[{"rows": c.rows(), "aux": c.aux_list(), "calls": list(c.calls)} for c in trace.stream(rank)]
               for rank in range(trace.num_ranks)]
    return {"num_ranks": trace.num_ranks, "chakra_ranks": trace.chakra_ranks, "span": list(trace.span()),
            "calls": dict(trace.calls()),
            "sha256": hashlib.sha256(json.dumps(streams, separators=(",", ":")).encode()).hexdigest()}


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_committed_traces_read_as_the_protobuf_package_read_them(case):
    name, form = case.split("/")
    assert outcome(ChakraTrace(TRACES / name, overlap=form == "overlap")) == EXPECTED[case]


def test_the_writer_writes_byte_for_byte_what_the_protobuf_package_wrote(tmp_path):
    cw.write_set(tmp_path / "small", [small_nodes(r) for r in range(RANKS)])
    cw.dp_step(tmp_path / "dp", 2, 3, 1e-3, 2e-3, 1 << 18, 5e-4)
    written = sorted(tmp_path.iterdir())
    assert [p.name for p in written] == sorted(p.name for p in TRACES.glob("[sd]*.et"))
    for path in written:
        assert path.read_bytes() == (TRACES / path.name).read_bytes(), path.name


def test_the_committed_nodes_hold_what_the_reader_must_skip():
    """Rank 3's file carries unknown fields (a group among them) and rank 1's, of the same nodes, does not."""
    nodes = [{n.id: n for n in read_file(TRACES / f"nodes.{rank}.et")} for rank in range(4)]
    assert len(nodes[3][2].attr) > 20 and nodes[3][2].attributes()["is_cpu_op"] is False
    raw = [(TRACES / f"nodes.{rank}.et").read_bytes() for rank in range(4)]
    assert b"abc" in raw[3]
    assert b"abc" not in raw[1] and [n.name for n in nodes[3].values()] == [n.name for n in nodes[1].values()]


@pytest.mark.parametrize("name", ["nodes.3.et", "small.1.et"])
def test_every_truncation_is_one_line_naming_the_file_or_a_shorter_trace(tmp_path, name):
    data = (TRACES / name).read_bytes()
    whole = len(read_file(TRACES / name))
    ends, pos = set(), 0                   # the message boundaries
    while pos < len(data):
        size = shift = 0
        while True:
            byte = data[pos]
            pos, size, shift = pos + 1, size | (byte & 0x7F) << shift, shift + 7
            if not byte & 0x80:
                break
        pos += size
        ends.add(pos)
    path = tmp_path / "cut.0.et"
    for cut in range(1, len(data)):
        path.write_bytes(data[:cut])
        if cut in ends:
            assert len(read_file(path)) == sorted(ends).index(cut) < whole
        else:
            with pytest.raises(TraceError, match="truncated") as info:
                read_file(path)
            assert str(info.value).startswith(str(path)) and "\n" not in str(info.value)


def test_corrupted_bytes_read_or_fail_in_one_line(tmp_path):
    rng = random.Random(8)
    data = (TRACES / "nodes.0.et").read_bytes()
    path, failed = tmp_path / "bad.0.et", 0
    for _ in range(400):
        bad = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            bad[rng.randrange(len(bad))] = rng.randrange(256)
        path.write_bytes(bytes(bad))
        try:
            read_file(path)
        except TraceError as exc:
            failed += 1
            assert str(exc).startswith(str(path)) and "\n" not in str(exc)
    assert 0 < failed < 400


def test_a_truncated_file_is_one_line_at_the_command_line(tmp_path, capsys):
    data = (TRACES / "small.0.et").read_bytes()
    (tmp_path / "t.0.et").write_bytes(data[:len(data) - 3])
    assert main(["trace-info", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "t.0.et: not a Chakra execution trace, or truncated" in err, err


# -- traces converted from PyTorch, and groups from a file ---------------------------------------
def pytorch_style_nodes(rank, host_only=False):
    """The dp-like step as Chakra's PyTorch converter lays it out: host operators (is_cpu_op) holding
    their callers as control dependencies, one of them dropped by the converter (node 99, absent) and
    one caller waiting for its callee (a cycle through a control dependency); the device kernels they
    launch; the all-reduce as the host's ``c10d::allreduce_`` and NCCL's kernel, neither with a
    comm_type (``host_only``: the host's call alone, as a CPU backend's trace holds).  The cycles a
    dropped control dependency lay on: step -> add -> ... -> each callee -> step."""
    def host(node_id, name, kind, deps=(), parent=None, **attrs):
        node = cw._node(node_id, name, kind, deps, is_cpu_op=True, **attrs)
        node.ctrl_deps = [] if parent is None else [parent]
        node.duration_micros = 7            # host time: not on the rank's device timeline
        return node

    def kernel(node_id, name, seconds, deps, **attrs):
        node = cw._node(node_id, name, "COMP_NODE", deps, is_cpu_op=False, **attrs)
        node.duration_micros = round(seconds / 1e-6)
        return node

    step = host(1, "ProfilerStep#1", "COMP_NODE", parent=99)
    step.data_deps = [6]                    # the step ends after its last callee: a cycle with the control deps
    nodes = [step,
             host(2, "aten::mm", "COMP_NODE", parent=1),
             kernel(3, "sm80_xmma_gemm", COMPUTE_S[0], [2]),
             host(4, "c10d::allreduce_", "COMM_COLL_NODE", [3], parent=1, comm_size=AR_B)]
    if host_only:
        nodes += [host(6, "aten::add_", "COMP_NODE", [4], parent=1)]
    else:
        nodes += [kernel(5, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0.0, [4], comm_size=AR_B),
                  host(6, "aten::add_", "COMP_NODE", [5], parent=1)]
        nodes[-2].type = cw.NODE_TYPES.index("COMM_COLL_NODE")
    nodes.append(kernel(7, "vectorized_elementwise_kernel", COMPUTE_S[1], [6]))
    return nodes


def pytorch_model(mpi):
    mpi.sleep(COMPUTE_S[0])
    mpi.COMM_WORLD.allreduce(None, SUM, AR_B)
    mpi.sleep(COMPUTE_S[1])


@pytest.mark.parametrize("host_only", [False, True])
def test_pytorch_converted_trace_replays_as_its_device_program(tmp_path, caplog, host_only):
    cw.write_set(tmp_path / "pt", [pytorch_style_nodes(r, host_only) for r in range(RANKS)])
    with caplog.at_level("WARNING", logger="ppt"):
        trace = open_trace(tmp_path)
    assert trace.calls() == Counter(TRACE_START=RANKS, ALL_REDUCE=RANKS, TRACE_END=RANKS)
    warnings = [r.getMessage() for r in caplog.records]
    # per rank: the step's caller (absent); the callers of mm, allreduce and add, each on the cycle the step's
    # wait for add closes (step -> add -> ... -> callee -> step)
    assert len(warnings) == 1 and (f"{4 * RANKS} control dependencies dropped ({RANKS} naming nodes the files "
                                   f"lack, {3 * RANKS} on dependency cycles)") in warnings[0]
    assert replay(trace, job())["predicted_s"] == job().run(pytorch_model).predicted_s


def test_collective_typed_from_its_name_or_refused(tmp_path):
    assert [collective_type_of_name(n) for n in ("c10d::_reduce_scatter_base_", "nccl:all_gather",
                                                 "ncclKernel_Broadcast_RING_LL_Sum_int8_t", "c10d::barrier",
                                                 "ncclDevKernel_SendRecv", "aten::mm")] == \
        ["REDUCE_SCATTER", "ALL_GATHER", "BROADCAST", "BARRIER", "ALL_TO_ALL", None]
    node = cw._node(1, "mystery_kernel", "COMM_COLL_NODE", comm_size=8)
    cw.write_set(tmp_path / "t", [[node]] * 2)
    one_line_error(tmp_path, "node 1 \\(mystery_kernel\\) is a collective without a comm_type attribute")


def test_a_data_cycle_is_still_an_error_when_control_deps_join_it(tmp_path):
    a, b = cw.compute(1, "a", 1e-6, [2]), cw.compute(2, "b", 1e-6, [1])
    a.ctrl_deps = [2]
    cw.write_set(tmp_path / "t", [[a, b]])
    one_line_error(tmp_path, "nodes 1 -> 2 -> 1 form a dependency cycle")


def undeclared_small(tmp_path):
    """The small set without its process_group:init node, for a group file to declare its groups."""
    cw.write_set(tmp_path / "small", [small_nodes(r)[1:] for r in range(RANKS)])
    return tmp_path


@pytest.mark.parametrize("form", ["list", "object"])
def test_comm_groups_file_declares_the_groups_a_trace_names(tmp_path, small, form):
    groups = {"0": list(range(RANKS)), "1": SUBGROUP}
    path = tmp_path / "groups.json"
    path.write_text(json.dumps(groups if form == "list" else {k: {"ranks": v} for k, v in groups.items()}))
    bare = undeclared_small(tmp_path / "bare")
    one_line_error(bare, "process group '0', which no process_group:init .* --comm-groups FILE.json")
    trace = open_trace(bare, comm_groups=path)
    declared = open_trace(small)
    for rank in range(RANKS):
        assert [c.rows() for c in trace.stream(rank)] == [c.rows() for c in declared.stream(rank)]


@pytest.mark.parametrize("text, match", [
    ("[1, 2]", "give a JSON object of group id -> member ranks"),
    ('{"1": [3, 1, 3]}', "group '1' lists a rank twice"),
    ('{"1": {"members": [0]}}', "group '1' must list its member ranks"),
    ("{", "not JSON"),
    ('{"1": [3, 0]}', "with ranks \\[3, 1\\], .*groups.json with \\[3, 0\\]"),
])
def test_bad_comm_groups_file_is_one_line(tmp_path, small, text, match):
    path = tmp_path / "groups.json"
    path.write_text(text)
    with pytest.raises(TraceError, match=match) as info:
        open_trace(small, comm_groups=path)
    assert "\n" not in str(info.value)


def test_reader_options_at_the_command_line(tmp_path, capsys):
    bare = undeclared_small(tmp_path / "bare")
    groups = tmp_path / "groups.json"
    groups.write_text(json.dumps({"0": list(range(RANKS)), "1": SUBGROUP}))
    assert main(["trace-info", str(bare), "--comm-groups", str(groups), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["calls"]["ALL_GATHER"] == 2
    assert main(["trace-info", str(bare), "--comm-groups", str(groups), "--chakra-overlap", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ranks"] == 2 * RANKS
    code = main(["trace-info", "sample:halo3d_n8", "--comm-groups", str(groups)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--comm-groups applies to chakra traces" in err, err

"""NCCL-style collectives (ppt.mpi.collectives.nccl) and the dgx-a100 preset they run on.

Results equal MPICH's algorithms'; what each algorithm sends matches hand-counted messages and bytes;
on a contention-free network the pipelined chains take their closed-form time; the trees are built
over nodes, with a chain through each node's ranks; on the preset, large all-reduces reach the bus
bandwidth of the bottleneck the preset's cited numbers give.
"""
import math

import numpy as np
import pytest

from mpi_helpers import as_recorded

from ppt.errors import ConfigError
from ppt.hardware.systems import load_system
from ppt.interconnects.networks.analytic import AnalyticNetwork
from ppt.interconnects.networks.nodememory import NodeMemory
from ppt.machine import Machine
from ppt.mpi import MPIJob, SUM, Op
from ppt.mpi.collectives.calls import ALGORITHMS
from ppt.mpi.errors import MPIError
from ppt.mpi.collectives.nccl import _dtree, _node_trees, _tree_chunk_B
from ppt.mpi.settings import MPISettings

LATENCY_S, BANDWIDTH_BPS = 1e-6, 1e9
SMALL = MPISettings(nccl_channels=3, nccl_chunk_B=40)      # several channels and chunks even for small buffers


def run(ranks, program, settings=MPISettings(), per_node=1, mapping="linear"):
    net = AnalyticNetwork(-(-ranks // per_node), latency_s=LATENCY_S, bandwidth_Bps=BANDWIDTH_BPS, hops=lambda a, b: 1)
    return MPIJob(net, ranks, per_node, mapping, settings=settings).run(program)


def run_recorded(ranks, program, settings, per_node=1, **job):
    """``program``'s result, which must be the one recorded to the last bit (``mpi_helpers.as_recorded``)."""
    net = AnalyticNetwork(-(-ranks // per_node), latency_s=LATENCY_S, bandwidth_Bps=BANDWIDTH_BPS)
    return as_recorded(MPIJob(net, ranks, per_node, settings=settings, **job).run(program))


def contribution(rank, length=37):
    return np.arange(length, dtype=np.int64) * (rank + 1) + rank


CALLS = {
    "allreduce": lambda comm, alg: comm.allreduce(contribution(comm.rank), op=SUM, algorithm=alg),
    "allgather": lambda comm, alg: comm.allgather(contribution(comm.rank, 3 + comm.rank), algorithm=alg),
    "reduce_scatter": lambda comm, alg: comm.reduce_scatter([contribution(comm.rank + b, 5 + b)
                                                             for b in range(comm.size)], op=SUM, algorithm=alg),
    "alltoall": lambda comm, alg: comm.alltoall([contribution(comm.rank * b, 2 + b) for b in range(comm.size)],
                                                algorithm=alg),
}


@pytest.mark.parametrize("settings", [MPISettings(), SMALL], ids=["defaults", "3 channels, 40 B chunks"])
@pytest.mark.parametrize("ranks,per_node", [(1, 1), (3, 1), (8, 1), (12, 1), (8, 4), (12, 5)])
@pytest.mark.parametrize("kind,name,mpi_name", [("allreduce", "nccl_ring", "ring"),
                                                ("allreduce", "nccl_tree", "recursive_doubling"),
                                                ("allgather", "nccl_ring", "ring"),
                                                ("reduce_scatter", "nccl_ring", "ring"),
                                                ("alltoall", "nccl_p2p", "pairwise")])
def test_results_equal_the_mpi_algorithms(kind, name, mpi_name, ranks, per_node, settings):
    def program(algorithm):
        return lambda mpi: CALLS[kind](mpi.COMM_WORLD, algorithm)
    ours = run(ranks, program(name), settings, per_node).returns
    theirs = run(ranks, program(mpi_name), settings, per_node).returns
    for mine, reference in zip(ours, theirs):
        if isinstance(reference, list):
            assert len(mine) == len(reference) and all(np.array_equal(a, b) for a, b in zip(mine, reference))
        else:
            assert np.array_equal(mine, reference)


@pytest.mark.parametrize("mapping", ["linear", "round-robin"])
def test_a_split_communicator_reduces_over_its_own_nodes(mapping):
    """Every other rank of 12 on nodes of 4 (or dealt round-robin over 3 nodes): the tree groups the
    communicator's members by their nodes, whatever their world ranks."""
    def program(mpi):
        sub = mpi.COMM_WORLD.Split(mpi.COMM_WORLD.rank % 2, 0)
        return [sub.allreduce(contribution(sub.rank), op=SUM, algorithm=name) for name in ("nccl_tree", "ring")]
    for tree, ring in run(12, program, SMALL, 4, mapping).returns:
        assert np.array_equal(tree, ring)


def test_a_scalar_reduces_whole():
    result = run(5, lambda mpi: mpi.COMM_WORLD.allreduce(mpi.COMM_WORLD.rank + 1, algorithm="nccl_tree"), SMALL)
    assert result.returns == [15] * 5


# -- what is sent: hand-counted for 2 channels of at most 100-byte chunks ---------------------------------
TWO_CHANNELS = MPISettings(nccl_channels=2, nccl_chunk_B=100)


@pytest.mark.parametrize("kind,name,ranks,sent", [
    # 4 blocks of 250 B, 125 B per channel: 2 chunks, 4 slices, 2(P-1) = 6 steps of 4 messages each
    ("allreduce", "nccl_ring", 4, (4 * 6 * 4, 2 * 3 * 1000)),
    # 4 parts (2 trees x 2 channels) of 250 B: 3 chunks each, every chunk up and down over P-1 = 4 edges
    ("allreduce", "nccl_tree", 5, (2 * 4 * 12, 2 * 4 * 1000)),
    # every rank's 1000 B: 2 channels of 5 chunks, each chunk P-1 = 3 hops, from each of 4 ranks
    ("allgather", "nccl_ring", 4, (4 * 3 * 10, 4 * 3 * 1000)),
    # blocks of 1000 B: 2 channels of 5 chunks, P-1 = 3 steps of 4 messages each
    ("reduce_scatter", "nccl_ring", 4, (10 * 3 * 4, 3 * 4 * 1000)),
    # one message per peer
    ("alltoall", "nccl_p2p", 4, (4 * 3, 4 * 3 * 1000)),
])
def test_messages_and_bytes_follow_the_algorithm(kind, name, ranks, sent):
    result = run(ranks, lambda mpi: getattr(mpi.COMM_WORLD, kind)(None, nbytes=1000, algorithm=name), TWO_CHANNELS)
    assert (sum(r["messages_sent"] for r in result.per_rank), sum(r["bytes_sent"] for r in result.per_rank)) == sent
    if name != "nccl_p2p":                                 # the cost formula, for these settings
        assert ALGORITHMS[kind][name].cost(ranks, 1000, 2, 100) == sent


def test_the_tree_crosses_between_nodes_once_per_node_and_tree():
    """8 ranks on 2 nodes of 4, 2000 B in 2 channels of chunks of at most 100 B: 4 parts of 500 B, 5 chunks
    each.  Every chunk goes up and down P-1 = 7 edges; of a tree's 7 edges one joins the two nodes, so
    2 x 5 chunks x 2 parts per tree cross between nodes each way and the rest are copies within a node."""
    result = run(8, lambda mpi: mpi.COMM_WORLD.allreduce(None, nbytes=2000, algorithm="nccl_tree"), TWO_CHANNELS, 4)
    assert sum(r["messages_sent"] for r in result.per_rank) == 2 * 7 * 20
    assert result.network["messages"] == 2 * 1 * 20                  # up and down the one inter-node edge
    assert result.network["bytes"] == 2 * 2000


@pytest.mark.parametrize("nbytes,depth,chunk_B", [
    (1 << 30, 8, 512 << 10),       # 1024 chunks a part: enough for any depth here
    (64 << 20, 8, 512 << 10),      # 64 chunks a part, 8 x depth: kept
    (32 << 20, 8, 256 << 10),      # 32 chunks, fewer than 64: halved once, 64 chunks
    (1 << 20, 8, 64 << 10),        # to 128 KiB (4 chunks), then to 64 KiB (8 chunks, not below depth)
    (1 << 20, 10, 32 << 10),       # and to 32 KiB when 8 chunks are fewer than the depth
    (4096, 3, 32 << 10),           # small buffers: 32 KiB
])
def test_the_tree_chunk_shrinks_to_fill_its_pipeline(nbytes, depth, chunk_B):
    assert _tree_chunk_B(nbytes, 2, 512 << 10, depth) == chunk_B


def test_the_tree_chunk_follows_the_depth_of_nodes_and_chains():
    """8 ranks on 2 nodes of 4: depth 4 - 1 + log2(2) = 4; 4 MiB in 2 parts of 2 MiB cut into 512 KiB
    chunks are 4 a part, fewer than 8 x 4: halved to 128 KiB (16 a part, not fewer than 4 x 4).
    32 chunks up and down 7 edges; the cost formula counts the same for 4 ranks a node."""
    result = run(8, lambda mpi: mpi.COMM_WORLD.allreduce(None, nbytes=4 << 20, algorithm="nccl_tree"), per_node=4)
    assert sum(r["messages_sent"] for r in result.per_rank) == 2 * 7 * 32
    assert ALGORITHMS["allreduce"]["nccl_tree"].cost(8, 4 << 20, 1, 512 << 10, 4) == (2 * 7 * 32, 2 * 7 * (4 << 20))


# -- closed forms on a contention-free network -------------------------------------------------------------
def test_pipelined_ring_takes_2_p_minus_1_hops_of_one_chunk():
    """4 ranks, 4000 B, chunks of 250 B: a chunk's chain is 2(P-1) = 6 hops, each latency + 250 B / B,
    and the chains run side by side; the unpipelined MPI ring sends 1000-byte blocks."""
    def program(algorithm):
        return lambda mpi: mpi.COMM_WORLD.allreduce(None, nbytes=4000, algorithm=algorithm)
    pipelined = run(4, program("nccl_ring"), MPISettings(nccl_chunk_B=250)).predicted_s
    assert pipelined == pytest.approx(6 * (LATENCY_S + 250 / BANDWIDTH_BPS))
    assert run(4, program("ring")).predicted_s == pytest.approx(6 * (LATENCY_S + 1000 / BANDWIDTH_BPS))


def test_double_tree_goes_up_and_down_its_depth():
    """8 ranks, one a node: both trees are 3 edges deep (0-4-2-1 and its mirror), so a 500-byte chunk
    (2000 B over 2 trees, 2 chunks each) climbs 3 hops and comes down 3."""
    result = run(8, lambda mpi: mpi.COMM_WORLD.allreduce(None, nbytes=2000, algorithm="nccl_tree"),
                 MPISettings(nccl_chunk_B=500))
    assert result.predicted_s == pytest.approx(6 * (LATENCY_S + 500 / BANDWIDTH_BPS))


def test_two_nodes_of_four_go_up_their_chains_and_across_once():
    """2 nodes x 4 ranks, copies within a node taking only their latency (1e-7 s): each tree climbs
    its leaf node's chain (3 copies), crosses to the root node's head (one network hop of a 500-byte
    chunk) and comes down the same way, 2 (3 copies + 1 hop); the other node's chain, 3 copies up
    and 3 down, is no longer.  The flat tree over the 8 ranks that NCCL does not use
    (0-4-2-1) crosses between nodes twice each way."""
    copy_s = 1e-7
    net = AnalyticNetwork(2, latency_s=LATENCY_S, bandwidth_Bps=BANDWIDTH_BPS, hops=lambda a, b: 1)
    net.node_memory = NodeMemory(math.inf, copy_s)
    job = MPIJob(net, 8, 4, settings=MPISettings(nccl_chunk_B=500))
    result = job.run(lambda mpi: mpi.COMM_WORLD.allreduce(None, nbytes=2000, algorithm="nccl_tree"))
    assert result.predicted_s == pytest.approx(2 * (3 * copy_s + LATENCY_S + 500 / BANDWIDTH_BPS))


@pytest.mark.parametrize("ranks", range(1, 41))
def test_the_two_trees_span_the_ranks_and_share_no_inner_rank(ranks):
    inner = []
    for tree in (0, 1):
        links = {rank: _dtree(ranks, rank, tree) for rank in range(ranks)}
        roots = [rank for rank, (parent, _) in links.items() if parent < 0]
        assert len(roots) == 1
        for rank, (parent, children) in links.items():
            assert len(children) <= 2 and all(links[child][0] == rank for child in children)
            if parent >= 0:
                assert rank in links[parent][1]
        reached, todo = set(), roots[:]
        while todo:
            rank = todo.pop()
            reached.add(rank)
            todo.extend(links[rank][1])
        assert reached == set(range(ranks))
        inner.append({rank for rank, (_, children) in links.items() if children})
    if ranks % 2 == 0:
        assert not inner[0] & inner[1]


@pytest.mark.parametrize("sizes", [[8, 8], [8, 8, 8, 8], [3, 1, 4, 1, 5], [1] * 6, [2, 7, 1]])
@pytest.mark.parametrize("channel", [0, 1, 5])
def test_node_trees_are_chains_joined_by_a_tree_over_nodes(sizes, channel):
    """Each tree spans every rank with at most two children a rank; within a node its ranks hang
    in one chain, from the channel's head down; exactly nodes - 1 edges join nodes, each from a
    node's head; the two trees' roots are the heads of node 0 and of the other tree's root node."""
    nodes, first = [], 0
    for size in sizes:
        nodes.append(list(range(first, first + size)))
        first += size
    node_of = {rank: n for n, ranks in enumerate(nodes) for rank in ranks}
    heads = [ranks[channel % len(ranks)] for ranks in nodes]
    roots = []
    for parent, children in _node_trees(nodes, channel):
        assert [rank for rank in range(first) if parent[rank] < 0] == [parent.index(-1)]
        roots.append(node_of[parent.index(-1)])
        crossing = [(rank, parent[rank]) for rank in range(first)
                    if parent[rank] >= 0 and node_of[rank] != node_of[parent[rank]]]
        assert len(crossing) == len(nodes) - 1 and all(rank in heads for rank, _ in crossing)
        for rank in range(first):
            assert len(children[rank]) <= 2 and all(parent[child] == rank for child in children[rank])
            if parent[rank] >= 0:
                assert rank in children[parent[rank]]
            inside = [child for child in children[rank] if node_of[child] == node_of[rank]]
            assert len(inside) <= 1
        for ranks, head in zip(nodes, heads):                  # one chain a node, from the head
            chain = [head]
            while inside := [child for child in children[chain[-1]] if node_of[child] == node_of[head]]:
                chain.append(inside[0])
            assert sorted(chain) == ranks
        reached, todo = set(), [parent.index(-1)]
        while todo:
            rank = todo.pop()
            reached.add(rank)
            todo.extend(children[rank])
        assert reached == set(range(first))
    assert roots == [0, [_dtree(len(nodes), n, 1)[0] for n in range(len(nodes))].index(-1)]


# -- settings and bad input ------------------------------------------------------------------------------------
def test_settings_come_from_the_preset_and_bad_ones_are_one_line_errors():
    assert MPISettings.from_preset({"mpi": {"nccl_channels": 4, "nccl_chunk_B": 65536}}) == \
        MPISettings(nccl_channels=4, nccl_chunk_B=65536)
    for section in ({"nccl_channels": 0}, {"nccl_chunk_B": -1}, {"nccl_channels": 1.5}):
        with pytest.raises(ConfigError) as err:
            MPISettings.from_preset({"mpi": section})
        assert "\n" not in str(err.value) and f"mpi.{next(iter(section))}" in str(err.value)


def test_a_non_commutative_op_is_refused():
    concat = Op.create(lambda a, b: a + b, commute=False)
    with pytest.raises(MPIError, match="needs a commutative op"):
        run(3, lambda mpi: mpi.COMM_WORLD.allreduce("x", op=concat, algorithm="nccl_ring"))


@pytest.mark.parametrize("ranks,per_node", [(2, 1), (3, 1), (6, 2), (7, 3)])
@pytest.mark.parametrize("eager_B,send_overhead_s,recv_overhead_s", [(4096, 0.0, 0.0), (64, 1e-7, 2e-7)])
def test_an_allgatherv_of_unequal_blocks_goes_round_the_ring_as_recorded(ranks, per_node, eager_B,
                                                                             send_overhead_s, recv_overhead_s):
    """Blocks of 0 to several chunks, so each rank's pieces are as many as its own block asks and no
    rank knows how many the others send: every rank ends with every block, each piece crosses P-1
    links, and both MPI engines make the same events."""
    sizes = [(40 * 3 + 17) * (r % 3) for r in range(ranks)]

    def program(mpi):
        comm = mpi.COMM_WORLD
        block = contribution(comm.rank, sizes[comm.rank] // 8)
        return comm.allgatherv(block, nbytes=sizes[comm.rank], algorithm="nccl_ring")
    settings = MPISettings(eager_B, send_overhead_s, recv_overhead_s, nccl_channels=3, nccl_chunk_B=40)
    result = run_recorded(ranks, program, settings, per_node)
    for gathered in result.returns:
        assert all(np.array_equal(got, contribution(r, sizes[r] // 8)) for r, got in enumerate(gathered))
    pieces = [ALGORITHMS["allgather"]["nccl_ring"].cost(2, nbytes, 3, 40)[0] // 2 for nbytes in sizes]
    assert sum(r["messages_sent"] for r in result.per_rank) == (ranks - 1) * sum(pieces)
    assert sum(r["bytes_sent"] for r in result.per_rank) == (ranks - 1) * sum(sizes)


@pytest.mark.parametrize("ranks,per_node", [(2, 1), (5, 1), (8, 4), (13, 3)])
@pytest.mark.parametrize("nbytes,channels,chunk_B", [(0, 1, 40), (296, 3, 40), (4000, 1, 100)])
@pytest.mark.parametrize("eager_B,send_overhead_s,recv_overhead_s", [(4096, 0.0, 0.0), (64, 1e-7, 2e-7)])
def test_the_tree_all_reduce_runs_as_recorded(ranks, per_node, nbytes, channels, chunk_B, eager_B,
                                                        send_overhead_s, recv_overhead_s):
    """Chunks come up from children and down from the parent in whatever order they arrive, a stream
    holding back once WINDOW chunks are on their way (4000 B in 100-byte chunks: 20 a stream): both
    MPI engines make the same events at the same times, with data and without, and the job's tree
    also agrees a split's communicator; every rank ends with the sum."""
    def program(mpi):
        comm = mpi.COMM_WORLD
        sub = comm.Split(comm.rank % 2, comm.rank)
        length = max(1, nbytes // 8)
        return (comm.allreduce(contribution(comm.rank, length), op=SUM, nbytes=nbytes),
                comm.allreduce(None, nbytes=nbytes), sub.allreduce(None, nbytes=nbytes))
    settings = MPISettings(eager_B, send_overhead_s, recv_overhead_s, nccl_channels=channels, nccl_chunk_B=chunk_B)
    result = run_recorded(ranks, program, settings, per_node, algorithms={"allreduce": "nccl_tree"})
    total = sum(contribution(r, max(1, nbytes // 8)) for r in range(ranks))
    assert all(np.array_equal(summed, total) for summed, _, _ in result.returns)


def test_a_communicator_split_agrees_by_the_ring_all_gather_as_recorded():
    """A job that names the ring all-gather makes its communicators with it (the members' agreement)."""
    def program(mpi):
        sub = mpi.COMM_WORLD.Split(mpi.COMM_WORLD.rank % 2, -mpi.COMM_WORLD.rank)
        return sub.rank, sub.allgather(mpi.COMM_WORLD.rank, nbytes=4)
    result = run_recorded(6, program, SMALL, algorithms={"allgather": "nccl_ring"})
    assert result.returns == [(2 - r // 2, [r % 2 + 4, r % 2 + 2, r % 2]) for r in range(6)]


def test_a_job_names_the_algorithms():
    job_algorithms = {"allreduce": "nccl_tree", "allgather": "nccl_ring", "reduce_scatter": "nccl_ring",
                      "alltoall": "nccl_p2p"}
    net = AnalyticNetwork(4, latency_s=LATENCY_S, bandwidth_Bps=BANDWIDTH_BPS)
    result = MPIJob(net, 4, 1, algorithms=job_algorithms).run(
        lambda mpi: mpi.COMM_WORLD.allreduce(None, nbytes=2000))
    # the tree: 2 parts of 1000 B, 2 chunks of 512 KiB at most: one each, up and down over 3 edges
    assert sum(r["messages_sent"] for r in result.per_rank) == 2 * 3 * 2


# -- the dgx-a100 preset ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def dgx():
    return Machine(load_system("dgx-a100"))


def test_the_preset_has_one_rail_per_gpu(dgx):
    assert dgx.cores_per_node == 8 == dgx.network_settings.rails.planes
    assert dgx.num_nodes == 140
    fabric = dgx.network().topo                                # eight planes of a 40-port 2-tree (60 switches)
    assert fabric.num_routers == 8 * 60 and fabric.num_nodes == 140


def bus_bandwidth_Bps(machine, nodes: int, nbytes: int, algorithm: str = "nccl_ring") -> float:
    ranks = 8 * nodes
    job = MPIJob.on_machine(machine, ranks)
    time_s = job.run(lambda mpi: mpi.COMM_WORLD.allreduce(None, nbytes=nbytes, algorithm=algorithm)).predicted_s
    return nbytes / time_s * 2 * (ranks - 1) / ranks


def test_large_all_reduce_reaches_the_bottleneck_bandwidth(dgx):
    """One node: each GPU's share of the NVSwitch fabric, 4.8 TB/s / 2 / 8 = 300 GB/s.  Two nodes: the
    ring crosses from node to node through the 8 HDR rails, 8 x 25 GB/s less the 26-byte headers of
    4,096-byte packets.  Within 1 % at 256 MiB (pipeline fill and latencies are the rest)."""
    assert bus_bandwidth_Bps(dgx, 1, 256 << 20) == pytest.approx(300e9, rel=0.01)
    assert bus_bandwidth_Bps(dgx, 2, 256 << 20) == pytest.approx(8 * 25e9 * 4096 / 4122, rel=0.01)


def test_the_tree_is_bound_by_nvswitch_on_two_nodes_and_by_the_rails_on_four(dgx):
    """Two nodes: each node's chain carries both trees' halves up and down its 7 edges, 14 S of copies
    through NVSwitch's 2.4 TB/s, while only S leaves each node (half of it up one tree, half down the
    other): busbw = 2.4 TB/s / 14 x 2(16-1)/16, above the ring's rail-bound 198.7 GB/s.  Four nodes:
    the inner node of each tree sends and receives 2 S over its rails: busbw = 198.7 GB/s / 2 x
    2(32-1)/32, below the ring.  Within 1 % at 256 MiB and 1.5 % at 1 GiB (pipeline fill and drain)."""
    rails_Bps = 8 * 25e9 * 4096 / 4122
    assert bus_bandwidth_Bps(dgx, 2, 256 << 20, "nccl_tree") == pytest.approx(2.4e12 / 14 * 30 / 16, rel=0.01)
    assert bus_bandwidth_Bps(dgx, 4, 1 << 30, "nccl_tree") == pytest.approx(rails_Bps / 2 * 62 / 32, rel=0.015)


def test_the_node_to_node_bandwidth_follows_the_rails():
    """With four rails per node (an HGX A100 with 4 HDR NICs) the plateau halves."""
    four_rails = Machine(load_system("dgx-a100", ["network.planes=4"]))
    assert bus_bandwidth_Bps(four_rails, 2, 256 << 20) == pytest.approx(4 * 25e9 * 4096 / 4122, rel=0.01)

"""NCCL-style collectives (ppt.mpi.nccl) and the dgx-a100 preset they run on.

Results equal MPICH's algorithms'; what each algorithm sends matches hand-counted messages and bytes;
on a contention-free network the pipelined chains take their closed-form time; on the preset, large
all-reduces reach the bus bandwidth of the bottleneck the preset's cited numbers give.
"""
import numpy as np
import pytest

from ppt.errors import ConfigError
from ppt.hardware.systems import load_system
from ppt.interconnects.networks.analytic import AnalyticNetwork
from ppt.machine import Machine
from ppt.mpi import MPIJob, SUM, Op
from ppt.mpi.collectives import ALGORITHMS
from ppt.mpi.errors import MPIError
from ppt.mpi.nccl import _dtree
from ppt.mpi.settings import MPISettings

LATENCY_S, BANDWIDTH_BPS = 1e-6, 1e9
SMALL = MPISettings(nccl_channels=3, nccl_chunk_B=40)      # several channels and chunks even for small buffers


def run(ranks, program, settings=MPISettings()):
    net = AnalyticNetwork(ranks, latency_s=LATENCY_S, bandwidth_Bps=BANDWIDTH_BPS, hops=lambda a, b: 1)
    return MPIJob(net, ranks, 1, settings=settings).run(program)


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
@pytest.mark.parametrize("ranks", [1, 3, 8, 12])
@pytest.mark.parametrize("kind,name,mpi_name", [("allreduce", "nccl_ring", "ring"),
                                                ("allreduce", "nccl_tree", "recursive_doubling"),
                                                ("allgather", "nccl_ring", "ring"),
                                                ("reduce_scatter", "nccl_ring", "ring"),
                                                ("alltoall", "nccl_p2p", "pairwise")])
def test_results_equal_the_mpi_algorithms(kind, name, mpi_name, ranks, settings):
    def program(algorithm):
        return lambda mpi: CALLS[kind](mpi.COMM_WORLD, algorithm)
    ours = run(ranks, program(name), settings).returns
    theirs = run(ranks, program(mpi_name), settings).returns
    for mine, reference in zip(ours, theirs):
        if isinstance(reference, list):
            assert len(mine) == len(reference) and all(np.array_equal(a, b) for a, b in zip(mine, reference))
        else:
            assert np.array_equal(mine, reference)


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
    """8 ranks: both trees are 3 edges deep (0-4-2-1 and its mirror), so a 500-byte chunk (2000 B over
    2 trees, 2 chunks each) climbs 3 hops and comes down 3."""
    result = run(8, lambda mpi: mpi.COMM_WORLD.allreduce(None, nbytes=2000, algorithm="nccl_tree"),
                 MPISettings(nccl_chunk_B=500))
    assert result.predicted_s == pytest.approx(6 * (LATENCY_S + 500 / BANDWIDTH_BPS))


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


def bus_bandwidth_Bps(machine, nodes: int, nbytes: int) -> float:
    ranks = 8 * nodes
    job = MPIJob.on_machine(machine, ranks)
    time_s = job.run(lambda mpi: mpi.COMM_WORLD.allreduce(None, nbytes=nbytes, algorithm="nccl_ring")).predicted_s
    return nbytes / time_s * 2 * (ranks - 1) / ranks


def test_large_all_reduce_reaches_the_bottleneck_bandwidth(dgx):
    """One node: each GPU's share of the NVSwitch fabric, 4.8 TB/s / 2 / 8 = 300 GB/s.  Two nodes: the
    ring crosses from node to node through the 8 HDR rails, 8 x 25 GB/s less the 26-byte headers of
    4,096-byte packets.  Within 1 % at 256 MiB (pipeline fill and latencies are the rest)."""
    assert bus_bandwidth_Bps(dgx, 1, 256 << 20) == pytest.approx(300e9, rel=0.01)
    assert bus_bandwidth_Bps(dgx, 2, 256 << 20) == pytest.approx(8 * 25e9 * 4096 / 4122, rel=0.01)


def test_the_node_to_node_bandwidth_follows_the_rails():
    """With four rails per node (an HGX A100 with 4 HDR NICs) the plateau halves."""
    four_rails = Machine(load_system("dgx-a100", ["network.planes=4"]))
    assert bus_bandwidth_Bps(four_rails, 2, 256 << 20) == pytest.approx(4 * 25e9 * 4096 / 4122, rel=0.01)

"""Every collective algorithm's ``cost`` (messages, bytes over all ranks) is what it sends when simulated."""
import pytest

from ppt.interconnects.networks.analytic import AnalyticNetwork
from ppt.mpi import MPIJob
from ppt.mpi.collectives.calls import ALGORITHMS, cost

S = 1000


def _call(kind, name):
    def program(mpi):
        comm = mpi.COMM_WORLD
        if kind == "barrier":
            comm.barrier()
        else:       # blocks (alltoall, scatter, reduce_scatter) of S bytes each, other buffers of S
            getattr(comm, kind)(None, nbytes=S, algorithm=name)
    return program


@pytest.mark.parametrize("ranks", [5, 8])
@pytest.mark.parametrize("kind,name", [(k, n) for k, table in ALGORITHMS.items() for n in table])
def test_cost_is_what_the_algorithm_sends(kind, name, ranks):
    if (kind, name) == ("allgather", "recursive_doubling") and ranks & (ranks - 1):
        pytest.skip("power-of-two sizes only")
    net = AnalyticNetwork(ranks, latency_s=1e-6, bandwidth_Bps=1e9, per_hop_s=0.0, hops=lambda a, b: 1)
    result = MPIJob(net, ranks, 1).run(_call(kind, name))
    sent = (sum(r["messages_sent"] for r in result.per_rank), sum(r["bytes_sent"] for r in result.per_rank))
    assert ALGORITHMS[kind][name].cost(ranks, S) == sent


def test_pairwise_alltoall_sends_p_minus_1_blocks_per_rank():
    for ranks in (2, 7, 16):
        assert cost("alltoall", ranks, S) == (ranks * (ranks - 1), ranks * (ranks - 1) * S)


@pytest.mark.parametrize("choices,own_block_sent", [({}, True), ({"alltoall": "pairwise"}, False)])
def test_alltoallv_sends_its_own_block_to_itself_as_mpich_does_unless_told_otherwise(choices, own_block_sent):
    ranks = 4
    net = AnalyticNetwork(ranks, latency_s=1e-6, bandwidth_Bps=1e9, per_hop_s=0.0, hops=lambda a, b: 1)

    def sent(call):
        result = MPIJob(net, ranks, 1, algorithms=choices).run(
            lambda mpi: getattr(mpi.COMM_WORLD, call)(None, nbytes=[S] * ranks))
        return [r["messages_sent"] for r in result.per_rank]

    assert sent("alltoall") == [ranks - 1] * ranks
    assert sent("alltoallv") == [ranks if own_block_sent else ranks - 1] * ranks

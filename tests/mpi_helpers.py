"""Shared helpers of the MPI tests: run a rank program on a small analytic network."""
from ppt.interconnects.networks.analytic import AnalyticNetwork
from ppt.mpi import MPIJob
from ppt.mpi.settings import MPISettings

LATENCY_S = 1e-6
BANDWIDTH_BPS = 1e9
EAGER_B = 4096


def network(nodes: int) -> AnalyticNetwork:
    return AnalyticNetwork(nodes, latency_s=LATENCY_S, bandwidth_Bps=BANDWIDTH_BPS)


def run(num_ranks: int, main, *args, ranks_per_node: int = 1, eager_B: int = EAGER_B, send_overhead_s: float = 0.0,
        recv_overhead_s: float = 0.0, engine: str = "compiled", net=network, **job_kw):
    """Run ``main(mpi, *args)`` on ``num_ranks`` ranks (one node each by default) on ``net(nodes)`` (a fresh
    network of that many nodes) on MPI engine ``engine``; the JobResult."""
    nodes = -(-num_ranks // ranks_per_node)
    settings = MPISettings(eager_B, send_overhead_s, recv_overhead_s)
    return MPIJob(net(nodes), num_ranks, ranks_per_node=ranks_per_node, comm=None, settings=settings,
                  engine=engine, **job_kw).run(main, *args)


def compared(outcome):
    """What must be equal on both engines: the whole result, or the error's type and text."""
    if isinstance(outcome, Exception):
        return type(outcome).__name__, str(outcome)
    return repr((outcome.as_json(), outcome.returns, outcome.events))


def message_s(nbytes: int) -> float:
    """One eager message between two nodes on the test network."""
    return LATENCY_S + nbytes / BANDWIDTH_BPS

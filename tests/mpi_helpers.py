"""Shared helpers of the MPI tests: run a rank program on a small analytic network."""
import json
import subprocess
import sys

import golden
from ppt.interconnects.networks.analytic import AnalyticNetwork
from ppt.mpi import MPIJob
from ppt.mpi.settings import MPISettings

LATENCY_S = 1e-6
BANDWIDTH_BPS = 1e9
EAGER_B = 4096


def network(nodes: int) -> AnalyticNetwork:
    return AnalyticNetwork(nodes, latency_s=LATENCY_S, bandwidth_Bps=BANDWIDTH_BPS)


def run(num_ranks: int, main, *args, ranks_per_node: int = 1, eager_B: int = EAGER_B, send_overhead_s: float = 0.0,
        recv_overhead_s: float = 0.0, net=network, **job_kw):
    """Run ``main(mpi, *args)`` on ``num_ranks`` ranks (one node each by default) on ``net(nodes)`` (a fresh
    network of that many nodes); the JobResult."""
    nodes = -(-num_ranks // ranks_per_node)
    settings = MPISettings(eager_B, send_overhead_s, recv_overhead_s)
    return MPIJob(net(nodes), num_ranks, ranks_per_node=ranks_per_node, comm=None, settings=settings,
                  **job_kw).run(main, *args)


def recorded(num_ranks: int, main, *args, **kw):
    """:func:`run`, whose whole outcome (result, ranks' returns and events, or the error's type and text)
    must be the one recorded (``golden.check``); the JobResult, or the error raised."""
    try:
        outcome = run(num_ranks, main, *args, **kw)
    except Exception as exc:
        golden.check(f"{type(exc).__name__}: {exc}")
        raise
    return as_recorded(outcome)


def as_recorded(result):
    """``result`` (a JobResult), asserted to be the one recorded (``golden.check``): its JSON, the ranks'
    returns and the events."""
    golden.check(json.dumps(dict(result.as_json(), returns=repr(result.returns), events=result.events),
                            sort_keys=True, default=repr))
    return result


def message_s(nbytes: int) -> float:
    """One eager message between two nodes on the test network."""
    return LATENCY_S + nbytes / BANDWIDTH_BPS


def synthetic_trace(folder, messages: int, ranks: int = 16):
    """Write a ``ranks``-rank halo-and-allreduce op-stream trace of about ``messages`` messages
    (ppt.traces.writers.synthetic) to ``folder``; returns the folder."""
    subprocess.run([sys.executable, "-m", "ppt.traces.writers.synthetic", str(folder), "--ranks", str(ranks),
                    "--messages", str(messages)], check=True, capture_output=True, timeout=120)
    return folder

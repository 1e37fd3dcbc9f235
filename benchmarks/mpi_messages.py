"""Simulator speed of the MPI layer: MPI messages simulated per wall-clock second (analytic network).

Two workloads: one large alltoall (pairwise exchange, P*(P-1) messages) and a
loop of allreduces on 1,024 ranks (recursive doubling, P*log2(P) messages
each).  Run: ``python benchmarks/mpi_messages.py [--ranks-alltoall 512]``.
"""
from __future__ import annotations

import argparse
import time

from ppt.interconnects.networks.analytic import AnalyticNetwork
from ppt.mpi import MPIJob

RANKS_PER_NODE = 16


def alltoall(mpi, nbytes):
    mpi.COMM_WORLD.alltoall(None, nbytes=nbytes)


def allreduce_loop(mpi, iterations, nbytes):
    comm = mpi.COMM_WORLD
    for _ in range(iterations):
        comm.allreduce(None, nbytes=nbytes)


def measure(name, ranks, program, *args) -> dict:
    nodes = -(-ranks // RANKS_PER_NODE)
    net = AnalyticNetwork(nodes, latency_s=1e-6, bandwidth_Bps=10e9, per_hop_s=1e-7,
                          hops=lambda a, b: abs(a - b) % 5)
    start = time.perf_counter()
    result = MPIJob(net, ranks, RANKS_PER_NODE).run(program, *args)
    wall = time.perf_counter() - start
    messages = sum(r["messages_sent"] for r in result.per_rank)
    return {"workload": name, "ranks": ranks, "messages": messages, "events": result.events,
            "wall_s": wall, "messages_per_s": messages / wall, "predicted_s": result.predicted_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks-alltoall", type=int, default=512)
    parser.add_argument("--allreduce-iterations", type=int, default=50)
    args = parser.parse_args()
    rows = [measure("alltoall 1 KiB blocks", args.ranks_alltoall, alltoall, 1024),
            measure(f"allreduce x{args.allreduce_iterations}, 8 B", 1024, allreduce_loop,
                    args.allreduce_iterations, 8)]
    for row in rows:
        print(f"{row['workload']:>26}: {row['ranks']:5d} ranks, {row['messages']:8d} messages, "
              f"{row['events']:8d} events, {row['wall_s']:6.2f} s wall -> {row['messages_per_s']:9.0f} "
              f"messages/s (predicted {row['predicted_s']:.4g} s)")


if __name__ == "__main__":
    main()

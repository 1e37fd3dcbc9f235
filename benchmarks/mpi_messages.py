"""Simulator speed of the MPI layer: MPI messages simulated per wall-clock second (analytic network).

The alltoall and allreduce workloads of ``ppt bench mpi`` (:mod:`ppt.bench.mpi`), one run each, at
rank and iteration counts of one's choosing.  Run:
``python benchmarks/mpi_messages.py [--ranks-alltoall 512] [--allreduce-iterations 50]``.
"""
from __future__ import annotations

import argparse

from ppt.bench.mpi import ALLREDUCE_RANKS, allreduce_workload, alltoall_workload, run_once


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks-alltoall", type=int, default=512)
    parser.add_argument("--allreduce-iterations", type=int, default=50)
    args = parser.parse_args()
    n = args.allreduce_iterations
    for workload in (alltoall_workload(args.ranks_alltoall, "alltoall 1 KiB blocks"),
                     allreduce_workload(ALLREDUCE_RANKS, n, f"allreduce x{n}, 8 B")):
        row = run_once(workload)
        print(f"{workload.name:>26}: {workload.ranks:5d} ranks, {row['messages']:8d} messages, "
              f"{row['events']:8d} events, {row['wall_s']:6.2f} s wall -> {row['messages'] / row['wall_s']:9.0f} "
              f"messages/s (predicted {row['predicted_s']:.4g} s)")


if __name__ == "__main__":
    main()

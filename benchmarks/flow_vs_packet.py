"""Flow network against packet network: predicted times and wall times on the same workloads.

    python benchmarks/flow_vs_packet.py [--systems bgq-midplane,dragonfly-booksim,fattree-4-3]
        [--ranks 64] [--ranks-per-node 1]

Prints, per system and workload, the packet and flow predictions (s), flow/packet - 1,
and the wall-time ratio packet/flow.  Each run is serial and independent.
"""
from __future__ import annotations

import argparse
import sys
import time

from ppt.apps.microbench import collective_timing, pingpong
from ppt.hardware.systems import load_system
from ppt.machine import Machine

PINGPONG_SIZES = [8, 1 << 10, 1 << 16, 1 << 20, 1 << 22]
COLLECTIVE_SIZES = [1 << 10, 1 << 20]


def timed(fn):
    began = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - began




def _workloads(system, ranks, ranks_per_node):
    def machine(kind):
        return Machine(load_system(system), network_kind=kind)

    runs = {kind: timed(lambda k=kind: pingpong(machine(k), PINGPONG_SIZES, repetitions=1)) for kind in ("packet", "flow")}
    for i, size in enumerate(PINGPONG_SIZES):
        yield (system, "pingpong", 2, size, runs["packet"][0][i]["latency_s"], runs["flow"][0][i]["latency_s"],
               runs["packet"][1], runs["flow"][1])
    for collective in ("allreduce", "alltoall"):
        runs = {kind: timed(lambda k=kind: collective_timing(machine(k), collective, ranks, COLLECTIVE_SIZES,
                                                             repetitions=1, ranks_per_node=ranks_per_node))
                for kind in ("packet", "flow")}
        for i, size in enumerate(COLLECTIVE_SIZES):
            yield (system, collective, ranks, size, runs["packet"][0][i]["time_s"], runs["flow"][0][i]["time_s"],
                   runs["packet"][1], runs["flow"][1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", default="bgq-midplane,dragonfly-booksim,fattree-4-3")
    parser.add_argument("--ranks", type=int, default=64)
    parser.add_argument("--ranks-per-node", type=int, default=1)
    args = parser.parse_args(argv)
    print("| system | workload | ranks | bytes | packet (s) | flow (s) | flow/packet - 1 | wall packet (s) | "
          "wall flow (s) | wall ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for system in args.systems.split(","):
        for name, work, ranks, size, packet, flow, wall_p, wall_f in _workloads(system, args.ranks, args.ranks_per_node):
            print(f"| {name} | {work} | {ranks} | {size} | {packet:.4g} | {flow:.4g} | {flow / packet - 1:+.1%} | "
                  f"{wall_p:.3g} | {wall_f:.3g} | {wall_p / wall_f:.3g} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

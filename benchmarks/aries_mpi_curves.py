"""MPI curves on the Aries presets: Trinity ping-pong and Darter allreduce vs message size.

    python benchmarks/aries_mpi_curves.py [--ranks 64] [--plot docs/aries-mpi.png]

Ping-pong runs between node 0 and a node of another group; the allreduce
uses one rank per node.  Both go through the full MPI layer on the packet
network.
"""
from __future__ import annotations

import argparse
import time

from ppt import plotstyle
from ppt.apps.microbench import collective_timing, pingpong
from ppt.hardware.systems import load_system
from ppt.machine import Machine

SIZES = [8, 64, 512, 4096, 32768, 262144, 1 << 20, 4 << 20]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=64)
    parser.add_argument("--plot")
    args = parser.parse_args()
    trinity = Machine(load_system("trinity"))
    far = trinity.topology.num_nodes - 1
    began = time.perf_counter()
    pp = pingpong(trinity, SIZES, repetitions=1, nodes=(0, far))
    print(f"Trinity ping-pong node 0 <-> node {far} ({time.perf_counter() - began:.1f} s wall)")
    print(f"{'bytes':>9} {'latency_us':>11} {'bandwidth_GBps':>15}")
    for r in pp:
        print(f"{r['bytes']:>9} {r['latency_s'] * 1e6:11.3f} {r['bandwidth_Bps'] / 1e9:15.3f}")
    darter = Machine(load_system("darter"))
    began = time.perf_counter()
    ar = collective_timing(darter, "allreduce", args.ranks, SIZES[:-1], repetitions=1, ranks_per_node=1)
    print(f"\nDarter allreduce, {args.ranks} ranks, one per node ({time.perf_counter() - began:.1f} s wall)")
    print(f"{'bytes':>9} {'time_us':>9}")
    for r in ar:
        print(f"{r['bytes']:>9} {r['time_s'] * 1e6:9.3f}")
    if args.plot:
        with plotstyle.figure(args.plot, 3, panel_in=2.0) as (fig, axes):
            a, b, c = axes[:, 0]
            a.loglog([r["bytes"] for r in pp], [r["latency_s"] * 1e6 for r in pp])
            a.set(xlabel="message size (bytes)", ylabel="one-way time (µs)", title="Trinity ping-pong")
            b.semilogx([r["bytes"] for r in pp], [r["bandwidth_Bps"] / 1e9 for r in pp])
            b.set(xlabel="message size (bytes)", ylabel="bandwidth (GB/s)", title="Trinity ping-pong")
            c.loglog([r["bytes"] for r in ar], [r["time_s"] * 1e6 for r in ar])
            c.set(xlabel="message size per rank (bytes)", ylabel="time per call (µs)",
                  title=f"Darter allreduce, {args.ranks} ranks")


if __name__ == "__main__":
    main()

"""Replay speed: trace records replayed per wall-clock second, analytic vs packet network.

For every shared trace set (../shared/traces, or --traces DIR) this reads the
records once without simulating (the reader's own rate), then replays the set
with one rank per node, randomly placed, on the analytic model and on the
packet model of one system.  Run:
``python benchmarks/replay_speed.py [--system darter] [--sets hpccg_n4,amg_n4]``.
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from ppt.hardware.systems import load_system
from ppt.machine import Machine
from ppt.mpi import MPIJob
from ppt.traces.readers.dumpi import TraceSet
from ppt.traces.replay import replay

DEFAULT_TRACES = Path(__file__).resolve().parents[1].parent / "shared" / "traces"


def read_rate(trace) -> float:
    """Records per second of a plain read of every rank."""
    start = time.perf_counter()
    records = sum(1 for rank in range(trace.ranks) for _ in trace.records(rank))
    return records / (time.perf_counter() - start)


def replay_rate(trace, machine) -> dict:
    """The replay summary plus ``wall_s`` and ``records_per_s`` (building the network included)."""
    start = time.perf_counter()
    job = MPIJob.on_machine(machine, trace.ranks, ranks_per_node=1, mapping="random", seed=1)
    summary = replay(trace, job)
    wall = time.perf_counter() - start
    return dict(summary, wall_s=wall, records_per_s=summary["records"] / wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", default=str(DEFAULT_TRACES), help="folder holding trace-set folders")
    parser.add_argument("--sets", default=None, help="comma-separated set names (default: all)")
    parser.add_argument("--system", default="darter", help="system of the packet network (default darter)")
    args = parser.parse_args()
    os.environ.setdefault("PPT_QUIET", "1")
    folder = Path(args.traces)
    names = args.sets.split(",") if args.sets else sorted(p.name for p in folder.iterdir() if p.is_dir())
    preset = load_system(args.system)
    analytic, packet = Machine(preset, "analytic"), Machine(preset, "packet")
    print(f"{'set':18s} {'records':>8s} {'read/s':>9s} {'analytic/s':>11s} {'packet/s':>9s} "
          f"{'packets':>10s} {'packet wall s':>13s}")
    totals = {"records": 0, "analytic_s": 0.0, "packet_s": 0.0}
    for name in names:
        trace = TraceSet(folder / name)
        read = read_rate(trace)
        fast = replay_rate(trace, analytic)
        slow = replay_rate(trace, packet)
        totals["records"] += fast["records"]
        totals["analytic_s"] += fast["wall_s"]
        totals["packet_s"] += slow["wall_s"]
        print(f"{name:18s} {fast['records']:8d} {read:9.0f} {fast['records_per_s']:11.0f} "
              f"{slow['records_per_s']:9.0f} {slow['packets']:10d} {slow['wall_s']:13.2f}", flush=True)
    print(f"{'all':18s} {totals['records']:8d} {'':9s} {totals['records'] / totals['analytic_s']:11.0f} "
          f"{totals['records'] / totals['packet_s']:9.0f}   ({args.system}, 1 rank per node, random placement)")


if __name__ == "__main__":
    main()

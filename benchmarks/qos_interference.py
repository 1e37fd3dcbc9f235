"""Traffic classes against interference: a job of small allreduces beside a bandwidth-hungry traffic job.

    python benchmarks/qos_interference.py [--systems dragonfly-3k,megafly-3k] [--ranks 64]
                                          [--iterations 5] [--load 0.9] [--pattern ur]

On each system a latency-sensitive MPI job (``--ranks`` ranks, one per node,
``--iterations`` 8-byte allreduces) shares the packet network with synthetic
traffic on every other node (``--pattern`` at ``--load`` of each node's
injection bandwidth, 32 KiB messages); nodes are allocated at random, so both
jobs cross every group.  Cases: the allreduce job alone; beside the traffic in
one class (no protection); in a class of its own with share 0.1, 0.3 or 0.5
of every port; and in its own class with strict priority.  Printed per case:
the allreduce job's time and slowdown over alone, its packets' p99 latency,
and the aggressor's delivered throughput per node (GB/s).  Results are in
docs/guide/traffic-classes.md.
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from ppt import plotstyle
from ppt.hardware.systems import load_system
from ppt.jobs.joblist import read_job_list
from ppt.jobs.mix import JobMix
from ppt.machine import Machine

SCRIPT = """
def main(mpi):
    comm = mpi.COMM_WORLD
    for _ in range({iterations}):
        comm.allreduce(comm.rank, nbytes=8)
"""
#: (name, network settings over the preset's, allreduce job's class, whether the aggressor runs).
CASES = [("alone", {}, 0, False),
         ("shared, one class", {}, 0, True),
         ("own class, share 0.1", {"traffic_classes": 2, "class_shares": [0.9, 0.1]}, 1, True),
         ("own class, share 0.3", {"traffic_classes": 2, "class_shares": [0.7, 0.3]}, 1, True),
         ("own class, share 0.5", {"traffic_classes": 2, "class_shares": [0.5, 0.5]}, 1, True),
         ("own class, priority", {"traffic_classes": 2, "class_shares": [0.5, 0.5], "class_priority": [0, 1]}, 1,
          True)]


def run_case(system: str, network: dict, job_class: int, aggressor: bool, args, folder: Path) -> dict:
    preset = load_system(system)
    preset["network"].update(network)
    machine = Machine(preset, seed=1)
    jobs = [{"name": "allreduce", "kind": "script", "script": "allreduce.py", "ranks": args.ranks,
             "ranks_per_node": 1, "class": job_class}]
    if aggressor:
        jobs.append({"name": "aggressor", "kind": "traffic", "pattern": args.pattern, "load": args.load,
                     "message_B": 32768, "ranks": "rest"})
    (folder / "jobs.json").write_text(json.dumps({"jobs": jobs}))
    result = JobMix(machine, read_job_list(str(folder / "jobs.json")), "random", seed=1).run(comm=None)
    protected, *others = result["jobs"]
    classes = result["network"].get("classes")
    p99 = classes[job_class]["latency_p99_s"] if classes else None
    throughput = None
    if others:
        throughput = others[0]["bytes_delivered"] / result["span_s"] / len(others[0]["nodes"])
    return {"time_s": protected["predicted_s"], "p99_s": p99, "mean_packet_latency_s": protected["mean_packet_latency_s"],
            "aggressor_Bps_per_node": throughput}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", default="dragonfly-3k,megafly-3k")
    parser.add_argument("--ranks", type=int, default=64)
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--load", type=float, default=0.9)
    parser.add_argument("--pattern", default="ur")
    parser.add_argument("--plot", metavar="FILE.png", help="draw the slowdown and p99 latency of every case")
    args = parser.parse_args()
    table = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "allreduce.py").write_text(SCRIPT.format(iterations=args.iterations))
        for system in args.systems.split(","):
            print(f"\n{system}: {args.ranks}-rank job of {args.iterations} 8-byte allreduces beside "
                  f"{args.pattern} traffic at load {args.load} on the other nodes")
            print(f"{'case':<22} {'time_us':>9} {'slowdown':>9} {'mean_pkt_ns':>12} {'p99_ns':>8} "
                  f"{'aggr_GBps':>10} {'wall_s':>7}")
            alone = None
            for name, network, job_class, aggressor in CASES:
                began = time.perf_counter()
                r = run_case(system, network, job_class, aggressor, args, folder)
                alone = alone or r["time_s"]
                table.setdefault(system, []).append((name, r["time_s"] / alone, r["p99_s"]))
                p99 = "-" if r["p99_s"] is None else f"{r['p99_s'] * 1e9:.0f}"
                aggr = "-" if r["aggressor_Bps_per_node"] is None else f"{r['aggressor_Bps_per_node'] / 1e9:.2f}"
                print(f"{name:<22} {r['time_s'] * 1e6:9.2f} {r['time_s'] / alone:9.2f} "
                      f"{r['mean_packet_latency_s'] * 1e9:12.0f} {p99:>8} {aggr:>10} "
                      f"{time.perf_counter() - began:7.1f}", flush=True)

    if args.plot:
        plot(table, args)


def plot(table: dict, args) -> None:
    """Two panels: the allreduce job's slowdown over running alone, and its packets' p99 latency, per case
    (grouped by system)."""
    cases = [name.replace("own class, ", "own, ").replace(", one class", "")
             for name, *_ in next(iter(table.values()))][1:]          # "alone" is the reference, slowdown 1
    title = f"{args.ranks}-rank allreduce job beside {args.pattern} traffic at load {args.load}"
    with plotstyle.figure(args.plot, 2, panel_in=2.4, title=title) as (fig, axes):
        slow, late = axes[:, 0]
        plotstyle.grouped_bars(slow, cases, {system: [s for _, s, _ in rows[1:]] for system, rows in table.items()})
        plotstyle.grouped_bars(late, cases, {system: [p99 and p99 * 1e6 for _, _, p99 in rows[1:]]
                                             for system, rows in table.items()})  # one class: no class statistics
        slow.axhline(1.0, color="black", linewidth=0.8)
        slow.set_ylabel("slowdown over alone (x)")
        late.set_ylabel("p99 packet latency (µs)")
        plotstyle.legend(fig)
    print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()

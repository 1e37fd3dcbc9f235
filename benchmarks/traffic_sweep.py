"""Offered-load sweeps under synthetic traffic: accepted load and latency per routing and pattern.

    python benchmarks/traffic_sweep.py SYSTEM --patterns ur,wc --routings min,val,ugal \\
        --loads 0.1,0.2,...,1.0 [--warmup S --time S] [--jobs N] [--plot docs/SYSTEM-traffic.png] [--json out.json]

Prints one row per run and, with --plot, a PNG with accepted load and mean
latency against offered load for every (pattern, routing).  The runs are
independent: ``--jobs N`` runs N of them at a time in separate processes
(rows then print as runs finish; the JSON and the plot are in sweep order).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

from ppt.hardware.systems import load_system
from ppt.interconnects.traffic import run_traffic
from ppt.machine import Machine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("system")
    parser.add_argument("--patterns", default="ur,wc")
    parser.add_argument("--routings", default="min,val,ugal")
    parser.add_argument("--loads", default="0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0")
    parser.add_argument("--warmup", type=float, default=2e-6)
    parser.add_argument("--time", type=float, default=3e-6)
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    parser.add_argument("--jobs", type=int, default=1, help="runs at a time, each in its own process")
    parser.add_argument("--plot")
    parser.add_argument("--json")
    args = parser.parse_args()
    runs = [(args.system, args.overrides, pattern, routing, float(load), args.warmup, args.time)
            for pattern in args.patterns.split(",") for routing in args.routings.split(",")
            for load in args.loads.split(",")]
    print(f"{'pattern':>7} {'routing':>7} {'offered':>7} {'accepted':>8} {'latency_us':>10} {'hops':>5} {'wall_s':>6}")
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            futures = [pool.submit(run_point, *run) for run in runs]
            for future in as_completed(futures):
                print_row(future.result())
            rows = [future.result() for future in futures]
    else:
        rows = [print_row(run_point(*run)) for run in runs]
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)
    if args.plot:
        plot(rows, args.plot, f"{args.system}: {args.warmup * 1e6:g} us warm-up, {args.time * 1e6:g} us measured")


def run_point(system, overrides, pattern, routing, load, warmup_s, time_s) -> dict:
    """One ``ppt traffic`` run, with its wall time."""
    began = time.perf_counter()
    machine = Machine(load_system(system, overrides))
    row = run_traffic(machine, pattern, load, routing, warmup_s, time_s, comm=None)
    row["wall_s"] = time.perf_counter() - began
    return row


def print_row(r: dict) -> dict:
    print(f"{r['pattern']:>7} {r['routing']:>7} {r['offered_load']:7.2f} {r['accepted_fraction']:8.3f} "
          f"{r['mean_latency_s'] * 1e6:10.3f} {r['mean_hops']:5.2f} {r['wall_s']:6.1f}", flush=True)
    return r


def plot(rows, path, title) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (acc, lat) = plt.subplots(1, 2, figsize=(11, 4.2))
    series = sorted({(r["pattern"], r["routing"]) for r in rows})
    for pattern, routing in series:
        pts = sorted((r["offered_load"], r["accepted_fraction"], r["mean_latency_s"] * 1e6)
                     for r in rows if (r["pattern"], r["routing"]) == (pattern, routing))
        style = "-" if pattern == "ur" else "--"
        label = f"{pattern.upper()} {routing.upper()}"
        acc.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", label=label)
        lat.plot([p[0] for p in pts], [p[2] for p in pts], style, marker="o", label=label)
    acc.plot([0, 1], [0, 1], ":", color="grey", linewidth=0.8)
    acc.set(xlabel="offered load (fraction of node bandwidth)", ylabel="accepted load", title="throughput")
    lat.set(xlabel="offered load (fraction of node bandwidth)", ylabel="mean packet latency (us)",
            title="latency", yscale="log")
    acc.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot: {path}", file=sys.stderr)


if __name__ == "__main__":
    main()

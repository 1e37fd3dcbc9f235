"""Offered-load sweeps under synthetic traffic, drawn as one figure: accepted load and latency
against offered load for every (pattern, routing).

    python benchmarks/traffic_sweep.py SYSTEM --patterns ur,wc --routings min,val,ugal \\
        --loads 0.1,0.2,...,1.0 [--warmup S --time S] [--jobs N] [--out DIR] --plot docs/SYSTEM-traffic.png

Each pattern is one ``ppt sweep traffic SYSTEM --pattern P --set network.routing=... --loads ...``
(run in parallel with ``--jobs``, resumable with ``--out DIR``); this script only draws the figure.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys

from ppt.cli.main import main as ppt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("system")
    parser.add_argument("--patterns", default="ur,wc")
    parser.add_argument("--routings", default="min,val,ugal")
    parser.add_argument("--loads", default="0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0")
    parser.add_argument("--warmup", default="2e-6", help="warm-up, seconds (default 2e-6)")
    parser.add_argument("--time", default="3e-6", help="measured window, seconds (default 3e-6)")
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    parser.add_argument("--jobs", default="1", help="runs at a time, each in its own process")
    parser.add_argument("--out", help="folder keeping every point (a rerun resumes)")
    parser.add_argument("--plot", required=True)
    args = parser.parse_args()
    rows = []
    for pattern in args.patterns.split(","):
        argv = ["sweep", "traffic", args.system, "--pattern", pattern, "--set", f"network.routing={args.routings}",
                "--loads", args.loads, "--warmup", args.warmup, "--time", args.time, "--jobs", args.jobs, "--json"]
        argv += [arg for item in args.overrides for arg in ("--set", item)]
        argv += ["--out", f"{args.out}/{pattern}"] if args.out else []
        with contextlib.redirect_stdout(io.StringIO()) as out:
            code = ppt(argv)
        if code:
            sys.exit(code)
        rows += json.loads(out.getvalue())["rows"]
    plot(rows, args.plot, f"{args.system}: {float(args.warmup) * 1e6:g} us warm-up, "
                          f"{float(args.time) * 1e6:g} us measured")


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

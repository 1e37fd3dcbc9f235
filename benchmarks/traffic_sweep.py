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

from ppt import plotstyle
from ppt.cli.main import main as ppt
from ppt.sweep.plot import SATURATED


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
    plot(rows, args.plot, f"{args.system}: {float(args.warmup) * 1e6:g} µs warm-up, "
                          f"{float(args.time) * 1e6:g} µs measured")


def plot(rows, path, title) -> None:
    """Accepted load and mean latency against offered load, one line per (pattern, routing): a colour and
    marker per routing, solid for UR and dashed for WC; points a run found saturated are ringed, as in
    ``ppt sweep --plot``."""
    from matplotlib.lines import Line2D
    routings = sorted({r["routing"] for r in rows})
    with plotstyle.figure(path, 2, title=title, sharex=True) as (fig, (acc, lat)):
        acc, lat = acc[0], lat[0]
        for pattern, routing in sorted({(r["pattern"], r["routing"]) for r in rows}):
            pts = sorted((r["offered_load"], r["accepted_fraction"], r["mean_latency_s"] * 1e6,
                          bool(r.get("saturated"))) for r in rows if (r["pattern"], r["routing"]) == (pattern, routing))
            k = routings.index(routing)
            style = {"color": plotstyle.OKABE_ITO[k], "marker": plotstyle.MARKERS[k],
                     "linestyle": "-" if pattern == "ur" else "--", "mfc": None if pattern == "ur" else "white"}
            for panel, column in ((acc, 1), (lat, 2)):
                panel.plot([p[0] for p in pts], [p[column] for p in pts], label=f"{pattern.upper()} {routing.upper()}",
                           **style)
                hot = [p for p in pts if p[3]]
                panel.plot([p[0] for p in hot], [p[column] for p in hot], linestyle="none", **SATURATED)
        acc.plot([0, 1], [0, 1], ":", color="grey", linewidth=0.8, marker="",  # series that take all they
                 label="accepted = offered")                                  # are offered lie on it, as one
        acc.set(ylabel="accepted load\n(fraction of node bandwidth)", ylim=(0, 1.02))
        lat.set(xlabel="offered load (fraction of node bandwidth)", ylabel="mean packet latency (µs)",
                yscale="log", xlim=(0, 1.02))
        plotstyle.plain_log(lat.yaxis)
        handles, labels = acc.get_legend_handles_labels()
        if any(r.get("saturated") for r in rows):
            handles.append(Line2D([], [], linestyle="none", **SATURATED))
            labels.append("saturated")
        plotstyle.legend(fig, handles, labels, ncol=3)
    print(f"plot: {path}", file=sys.stderr)


if __name__ == "__main__":
    main()

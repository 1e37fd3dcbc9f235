"""Link-failure resilience of single- and dual-plane dragonfly-class networks, after McGlohon,
Ross & Carothers, "Evaluation of Link Failure Resilience in Multirail Dragonfly-Class Networks
through Simulation": an application job shares the machine with uniform-random background
traffic; the background load rises, then, at the highest load, more and more links fail.

Every point is one ``ppt run --job-list`` in its own process (``--jobs`` at a time): SNAP
(``examples/snap.py``, study 1) on ``--ranks`` nodes, one rank per node, placed at random
(seed 1), and background traffic on all the other nodes; UGAL-L routing (``--routing``), as
minimal routing leaves pairs without a legal path once many links have failed.  Printed: a table of the application's
largest time in MPI, its packets' mean latency and hops, and the background's, per topology,
plane count, load and failed share; ``--plot DIR`` draws one PNG per topology.  Several planes
spread traffic over their rails by ``--rail-policy`` (``network.rail_policy``: ``round-robin``,
or ``shortest``, the planes with the shortest legal path per pair); ``--planes 2`` runs the
dual-plane points only.

A load is a share of one rail's injection bandwidth: every plane count carries the same background
bytes, as the published study runs the same background job whatever the planes, so P planes run the
traffic job at ``load / P`` of their P rails.  ``--cache DIR`` keeps each point's row as JSON in
DIR and reuses it, so a study can be extended or resumed.

Run: ``python benchmarks/resilience_study.py [--systems dragonfly-3k,megafly-3k] [--plot docs]``.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ppt import plotstyle

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def job_list(ranks: int, load: float, path: Path) -> None:
    jobs = [{"name": "snap", "kind": "script", "script": str(EXAMPLES / "snap.py"), "ranks": ranks}]
    if load > 0:
        jobs.append({"name": "background", "kind": "traffic", "pattern": "ur", "load": load, "message_B": 4096,
                     "ranks": "rest"})
    path.write_text(json.dumps({"ranks_per_node": 1, "jobs": jobs}))


def point_name(point: dict) -> str:
    rails = f"-{point['rails']}" if point["rails"] else ""
    return f"{point['system']}-{point['planes']}{rails}-{point['load']}-{point['failed']}"


def run_point(point: dict, ranks: int, routing: str, workdir: Path) -> dict:
    """One ``ppt run --job-list`` for ``point`` (system, planes, rail policy, load, failed); its per-job figures."""
    jobs = workdir / f"{point_name(point)}.json"
    job_list(ranks, point["load"] / point["planes"], jobs)
    command = [sys.executable, "-m", "ppt.cli.main", "run", "--job-list", str(jobs), "--system", point["system"],
               "--allocation", "random", "--seed", "1", "--set", f"network.planes={point['planes']}",
               "--set", f"network.routing={routing}", "--json"]
    if point["planes"] > 1:
        command += ["--set", f"network.rail_policy={point['rails']}"]
    if point["failed"]:
        command += ["--fail-links", f"{point['failed']}%", "--fail-seed", "1"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        return {**point, "error": done.stderr.strip().splitlines()[-1]}
    by_name = {job["name"]: job for job in json.loads(done.stdout)["jobs"]}
    row = dict(point)
    for name, job in by_name.items():
        for key in ("max_comm_s", "mean_packet_latency_s", "mean_hops"):
            row[f"{name}_{key}"] = job.get(key)
    return row


def points(systems, plane_counts, rails, loads, failures):
    top = max(loads)
    for system in systems:
        for planes in plane_counts:
            policy = rails if planes > 1 else ""
            for load in loads:
                yield {"system": system, "planes": planes, "rails": policy, "load": load, "failed": 0}
            for failed in failures:
                if failed:
                    yield {"system": system, "planes": planes, "rails": policy, "load": top, "failed": failed}


def table(rows) -> str:
    keys = ["system", "planes", "rails", "load", "failed", "snap_max_comm_s", "snap_mean_packet_latency_s", "snap_mean_hops",
            "background_mean_packet_latency_s", "background_mean_hops"]
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    for row in rows:
        if "error" in row:
            lines.append(f"| {row['system']} | {row['planes']} | {row['rails']} | {row['load']} | {row['failed']}% | "
                         f"{row['error']} |")
            continue
        cells = [f"{row[k]:.4g}" if isinstance(row.get(k), float) else str(row.get(k, "")) for k in keys]
        cells[4] += "%"
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(rows, system: str, path: Path, loads) -> None:
    """Four panels, stacked: SNAP's time in MPI against load, then against failed links at the highest load,
    and SNAP's and the background's packet latency and hops against failed links; a colour and marker per
    plane count, solid for SNAP and dashed with open markers for the background."""
    top = max(loads)
    title = (f"{system}: SNAP (study 1) beside uniform-random background traffic "
             f"(the same background bytes on 1 and 2 planes)")
    with plotstyle.figure(path, 4, title=title, panel_in=1.9) as (fig, axes):
        by_load_ax, time_ax, latency_ax, hops_ax = axes[:, 0]
        for k, planes in enumerate((1, 2)):
            mine = [r for r in rows if r["system"] == system and r["planes"] == planes and "error" not in r]
            by_load = sorted((r for r in mine if r["failed"] == 0), key=lambda r: r["load"])
            by_fail = sorted((r for r in mine if r["load"] == top), key=lambda r: r["failed"])
            failed = [r["failed"] for r in by_fail]
            colour = {"color": plotstyle.OKABE_ITO[k], "marker": plotstyle.MARKERS[k]}
            for job, style in (("snap", {"linestyle": "-"}), ("background", {"linestyle": "--", "mfc": "white"})):
                label = f"{'SNAP' if job == 'snap' else job}, {planes} plane{'s' if planes > 1 else ''}"
                if job == "snap":
                    by_load_ax.plot([r["load"] for r in by_load], [r["snap_max_comm_s"] * 1e3 for r in by_load],
                                    label=label, **colour, **style)
                    time_ax.plot(failed, [r["snap_max_comm_s"] * 1e3 for r in by_fail], label=label, **colour, **style)
                latency_ax.plot(failed, [r[f"{job}_mean_packet_latency_s"] * 1e6 for r in by_fail], label=label,
                                **colour, **style)
                hops_ax.plot(failed, [r[f"{job}_mean_hops"] for r in by_fail], label=label, **colour, **style)
        by_load_ax.set(xlabel="background load (share of one rail's injection)", ylabel="SNAP max time\nin MPI (ms)")
        time_ax.set(ylabel="SNAP max time\nin MPI (ms)", title=f"failed links at load {top}:")
        latency_ax.set(ylabel="mean packet\nlatency (µs)", yscale="log")
        plotstyle.plain_log(latency_ax.yaxis)
        hops_ax.set(xlabel="failed links (%)", ylabel="mean router hops\nper packet")
        for ax in (time_ax, latency_ax):
            ax.sharex(hops_ax)
            ax.tick_params(labelbottom=False)
        plotstyle.legend(fig)
    print(f"plot: {path}", file=sys.stderr)


def cached_point(point: dict, args, workdir: Path) -> dict:
    """``run_point``, or the row ``--cache`` kept from an earlier run of the same point."""
    kept = args.cache / f"{point_name(point)}-{args.routing}-{args.ranks}.json" if args.cache else None
    if kept and kept.is_file():
        return json.loads(kept.read_text())
    row = run_point(point, args.ranks, args.routing, workdir)
    if kept and "error" not in row:
        kept.write_text(json.dumps(row))
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", default="dragonfly-3k,megafly-3k")
    parser.add_argument("--ranks", type=int, default=128, help="SNAP's ranks (one per node)")
    parser.add_argument("--loads", default="0,0.4,0.8", help="background loads (share of one rail's injection)")
    parser.add_argument("--failures", default="0,5,10,15,20", help="failed links (%%) at the highest load")
    parser.add_argument("--routing", default="ugal")
    parser.add_argument("--planes", default="1,2", help="plane counts")
    parser.add_argument("--rail-policy", default="round-robin", help="network.rail_policy of several planes")
    parser.add_argument("--jobs", type=int, default=2, help="points run at once")
    parser.add_argument("--plot", type=Path, help="directory for one PNG per system")
    parser.add_argument("--cache", type=Path, help="directory keeping each point's row (reused when present)")
    args = parser.parse_args()
    systems = args.systems.split(",")
    loads = [float(x) for x in args.loads.split(",")]
    failures = [float(x) for x in args.failures.split(",")]
    plane_counts = [int(x) for x in args.planes.split(",")]
    todo = list(points(systems, plane_counts, args.rail_policy, loads, failures))
    if args.cache:
        args.cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        rows = []
        for row in pool.map(lambda p: cached_point(p, args, Path(tmp)), todo):
            rows.append(row)
            print(f"  {len(rows)}/{len(todo)}: {row}", file=sys.stderr, flush=True)
    print(table(rows))
    if args.plot:
        for system in systems:
            plot(rows, system, args.plot / f"resilience-{system}.png", loads)


if __name__ == "__main__":
    main()

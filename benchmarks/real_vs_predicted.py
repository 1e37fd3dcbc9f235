"""Real mpi4py runs on this host against ``ppt exec`` predictions on the calibrated ``host`` preset.

Each program is measured by ``ppt.exec.validation.validate`` (what ``ppt validate``
runs): real runs under ``mpiexec -n N`` inside a timing wrapper that leaves
start-up out, alternating with ``ppt exec ... --system host --json``
predictions, ``--repeats`` times each, waiting before each real run for the
host to be quiet and sampling meanwhile how many other processes want a core
(``others running``).  The table gives the real minimum and median, the
median prediction and its error against the real minimum, and ``real CPU``,
the smallest over the real runs of the largest CPU time of a rank.

``-n 4`` on a 2-core host is oversubscribed: two ranks share each core, which
the real run pays for and the prediction (one core per rank, on a second
node of the preset) does not model; those rows are shown apart.

With ``--record``, each program is also recorded under the same ``mpiexec`` (``ppt record -n N``), the
recording replayed on the same preset with ``--compute-clock cpu`` (the CPU time between calls, which is what
``ppt exec`` charges), and the recording's per-rank counts of point-to-point and collective calls set against
``ppt exec``'s (``ppt.exec.validation.recorded``): the table gains the replay's prediction, its error against
the same real minimum, and whether the counts are equal.

Run ``ppt calibrate`` first, then::

    python benchmarks/real_vs_predicted.py --ranks 2,4 --repeats 4 --json rvp.json --markdown
    python benchmarks/real_vs_predicted.py --ranks 2 --programs jacobi,ring,sort --record --markdown
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ppt.errors import PPTError
from ppt.exec.validation import recorded, validate

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: (name, program relative to the repository, arguments): each runs about 0.2-2 s on 2 ranks.
PROGRAMS = [
    ("halo2d", "benchmarks/real_programs/halo2d.py", []),
    ("jacobi", "benchmarks/real_programs/jacobi.py", []),
    ("sort", "benchmarks/real_programs/sort.py", []),
    ("pi", "benchmarks/real_programs/pi.py", []),
    ("reduce_loop", "benchmarks/real_programs/reduce_loop.py", []),
    ("pingpong", "benchmarks/real_programs/pingpong.py", []),
    ("transpose", "benchmarks/real_programs/transpose.py", []),
    ("ring", "benchmarks/real_programs/ring.py", []),
    ("farm", "benchmarks/real_programs/farm.py", []),
    ("rma_halo", "benchmarks/real_programs/rma_halo.py", []),
    ("overlap_allreduce", "benchmarks/real_programs/overlap_allreduce.py", []),
    ("compute_pi (examples)", "examples/mpi4py/compute_pi.py", ["30000000"]),
    ("osu_latency", "benchmarks/osu/osu_latency.py", []),
    ("osu_bw", "benchmarks/osu/osu_bw.py", []),
    ("osu_alltoallv", "benchmarks/osu/osu_alltoallv.py", []),
]


def retried(run, *args, attempts: int = 3):
    """``run(*args)``, tried again after a pause when it fails (a shared working tree can be
    broken for a moment by someone's unfinished edit); the last failure is raised."""
    for attempt in range(attempts):
        try:
            return run(*args)
        except PPTError as exc:
            if attempt == attempts - 1:
                raise
            print(f"retrying in 15 s: {exc}", file=sys.stderr, flush=True)
            time.sleep(15)


def calibrated(folder: str) -> tuple[str, float]:
    """A ``host`` preset measured now by ``ppt calibrate`` in ``folder``: its path and its fitted latency (s)."""
    path = os.path.join(folder, "host.json")
    done = subprocess.run([sys.executable, "-m", "ppt.cli.main", "calibrate", "--out", path, "--json"],
                          capture_output=True, text=True)
    if done.returncode:
        raise PPTError(f"ppt calibrate failed: {done.stderr.strip().splitlines()[-1:]}")
    return path, json.loads(done.stdout)["fit"]["latency_s"]


def measure(programs, ranks_list, repeats: int, system: str, timeout_s: float, quiet_wait_s: float,
            record: bool = False, calibrate_each: bool = False) -> list[dict]:
    rows = []
    started = time.perf_counter()
    presets = tempfile.TemporaryDirectory(prefix="rvp-host-") if calibrate_each else None
    for name, program, args in programs:
        for ranks in ranks_list:
            latency = {}
            if presets is not None:
                system, latency["calibrated_latency_s"] = calibrated(presets.name)
            row = {"name": name, **latency, **retried(validate.measure, str(ROOT / program), args, ranks, repeats,
                                                      system, 0, timeout_s, quiet_wait_s)}
            if record:
                with tempfile.TemporaryDirectory(prefix="rvp-record-") as folder:
                    row.update(retried(recorded.check, str(ROOT / program), args, ranks, folder, system, timeout_s))
                row["replay_error_pct"] = 100.0 * (row["replay_predicted_s"] / row["real_min_s"] - 1.0)
                print(f"{name:>22} -n {ranks}: replay of the recording {row['replay_predicted_s']:.3f} s "
                      f"({row['replay_error_pct']:+.1f} %), call counts "
                      f"{'equal' if row['counts_equal'] else 'differ: ' + json.dumps(row['count_differences'])}",
                      file=sys.stderr, flush=True)
            rows.append(row)
            print(f"{name:>22} -n {ranks}: real min {row['real_min_s']:.3f} s, median {row['real_median_s']:.3f} s; "
                  f"predicted {row['predicted_median_s']:.3f} s ({row['error_pct']:+.1f} %); "
                  f"{row['other_runnable_of_min']:.2f} other processes running during the fastest run "
                  f"[{time.perf_counter() - started:.0f} s]", file=sys.stderr, flush=True)
    return rows


def summary(rows) -> dict:
    def med(sel, key="error_pct"):
        return statistics.median(abs(r[key]) for r in sel) if sel else None
    fitting = [r for r in rows if not r["oversubscribed"]]
    replayed = [r for r in rows if "replay_error_pct" in r]
    return {"median_abs_error_pct": med(rows),
            "median_abs_replay_error_pct": med(replayed, "replay_error_pct") if replayed else None, "median_abs_error_pct_one_rank_per_core": med(fitting),
            "median_abs_error_pct_oversubscribed": med([r for r in rows if r["oversubscribed"]]),
            "median_abs_error_vs_cpu_pct_one_rank_per_core": med(fitting, "error_vs_cpu_pct")}


def table(rows, markdown: bool) -> str:
    replayed = any("replay_predicted_s" in r for r in rows)
    headers = ["program", "ranks", "real min (s)", "real median (s)", "predicted (s)", "error %",
               *(["replay (s)", "replay error %", "counts equal"] if replayed else []),
               "others running", "real CPU (s)", "error vs CPU %"]
    lines = []
    for r in rows:
        ranks = f"{r['ranks']}{' (oversubscribed)' if r['oversubscribed'] else ''}"
        replay = [f"{r['replay_predicted_s']:.3f}", f"{r['replay_error_pct']:+.1f}",
                  "yes" if r["counts_equal"] else "no"] if "replay_predicted_s" in r else ["-"] * 3
        lines.append([r["name"], ranks, f"{r['real_min_s']:.3f}", f"{r['real_median_s']:.3f}",
                      f"{r['predicted_median_s']:.3f}", f"{r['error_pct']:+.1f}", *(replay if replayed else []),
                      f"{r['other_runnable_of_min']:.2f}", f"{r['real_cpu_min_s']:.3f}", f"{r['error_vs_cpu_pct']:+.1f}"])
    if markdown:
        out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---:" if i > 1 else "---" for i in range(len(headers))) + "|"]
        out += ["| " + " | ".join(line) + " |" for line in lines]
        return "\n".join(out)
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(headers)]
    out = ["  ".join(h.rjust(w) for h, w in zip(headers, widths)), "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.rjust(w) for c, w in zip(line, widths)) for line in lines]
    return "\n".join(out)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ranks", default="2,4", help="rank counts (default 2,4)")
    parser.add_argument("--repeats", type=int, default=4, help="real runs and predictions per point (default 4)")
    parser.add_argument("--programs", default=None, help="comma-separated program names (default all)")
    parser.add_argument("--system", default="host", help="preset for ppt exec (default host)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per run before giving up")
    parser.add_argument("--quiet-wait", type=float, default=5.0, metavar="S",
                        help="before each real run, wait up to S seconds for no other process to want a core "
                             "(default 5; the host is shared)")
    parser.add_argument("--record", action="store_true",
                        help="also record each program with ppt record, replay the recording on the same preset "
                             "(--compute-clock cpu) and compare its call counts with ppt exec's")
    parser.add_argument("--calibrate-each", action="store_true",
                        help="run ppt calibrate before each program and predict on that preset, so the model "
                             "follows a host whose MPI speed drifts (this one's fitted latency moved 1.8-2.4 us "
                             "within an hour)")
    parser.add_argument("--json", default=None, metavar="FILE", help="also write every time to FILE")
    parser.add_argument("--markdown", action="store_true", help="print the table as markdown")
    args = parser.parse_args(argv)
    programs = PROGRAMS
    if args.programs:
        wanted = args.programs.split(",")
        programs = [p for p in PROGRAMS if p[0] in wanted or p[0].split()[0] in wanted]
        unknown = sorted(set(wanted) - {p[0] for p in PROGRAMS} - {p[0].split()[0] for p in PROGRAMS})
        if unknown:
            print(f"real_vs_predicted.py: error: no program {', '.join(unknown)}: the programs are "
                  f"{', '.join(p[0].split()[0] for p in PROGRAMS)}", file=sys.stderr)
            return 2
    ranks_list = [int(r) for r in args.ranks.split(",")]
    load_at_start = os.getloadavg()[0]
    try:
        rows = measure(programs, ranks_list, args.repeats, args.system, args.timeout, args.quiet_wait, args.record,
                       args.calibrate_each)
    except PPTError as exc:
        print(f"real_vs_predicted.py: error: {exc}", file=sys.stderr)
        return 2
    result = {"system": args.system, "repeats": args.repeats, "rows": rows, **summary(rows),
              "load_average_1min_at_start": load_at_start, "load_average_1min_at_end": os.getloadavg()[0]}
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    print(table(rows, args.markdown))
    s = summary(rows)
    print()
    for key, label in (("median_abs_replay_error_pct", "replay of the recording, all rows"),
                       ("median_abs_error_pct_one_rank_per_core", "one rank per core"),
                       ("median_abs_error_pct_oversubscribed", "oversubscribed"),
                       ("median_abs_error_pct", "all rows"),
                       ("median_abs_error_vs_cpu_pct_one_rank_per_core", "one rank per core, against real CPU time")):
        if s[key] is not None:
            print(f"median absolute error, {label}: {s[key]:.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Real mpi4py runs on this host against ``ppt exec`` predictions on the calibrated ``host`` preset.

Each program runs for real under ``mpiexec -n N`` inside a timing wrapper
(this script with ``--timed``): the wrapper imports numpy and mpi4py, waits in
a barrier, reads ``MPI.Wtime``, runs the program with
``runpy.run_path(PROGRAM, run_name="__main__")``, waits in a second barrier
and prints the elapsed time, so start-up (the interpreter, imports, MPI_Init)
is not timed.  The same program then runs under
``ppt exec PROGRAM [ARGS] -n N --system host --json``, whose ``predicted_s``
is compared with the real time.  The host is shared, so before each real run
the script waits (``--quiet-wait``, up to 5 s) until no other process wants
a core, and during the run it samples how many other processes do (``others
running``: their mean count during the fastest run, from ``/proc/loadavg``).
Real runs and predictions alternate,
``--repeats`` times each; the table gives the real minimum and median, the
median prediction, and the error of the prediction against the real minimum
(the run least disturbed by other processes; ``ppt calibrate`` fits the
preset to minimum times too).  ``real CPU`` is the smallest, over the real
runs, of the largest CPU time of a rank (``time.process_time`` around the
program): MPICH's ranks poll while they wait, so on an idle host a rank's CPU
time is its elapsed time, and on a busy one it stays close to what the run
would take alone while the elapsed time grows with the other processes.
Every process, real and simulated, runs with
one BLAS thread (``OPENBLAS_NUM_THREADS=1``), as ``ppt`` does.

``-n 4`` on a 2-core host is oversubscribed: two ranks share each core, which
the real run pays for and the prediction (one core per rank, on a second
node of the preset) does not model; those rows are shown apart.

Run ``ppt calibrate`` first, then::

    python benchmarks/real_vs_predicted.py --ranks 2,4 --repeats 4 --json rvp.json --markdown
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MARK = "REAL_VS_PREDICTED_ELAPSED_S="

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
    ("compute_pi (examples)", "examples/mpi4py/compute_pi.py", ["30000000"]),
]


def timed(argv: list[str]) -> None:
    """The wrapper run by mpiexec: time PROGRAM from after MPI_Init to its end (rank 0 prints it)."""
    import runpy

    import numpy  # noqa: F401  (imported before the clock starts, as the program's own import is then free)
    from mpi4py import MPI
    program = argv[0]
    sys.argv = list(argv)
    sys.path.insert(0, str(Path(program).resolve().parent))
    comm = MPI.COMM_WORLD
    comm.Barrier()
    start, cpu = MPI.Wtime(), time.process_time()
    runpy.run_path(program, run_name="__main__")
    cpu = time.process_time() - cpu
    comm.Barrier()
    elapsed = MPI.Wtime() - start
    cpu = comm.gather(cpu, root=0)
    if comm.Get_rank() == 0:
        sys.stdout.flush()
        print(f"\n{MARK}{elapsed:.9f} {max(cpu):.9f}", flush=True)


def env() -> dict:
    return dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PPT_QUIET="1")


def tool(name: str) -> str:
    beside = Path(sys.executable).with_name(name)
    return str(beside) if beside.is_file() else name


def runnable() -> int:
    """Processes running or ready to run on the host right now (the 4th field of /proc/loadavg)."""
    try:
        return int(Path("/proc/loadavg").read_text().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return 0


def wait_for_quiet(max_wait_s: float, cores: int) -> float:
    """Wait until no other process wants a core for a second (at most ``max_wait_s``); seconds waited."""
    started = time.perf_counter()
    while time.perf_counter() - started < max_wait_s:
        samples = []
        for _ in range(10):
            samples.append(runnable() - 1)          # this process reading /proc/loadavg
            time.sleep(0.1)
        if max(samples) <= max(0, cores - 2):
            break
    return time.perf_counter() - started


class Contention(threading.Thread):
    """Samples, during a real run, how many processes beyond the run's own ``ranks`` want a core."""

    def __init__(self, ranks: int):
        super().__init__(daemon=True)
        self.ranks, self.samples, self.stop = ranks, [], threading.Event()

    def run(self):
        while not self.stop.wait(0.02):
            self.samples.append(max(0, runnable() - 1 - self.ranks))

    def mean(self) -> float:
        return statistics.fmean(self.samples) if self.samples else 0.0


def real_run(program: str, args: list[str], ranks: int, timeout_s: float) -> tuple[float, float, float]:
    """Elapsed seconds of one real run, its ranks' largest CPU time and the mean number of other
    processes wanting a core meanwhile."""
    cmd = [tool("mpiexec"), "-n", str(ranks), sys.executable, str(Path(__file__).resolve()), "--timed",
           program, *args]
    watch = Contention(ranks)
    watch.start()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, cwd=ROOT, env=env())
    finally:
        watch.stop.set()
        watch.join()
    if done.returncode != 0:
        raise RuntimeError(f"mpiexec -n {ranks} {program} failed: {done.stderr.strip().splitlines()[-1:]}")
    line = next(line for line in reversed(done.stdout.splitlines()) if line.startswith(MARK))
    elapsed, cpu = map(float, line[len(MARK):].split())
    return elapsed, cpu, watch.mean()


def predicted_run(program: str, args: list[str], ranks: int, system: str, timeout_s: float) -> float:
    cmd = [tool("ppt"), "exec", program, *args, "-n", str(ranks), "--system", system, "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, cwd=ROOT, env=env())
    if done.returncode != 0:
        raise RuntimeError(f"ppt exec {program} -n {ranks} failed: {done.stderr.strip().splitlines()[-1:]}")
    return float(json.loads(done.stdout)["predicted_s"])


def retried(run, *args, attempts: int = 3):
    """``run(*args)``, tried again after a pause when it fails (a shared working tree can be
    broken for a moment by someone's unfinished edit); the last failure is raised."""
    for attempt in range(attempts):
        try:
            return run(*args)
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            if attempt == attempts - 1:
                raise
            print(f"retrying in 15 s: {exc}", file=sys.stderr, flush=True)
            time.sleep(15)


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def measure(programs, ranks_list, repeats: int, system: str, timeout_s: float, quiet_wait_s: float) -> list[dict]:
    rows = []
    for name, program, args in programs:
        for ranks in ranks_list:
            real, cpu, others, predicted, waited = [], [], [], [], 0.0
            started = time.perf_counter()
            for _ in range(repeats):
                waited += wait_for_quiet(quiet_wait_s, cores())
                elapsed, cpu_s, busy = retried(real_run, program, args, ranks, timeout_s)
                real.append(elapsed)
                cpu.append(cpu_s)
                others.append(busy)
                predicted.append(retried(predicted_run, program, args, ranks, system, timeout_s))
            best = real.index(min(real))
            row = {"program": name, "path": program, "args": args, "ranks": ranks,
                   "oversubscribed": ranks > cores(), "real_s": real, "real_cpu_s": cpu,
                   "other_runnable": others, "waited_for_quiet_s": waited, "predicted_s": predicted,
                   "real_min_s": real[best], "real_median_s": statistics.median(real),
                   "real_cpu_of_min_s": cpu[best], "other_runnable_of_min": others[best],
                   "real_cpu_min_s": min(cpu), "predicted_median_s": statistics.median(predicted)}
            row["error_pct"] = 100.0 * (row["predicted_median_s"] / row["real_min_s"] - 1.0)
            row["error_vs_cpu_pct"] = 100.0 * (row["predicted_median_s"] / row["real_cpu_min_s"] - 1.0)
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
    return {"median_abs_error_pct": med(rows), "median_abs_error_pct_one_rank_per_core": med(fitting),
            "median_abs_error_pct_oversubscribed": med([r for r in rows if r["oversubscribed"]]),
            "median_abs_error_vs_cpu_pct_one_rank_per_core": med(fitting, "error_vs_cpu_pct")}


def table(rows, markdown: bool) -> str:
    headers = ["program", "ranks", "real min (s)", "real median (s)", "predicted (s)", "error %",
               "others running", "real CPU (s)", "error vs CPU %"]
    lines = []
    for r in rows:
        ranks = f"{r['ranks']}{' (oversubscribed)' if r['oversubscribed'] else ''}"
        lines.append([r["program"], ranks, f"{r['real_min_s']:.3f}", f"{r['real_median_s']:.3f}",
                      f"{r['predicted_median_s']:.3f}", f"{r['error_pct']:+.1f}", f"{r['other_runnable_of_min']:.2f}",
                      f"{r['real_cpu_min_s']:.3f}", f"{r['error_vs_cpu_pct']:+.1f}"])
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
    if argv and argv[0] == "--timed":
        timed(argv[1:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ranks", default="2,4", help="rank counts (default 2,4)")
    parser.add_argument("--repeats", type=int, default=4, help="real runs and predictions per point (default 4)")
    parser.add_argument("--programs", default=None, help="comma-separated program names (default all)")
    parser.add_argument("--system", default="host", help="preset for ppt exec (default host)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per run before giving up")
    parser.add_argument("--quiet-wait", type=float, default=5.0, metavar="S",
                        help="before each real run, wait up to S seconds for no other process to want a core "
                             "(default 5; the host is shared)")
    parser.add_argument("--json", default=None, metavar="FILE", help="also write every time to FILE")
    parser.add_argument("--markdown", action="store_true", help="print the table as markdown")
    args = parser.parse_args(argv)
    programs = PROGRAMS
    if args.programs:
        wanted = args.programs.split(",")
        programs = [p for p in PROGRAMS if p[0] in wanted or p[0].split()[0] in wanted]
    ranks_list = [int(r) for r in args.ranks.split(",")]
    rows = measure(programs, ranks_list, args.repeats, args.system, args.timeout, args.quiet_wait)
    result = {"system": args.system, "repeats": args.repeats, "rows": rows, **summary(rows),
              "load_average_1min_at_end": os.getloadavg()[0]}
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    print(table(rows, args.markdown))
    s = summary(rows)
    print()
    for key, label in (("median_abs_error_pct_one_rank_per_core", "one rank per core"),
                       ("median_abs_error_pct_oversubscribed", "oversubscribed"),
                       ("median_abs_error_pct", "all rows"),
                       ("median_abs_error_vs_cpu_pct_one_rank_per_core", "one rank per core, against real CPU time")):
        if s[key] is not None:
            print(f"median absolute error, {label}: {s[key]:.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())

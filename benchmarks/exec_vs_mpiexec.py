"""How long ``ppt exec`` takes to simulate a program against the program's real run, same machine, same run.

Each OSU-style program of ``benchmarks/osu`` (latency and bandwidth from 0 B to 4 MiB, Alltoallv to 1 MiB
per block) runs as a whole process, alternately

* for real: ``mpiexec -n 2 python PROGRAM`` (the ``mpich`` wheel's launcher beside this Python), and
* simulated: ``ppt exec PROGRAM -n 2 --system edison`` (progress off, output discarded),

``--repeats`` times each.  The table gives each side's wall time (min / median, start-up included: what a
user waits for) and the median over the pairs of simulated / real, which holds when the machine's speed
drifts between pairs.  The load average before the first run is printed: the machine is shared.  Both
sides run as Python runs by default, writing and reusing compiled byte code (``PYTHONDONTWRITEBYTECODE`` is
dropped from the environment: set, it has ``ppt exec`` compile PPT's sources anew at every start, about
0.3 s, while mpi4py's byte code came with its install).

    python benchmarks/exec_vs_mpiexec.py [--repeats 3] [--system edison] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROGRAMS = ("osu_latency", "osu_bw", "osu_alltoallv")


def tool(name: str) -> str:
    beside = Path(sys.executable).with_name(name)
    return str(beside) if beside.is_file() else name


def wall_s(argv: list[str]) -> float:
    """Seconds ``argv`` takes as a whole process; an error if it fails."""
    env = dict(os.environ, PPT_QUIET="1", OPENBLAS_NUM_THREADS="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    return elapsed


def measure(program: str, repeats: int, system: str, ranks: int = 2) -> dict:
    path = str(HERE / "osu" / f"{program}.py")
    real = [tool("mpiexec"), "-n", str(ranks), sys.executable, path]
    simulated = [tool("ppt"), "exec", path, "-n", str(ranks), "--system", system]
    reals, sims = [], []
    for _ in range(repeats):
        reals.append(wall_s(real))
        sims.append(wall_s(simulated))
    ratios = [s / r for s, r in zip(sims, reals)]
    return {"program": program, "ranks": ranks, "real_s": {"min": min(reals), "median": statistics.median(reals)},
            "exec_s": {"min": min(sims), "median": statistics.median(sims)}, "ratio": statistics.median(ratios)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--system", default="edison")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()[0]:.2f}; {args.repeats} alternating pairs per program, "
          f"ppt exec on {args.system}", flush=True)
    rows = []
    print(f"{'program':<15}{'real s (min/med)':>20}{'ppt exec s (min/med)':>24}{'exec/real':>11}")
    for program in PROGRAMS:
        row = measure(program, args.repeats, args.system)
        rows.append(row)
        print(f"{program:<15}{row['real_s']['min']:>10.2f} /{row['real_s']['median']:>7.2f}"
              f"{row['exec_s']['min']:>14.2f} /{row['exec_s']['median']:>7.2f}{row['ratio']:>11.2f}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"system": args.system, "repeats": args.repeats, "rows": rows},
                                              indent=1) + "\n")


if __name__ == "__main__":
    main()

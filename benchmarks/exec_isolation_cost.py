"""The cost of isolating ``ppt exec``'s ranks: wall time and peak memory of whole runs, and attribute reads.

Runs ``ppt exec`` of a small program at 1,024 ranks (16 per node, analytic network, ``--compute none``) in
a fresh process per run and reports its wall time and peak resident set (``ru_maxrss`` of the child), per
rank too; ``--tree`` names checkouts of PPT to compare (each imported through ``PYTHONPATH``, so a checkout
of an earlier commit runs with this environment's packages; its compiled surface must be built or copied
in).  Programs:

``plain``
    ``benchmarks/programs/allreduce_once.py``: one allreduce, no writes to any module;
``writes``
    ``benchmarks/programs/module_writes.py``: every rank writes ``math.pi`` and ``json.dumps``, reads
    ``math.pi`` 1,000 times, and allreduces.

It also times one attribute read of a module no rank wrote to and of one a rank wrote to, inside a rank
(``ppt.exec.cow``), in this process.

    python benchmarks/exec_isolation_cost.py [--tree .] [--tree ../base] [--repeats 3] [--ranks 1024] [--json FILE]
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
import timeit
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROGRAMS = {"plain": HERE / "programs" / "allreduce_once.py", "writes": HERE / "programs" / "module_writes.py"}


def one_run(tree: Path, program: Path, ranks: int) -> tuple[float, int]:
    """Wall seconds and peak resident bytes of ``ppt exec program -n ranks`` with PPT from ``tree``."""
    command = [sys.executable, "-m", "ppt.cli.main", "exec", str(program), "-n", str(ranks), "--system", "edison",
               "--network", "analytic", "--ranks-per-node", "16", "--compute", "none", "--summary", os.devnull]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        child = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        wall_s = time.perf_counter() - start
    if status:
        raise SystemExit(f"{' '.join(command)} (PYTHONPATH={tree}) failed with status {status}")
    return wall_s, usage.ru_maxrss * 1024


def read_costs_ns(reads: int = 200_000) -> dict:
    """ns per attribute read, inside a rank, of a module no rank wrote to and of one a rank wrote to."""
    from greenlet import getcurrent

    from ppt.exec import cow
    from ppt.exec.current import RUNS
    run = types.SimpleNamespace(writes={})
    plain, written = types.ModuleType("plain"), types.ModuleType("written")
    plain.x = written.x = 1
    RUNS[getcurrent()] = run
    cow.adopt(written)
    try:
        other_rank = {name: min(timeit.repeat("m.x", globals={"m": module}, number=reads, repeat=5)) / reads * 1e9
                      for name, module in (("unchanged", plain), ("changed_not_by_this_rank", written))}
        run.writes[written] = {"x": 2}
        other_rank["changed_by_this_rank"] = min(timeit.repeat("m.x", globals={"m": written}, number=reads,
                                                               repeat=5)) / reads * 1e9
    finally:
        RUNS.clear()
        cow.release()
    return other_rank


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", type=Path, help="a checkout of PPT (default: this one)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--ranks", type=int, default=1024)
    parser.add_argument("--json", help="write the results to FILE")
    args = parser.parse_args()
    trees = [tree.resolve() for tree in args.tree or [HERE.parent]]
    rows = []
    for name, program in PROGRAMS.items():
        for tree in trees:
            runs = [one_run(tree, program, args.ranks) for _ in range(args.repeats)]
            walls, peaks = [wall for wall, _ in runs], [peak for _, peak in runs]
            row = {"program": name, "tree": str(tree), "ranks": args.ranks,
                   "wall_s_min": min(walls), "wall_s_median": statistics.median(walls),
                   "peak_MB_min": min(peaks) / 1e6, "peak_MB_median": statistics.median(peaks) / 1e6,
                   "kB_per_rank_median": statistics.median(peaks) / args.ranks / 1e3}
            rows.append(row)
            print(f"{name:7s} {tree.name:14s} wall {row['wall_s_min']:.2f}/{row['wall_s_median']:.2f} s "
                  f"(min/median)  peak {row['peak_MB_min']:.1f}/{row['peak_MB_median']:.1f} MB  "
                  f"{row['kB_per_rank_median']:.1f} kB per rank", flush=True)
    reads = read_costs_ns()
    for name, ns in reads.items():
        print(f"attribute read, module {name.replace('_', ' ')}: {ns:.1f} ns")
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": rows, "read_ns": reads}, indent=1))


if __name__ == "__main__":
    main()

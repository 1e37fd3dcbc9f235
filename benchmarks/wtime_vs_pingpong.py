"""Wtime inside an unmodified mpi4py program against PPT's own ping-pong, on one system.

Runs the ping-pong latency program ``examples/mpi4py/pingpong_latency.py``
under ``ppt exec SYSTEM -n 2 --ranks-per-node 1 --compute none`` (so the two
ranks sit on nodes 0 and 1 and only MPI time passes), reads the latency it
prints for each size from its own ``MPI.Wtime`` measurements, and prints it
beside ``ppt pingpong SYSTEM`` for the same sizes, with the difference.

    python benchmarks/wtime_vs_pingpong.py --system edison
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

PROGRAM = Path(__file__).resolve().parents[1] / "examples" / "mpi4py" / "pingpong_latency.py"


def ppt(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "ppt.cli.main", *args], capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"ppt {' '.join(args)} failed: {done.stderr.strip().splitlines()[-1]}")
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--system", default="edison")
    args = parser.parse_args()
    printed = ppt("exec", str(PROGRAM), "-n", "2", "--system", args.system, "--ranks-per-node", "1",
                  "--compute", "none", "--summary", os.devnull)
    measured = {}
    for line in printed.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0].isdigit():
            measured[int(fields[0])] = float(fields[1])
    sizes = sorted(measured)
    reference = json.loads(ppt("pingpong", args.system, "--sizes", ",".join(map(str, sizes)), "--json"))
    print(f"{'bytes':>8}  {'program us':>14}  {'ppt pingpong us':>15}  {'difference':>10}")
    worst = 0.0
    for entry in reference["results"]:
        size, expected_us = entry["bytes"], entry["latency_s"] * 1e6
        got_us = measured[size]
        # the program prints two decimals: compare against the reference rounded the same way
        diff = (got_us - round(expected_us, 2)) / round(expected_us, 2)
        worst = max(worst, abs(diff))
        print(f"{size:>8}  {got_us:>14.2f}  {expected_us:>15.3f}  {diff:>+10.2%}")
    print(f"largest difference: {worst:.2%} over {len(sizes)} sizes")


if __name__ == "__main__":
    main()

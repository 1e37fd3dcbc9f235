"""GOAL reading speed: MB of GOAL text read into op streams per second (``ppt.traces.readers.goal.load``).

Writes a schedule in the form Schedgen writes from traces (every rank a chain of labelled sends,
receives and calcs, each requiring the one before, a ring exchange) of about ``--mb`` MB in a
temporary folder, reads it ``--repeat`` times and prints the best rate by the process's CPU time and by
the wall clock (on a shared machine the CPU time is the steadier of the two).

    python benchmarks/goal_read_speed.py --mb 20
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time

from ppt.traces.readers.goal import load


def write_schedule(path: str, megabytes: float, num_ranks: int = 64) -> int:
    """Write a ring-exchange schedule of about ``megabytes`` MB to ``path``; returns its size in bytes."""
    per_round = 120                     # bytes of text one rank writes per round, about
    rounds = max(1, int(megabytes * 1e6 / (num_ranks * per_round)))
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"num_ranks {num_ranks}\n\n")
        for rank in range(num_ranks):
            right, left = (rank + 1) % num_ranks, (rank - 1) % num_ranks
            lines = [f"rank {rank} {{"]
            for i in range(rounds):
                base = 3 * i
                lines.append(f"l{base + 1}: send {8 << (i % 10)}b to {right} tag {i % 100}")
                lines.append(f"l{base + 2}: recv {8 << (i % 10)}b from {left} tag {i % 100}")
                lines.append(f"l{base + 3}: calc {1000 + i % 7}")
                lines.append(f"l{base + 3} requires l{base + 2}")
                if i:
                    lines.append(f"l{base + 1} requires l{base}")
            lines.append("}\n")
            f.write("\n".join(lines) + "\n")
    return os.path.getsize(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=20.0, help="size of the generated schedule, MB (default 20)")
    parser.add_argument("--repeat", type=int, default=3, help="reads to take the best of (default 3)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "ring.goal")
        size = write_schedule(path, args.mb)
        runs = [_timed(path) for _ in range(args.repeat)]
    cpu, wall = min(c for c, _ in runs), min(w for _, w in runs)
    print(f"{size / 1e6:.1f} MB of GOAL text read in {cpu:.2f} s of CPU ({size / 1e6 / cpu:.2f} MB/s), "
          f"{wall:.2f} s by the wall clock ({size / 1e6 / wall:.2f} MB/s)")


def _timed(path: str) -> tuple:
    """(CPU s, wall-clock s) of reading the schedule at ``path`` once."""
    cpu, wall = time.process_time(), time.perf_counter()
    load(path)
    return time.process_time() - cpu, time.perf_counter() - wall


if __name__ == "__main__":
    main()

"""What ``ppt record`` costs a program: time per recorded MPI call, record bytes per call, and memory per rank.

An 8-byte ping-pong (``benchmarks/programs/pingpong8.c``, MPI_Send and MPI_Recv in a tight loop on
2 ranks, best of 5 runs of ITERATIONS round trips) runs under the mpich wheel's ``mpiexec`` without
and with the recording library preloaded; each round trip is 2 calls per rank, so the overhead of
one recorded call is the difference of the round-trip times over 2.  The same program then times
MPI_Comm_rank, which does no communication, so its difference is the recording's own cost free of
the noise of message timing.  The CPU-clock reads (2 per call) are timed alone too.  Record bytes per call are the
rank's ``.rec`` and ``.aux`` files over its calls; the library's buffers (a fixed size per rank)
bound its memory, read from pmpi_record.c.

    python benchmarks/record_overhead.py [--iterations 100000] [--repeats 3] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import tempfile
from pathlib import Path

from ppt.record import build

HERE = Path(__file__).resolve().parent


def timings(exe: str, iterations: int, env: list) -> tuple:
    """(round trip s, one MPI_Comm_rank s) of one run."""
    done = subprocess.run([build.mpi_tool("mpiexec"), "-n", "2", *env, exe, str(iterations)],
                          capture_output=True, text=True, check=True)
    trip, local = done.stdout.split()[:2]
    return float(trip), float(local)


def thread_clock_s(reads: int = 200000) -> float:
    """Seconds per read of the thread's CPU clock (clock_gettime(CLOCK_THREAD_CPUTIME_ID)) from Python's
    binding, less a read of the monotonic clock (the binding's own cost)."""
    from time import CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID, clock_gettime, perf_counter
    costs = []
    for clock in (CLOCK_THREAD_CPUTIME_ID, CLOCK_MONOTONIC):
        t0 = perf_counter()
        for _ in range(reads):
            clock_gettime(clock)
        costs.append((perf_counter() - t0) / reads)
    return costs[0] - costs[1]


def buffer_bytes() -> int:
    """Bytes of the library's record and aux buffers (RECORDS_PER_WRITE x 80 + AUX_PER_WRITE x 8)."""
    source = build.SOURCE.read_text()
    records = int(re.search(r"#define RECORDS_PER_WRITE (\d+)", source).group(1))
    aux = int(re.search(r"#define AUX_PER_WRITE (\d+)", source).group(1))
    return records * 80 + aux * 8


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=100000)
    parser.add_argument("--repeats", type=int, default=3, help="runs of each kind; the best counts")
    parser.add_argument("--json", default=None, metavar="FILE")
    args = parser.parse_args()
    library = build.library()
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "pingpong8")
        subprocess.run([build.mpi_tool("mpicc"), "-O2", "-o", exe, str(HERE / "programs" / "pingpong8.c")], check=True)
        records = os.path.join(tmp, "records")
        os.mkdir(records)
        preload = ["-genv", "PPT_RECORD_DIR", records, "-genv", "LD_PRELOAD", library]
        plain = [min(t) for t in zip(*(timings(exe, args.iterations, []) for _ in range(args.repeats)))]
        recorded = [min(t) for t in zip(*(timings(exe, args.iterations, preload) for _ in range(args.repeats)))]
        # rank 0 per run: the loop's 2 calls per iteration, a Barrier and 2 Wtime; then the Comm_rank loops
        # and their Wtime; Init, Comm_rank and Finalize
        calls = 5 * (2 * args.iterations + 3) + 5 * (args.iterations + 2) + 3
        written = sum(os.path.getsize(os.path.join(records, f)) for f in os.listdir(records) if "000000" in f)
    result = {"iterations": args.iterations, "round_trip_plain_s": plain[0], "round_trip_recorded_s": recorded[0],
              "overhead_per_p2p_call_s": (recorded[0] - plain[0]) / 2,
              "comm_rank_plain_s": plain[1], "comm_rank_recorded_s": recorded[1],
              "overhead_per_local_call_s": recorded[1] - plain[1], "thread_cpu_clock_read_s": thread_clock_s(),
              "record_bytes_per_call": written / calls, "buffer_bytes_per_rank": buffer_bytes()}
    for key, value in result.items():
        print(f"{key:26s} {value:.4g}" if isinstance(value, float) else f"{key:26s} {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()

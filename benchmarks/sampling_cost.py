"""What sampling costs: one traffic run with and without ``--sample-every``, alternated in one process.

    python benchmarks/sampling_cost.py [SYSTEM] [--load 0.5] [--period 1e-6] [--warmup S --time S] [--repeats 3]

After one unmeasured warm-up run, prints the wall time of each run, the
min/median ratio sampled/plain over pairs run back to back (the machine's
speed drifts less within a pair), and the sample file's size.
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

from ppt.hardware.systems import load_system
from ppt.drivers.sampling import Sampler
from ppt.drivers.traffic import run_traffic
from ppt.machine import Machine


def timed(system: str, load: float, warmup_s: float, time_s: float, sampler=None) -> float:
    machine = Machine(load_system(system))
    began = time.perf_counter()
    run_traffic(machine, "ur", load, None, warmup_s, time_s, comm=None, sampler=sampler)
    if sampler is not None:
        sampler.close()
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("system", nargs="?", default="slimfly-3k")
    parser.add_argument("--load", type=float, default=0.5)
    parser.add_argument("--period", type=float, default=1e-6)
    parser.add_argument("--warmup", type=float, default=5e-6)
    parser.add_argument("--time", type=float, default=15e-6)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    ratios = []
    timed(args.system, args.load, args.warmup, args.warmup)      # warm-up: imports and first-use set-up
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "samples.npz")
        for k in range(args.repeats):
            plain = timed(args.system, args.load, args.warmup, args.time)
            sampled = timed(args.system, args.load, args.warmup, args.time, Sampler(path, args.period))
            ratios.append(sampled / plain)
            print(f"pair {k + 1}: plain {plain:.2f} s, sampled {sampled:.2f} s, ratio {ratios[-1]:.3f}", flush=True)
        size = os.path.getsize(path)
    print(f"{args.system} UR load {args.load}, {args.warmup * 1e6:g}+{args.time * 1e6:g} us, sampled every "
          f"{args.period * 1e6:g} us: sampled/plain wall time min {min(ratios):.3f}, median "
          f"{statistics.median(ratios):.3f}; sample file {size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()

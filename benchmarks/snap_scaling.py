"""SNAPSim strong-scaling studies: predicted times and the simulator's wall time per run.

Runs (one inner iteration each, see :mod:`ppt.apps.scaling`):

* study 1 on Edison, 24..384 cores (packet and analytic networks);
* study 2 on Edison from 24 cores up to 1,536 -- the largest count SNAP's
  decomposition allows for 32 x 48 y-z cells (one y-z column per rank), so the
  3,072 cores of the brief cannot be run with this mesh -- on the analytic
  network, and the same on a torus (Hopper, Cray Gemini) and a fat tree
  (Stampede).

Run: ``python benchmarks/snap_scaling.py [--only study1|study2] [--network packet|analytic]``.
"""
from __future__ import annotations

import argparse
import time

from ppt.apps.scaling import strong_scaling
from ppt.cli.output import format_table
from ppt.hardware.systems import load_system
from ppt.machine import Machine

STUDY1_CORES = [24, 48, 96, 192, 384]
STUDY2_CORES = {24: [24, 48, 96, 192, 384, 768, 1536], 16: [16, 48, 96, 192, 384, 768, 1536]}
RUNS = {
    "study1": [("edison", 1, "packet"), ("edison", 1, "analytic")],
    "study2": [("edison", 2, "analytic"), ("hopper", 2, "analytic"), ("stampede", 2, "analytic")],
}


def run(system: str, study: int, network: str, iterations: int) -> None:
    machine = Machine(load_system(system), network_kind=network)
    cores = STUDY1_CORES if study == 1 else STUDY2_CORES[machine.cores_per_node]
    began = time.perf_counter()

    def show(entry, index, total):
        print(f"  {system} study {study} {network}: cores {entry['cores']}: predicted {entry['predicted_s']:.4g} s, "
              f"wall {entry['wall_s']:.1f} s ({index + 1}/{total})", flush=True)

    results = strong_scaling(machine, study, cores, iterations, on_point=show)
    print(f"{system}, study {study}, {network} network: {time.perf_counter() - began:.1f} s wall in total")
    rows = [[r["cores"], f"{r['npey']}x{r['npez']}", r["predicted_s"], r["compute_s"], r["comm_s"],
             r["comm_s"] / (r["compute_s"] + r["comm_s"]), round(r["speedup"], 2), round(r["efficiency"], 3),
             round(r["wall_s"], 1)] for r in results]
    print(format_table(["cores", "grid", "predicted_s", "compute_s", "comm_s", "comm_fraction", "speedup",
                        "efficiency", "wall_s"], rows))
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(RUNS), default=None, help="run one group of studies")
    parser.add_argument("--network", choices=["packet", "analytic"], default=None,
                        help="run only the runs on this network model")
    parser.add_argument("--iterations", type=int, default=1, help="inner iterations per run (default 1)")
    args = parser.parse_args()
    for group, runs in RUNS.items():
        if args.only and group != args.only:
            continue
        for system, study, network in runs:
            if args.network is None or network == args.network:
                run(system, study, network, args.iterations)


if __name__ == "__main__":
    main()

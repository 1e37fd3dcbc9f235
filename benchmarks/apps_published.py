"""CloverLeaf, miniMD-style MD and Branson-like IMC models against published run times.

Each row runs one published configuration on the closest PPT preset and
prints the published time, the prediction and the error (prediction over
published, minus 1).  Sources (details in docs/apps/*.md):

* CloverLeaf: the performance table of the UK-MAC CloverLeaf_ref README
  (github.com/UK-MAC/CloverLeaf_ref): test problems 2-5 (960^2 or 3840^2
  cells, 87 or 2,955 steps) on one core and one node (16 ranks) of a
  2-socket Xeon E5-2670 (Sandy Bridge EP, 2.6 GHz) and on one 2-socket
  E5-2698 v3 node (Haswell, 2.3 GHz; 4 ranks x 8 threads).  Closest presets:
  stampede (E5-2680 Sandy Bridge EP, 2.7 GHz) and trinity (E5-2698 v3).
* MD: LAMMPS' sample logs of bench/in.lj (32,000 atoms, 100 steps), LAMMPS
  1 Feb 2014 on 1 and 4 cores of a Linux desktop whose processor the logs
  do not name (github.com/lammps/lammps, bench/log.1Feb14.lj.fixed.linux.1
  and .4); run on stampede, a Sandy Bridge of that era.
* IMC: no published Branson run time with its configuration was found (see
  docs/apps/imc.md); the rows show the model's strong scaling on trinity.

The 2,955-step and 3840^2 runs use step sampling (3 hydro steps + one summary
step; within 0.01 % of the full run where both were run).
Run: ``python benchmarks/apps_published.py [--network analytic|packet]``.
"""
from __future__ import annotations

import argparse
import time

from ppt.apps.cloverleaf import CloverLeafSim
from ppt.apps.imc import IMCSim
from ppt.apps.minimd import MiniMDSim
from ppt.cli.output import format_table
from ppt.hardware.systems import load_system
from ppt.machine import Machine

CLOVER = "[1]"
LAMMPS = "[2]"
#: The sources of the published times, as the table cites them.
SOURCES = {CLOVER: "UK-MAC CloverLeaf_ref README, performance table",
           LAMMPS: "LAMMPS bench/log.1Feb14.lj.fixed.linux.1 and .4 ('Loop time')"}
#: (app, case, system, published seconds or None, source, simulation)
RUNS = [
    ("cloverleaf", "t2 1x1", "stampede", 20.0, CLOVER, CloverLeafSim(1, 960, 960, 87)),
    ("cloverleaf", "t2 16x1", "stampede", 2.5, CLOVER, CloverLeafSim(16, 960, 960, 87)),
    ("cloverleaf", "t3 1x1", "stampede", 960.0, CLOVER, CloverLeafSim(1, 960, 960, 2955, sample_steps=3)),
    ("cloverleaf", "t3 16x1", "stampede", 100.0, CLOVER,
     CloverLeafSim(16, 960, 960, 2955, sample_steps=3)),
    ("cloverleaf", "t4 1x1", "stampede", 460.0, CLOVER, CloverLeafSim(1, 3840, 3840, 87, sample_steps=3)),
    ("cloverleaf", "t4 16x1", "stampede", 40.0, CLOVER, CloverLeafSim(16, 3840, 3840, 87, sample_steps=3)),
    ("cloverleaf", "t5 1x1", "stampede", 13000.0, CLOVER,
     CloverLeafSim(1, 3840, 3840, 2955, sample_steps=3)),
    ("cloverleaf", "t5 16x1", "stampede", 1700.0, CLOVER,
     CloverLeafSim(16, 3840, 3840, 2955, sample_steps=3)),
    ("cloverleaf", "t2 4x8", "trinity", 0.9, CLOVER, CloverLeafSim(4, 960, 960, 87, threads=8)),
    ("cloverleaf", "t4 4x8", "trinity", 23.44, CLOVER,
     CloverLeafSim(4, 3840, 3840, 87, sample_steps=3, threads=8)),
    ("minimd", "lj 1x1", "stampede", 2.26599, LAMMPS, MiniMDSim(1)),
    ("minimd", "lj 4x1", "stampede", 0.628341, LAMMPS, MiniMDSim(4)),
    ("imc", "64^3 32x1", "trinity", None, "-", IMCSim(32, photons=1_000_000, steps=5)),
    ("imc", "64^3 128x1", "trinity", None, "-", IMCSim(128, photons=1_000_000, steps=5)),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--network", default="analytic", choices=("analytic", "packet", "flow"))
    args = parser.parse_args()
    machines = {}
    rows = []
    for app, case, system, published_s, source, sim in RUNS:
        machine = machines.get(system) or machines.setdefault(system, Machine(load_system(system), args.network))
        began = time.perf_counter()
        result = sim.run(machine, ranks_per_node=sim.ranks if sim.ranks * sim.threads <= machine.cores_per_node
                         else None)
        error = f"{100 * (result.predicted_s / published_s - 1):+.0f} %" if published_s else "n/a"
        rows.append([app, case, system, published_s, result.predicted_s, error, source])
        print(f"  {app} {case} on {system}: predicted {result.predicted_s:.4g} s "
              f"(wall {time.perf_counter() - began:.1f} s)", flush=True)
    print(format_table(["app", "case", "system", "published_s", "predicted_s", "error", "source"], rows, 80))
    print("case: problem, ranks x threads (t2..t5: CloverLeaf test problems 2..5; lj: in.lj)")
    for key, text in SOURCES.items():
        print(f"{key} {text}")


if __name__ == "__main__":
    main()

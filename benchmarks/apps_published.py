"""CloverLeaf, miniMD-style MD and Branson-like IMC models against published run times.

Each row runs one published configuration on the closest PPT preset and
prints the published time, the prediction and the error (prediction over
published, minus 1); the IMC rows compare Branson's figure of merit
(photons per second) instead.  Sources (details in docs/apps/*.md):

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
* IMC: LANL's ATS-5 benchmark tables of Branson on one Crossroads node
  (github.com/lanl/benchmarks, commit 7e0fdf9f64c956168ba45482977e9be72b3c2cae,
  doc/sphinx/01_branson/cpu_10M.csv, cpu_66M.csv, cpu_200M.csv, column
  'Actual'): the FOM (photons per step over the total transport time) of the
  3-D hohlraum input (inputs/3D_hohlraum_single_node.xml of lanl/branson:
  65 x 65 x 140 cells, 5 steps, replicated mode) at 10M, 66M and 200M photons
  on 8 to 112 cores.  Run on one node of the trinity preset with its node
  replaced by the xeon-max-9480 processor (112 cores), the comparison's
  network being the node's memory.  Nothing is fitted to these figures.

The 2,955-step and 3840^2 runs use step sampling (3 hydro steps + one summary
step; within 0.01 % of the full run where both were run).
Run: ``python benchmarks/apps_published.py [--network analytic|packet]``.
"""
from __future__ import annotations

import argparse
import copy
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
]

BRANSON = "[3]"
SOURCES[BRANSON] = "lanl/benchmarks doc/sphinx/01_branson/cpu_{10M,66M,200M}.csv, column 'Actual'"
#: Published Branson FOM (photons per second) on one Crossroads node: {photons per step: {cores: FOM}}.
BRANSON_FOM = {
    10_000_000: {8: 8.85e4, 32: 3.48e5, 56: 5.61e5, 88: 7.52e5, 112: 9.08e5},
    66_000_000: {8: 9.20e4, 32: 3.62e5, 56: 5.76e5, 88: 7.74e5, 112: 9.52e5},
    200_000_000: {8: 9.27e4, 32: 3.80e5, 56: 5.80e5, 88: 7.90e5, 112: 9.59e5},
}
#: Cell width of the hohlraum input, cm (every x, y and z division has 0.01 cm cells).
HOHLRAUM_CELL_CM = 0.01
#: Speed of light in Branson's units, cm per shake (1 sh = 1e-8 s), and the input's time step, sh.
LIGHT_CM_PER_SH = 299.792458
HOHLRAUM_DT_SH = 0.01
#: Absorption opacity of the source region and the void that particles cross (opacA), 1/cm.
HOHLRAUM_VOID_OPACITY_PER_CM = 0.001


def hohlraum(ranks: int, photons: int) -> IMCSim:
    """The 3-D hohlraum input in the model's terms: its mesh and steps; the mean free path of the
    void the particles are born in and cross, and c dt, both in cell widths (module doc)."""
    return IMCSim(ranks, nx=65, ny=65, nz=140, photons=photons, steps=5, mode="replicated",
                  mfp=1.0 / HOHLRAUM_VOID_OPACITY_PER_CM / HOHLRAUM_CELL_CM,
                  census_length=LIGHT_CM_PER_SH * HOHLRAUM_DT_SH / HOHLRAUM_CELL_CM)


def crossroads_node() -> dict:
    """One Crossroads node: the trinity preset with its node section replaced (112 Xeon Max cores);
    runs stay on one node, so trinity's network is never crossed."""
    preset = copy.deepcopy(load_system("trinity"))
    preset["name"] = "crossroads-node"
    preset["node"] = {"processor": "xeon-max-9480", "cores": 112}
    return preset


def branson_rows(network: str) -> list[list]:
    """Per problem size and core count: published and predicted FOM, the error, and the parallel
    efficiency FOM / (FOM at 8 cores x cores / 8), measured and predicted."""
    machine = Machine(crossroads_node(), network)
    rows = []
    for photons, published in BRANSON_FOM.items():
        predicted = {}
        for cores in published:
            began = time.perf_counter()
            predicted[cores] = hohlraum(cores, photons).run(machine, ranks_per_node=cores).extra["fom_photons_per_s"]
            print(f"  imc hohlraum {photons / 1e6:g}M on {cores} cores: predicted FOM {predicted[cores]:.3g} "
                  f"(wall {time.perf_counter() - began:.1f} s)", flush=True)
        for cores, fom in published.items():
            measured_eff = fom / (published[8] * cores / 8)
            predicted_eff = predicted[cores] / (predicted[8] * cores / 8)
            rows.append([f"{photons / 1e6:g}M", cores, f"{fom:.3g}", f"{predicted[cores]:.3g}",
                         f"{100 * (predicted[cores] / fom - 1):+.0f} %", f"{measured_eff:.2f}", f"{predicted_eff:.2f}"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--network", default="analytic", choices=("analytic", "packet", "flow"))
    parser.add_argument("--apps", default="cloverleaf,minimd,imc",
                        help="comma-separated apps to run (default: all three)")
    args = parser.parse_args()
    chosen = set(args.apps.split(","))
    machines = {}
    rows = []
    for app, case, system, published_s, source, sim in RUNS:
        if app not in chosen:
            continue
        machine = machines.get(system) or machines.setdefault(system, Machine(load_system(system), args.network))
        began = time.perf_counter()
        result = sim.run(machine, ranks_per_node=sim.ranks if sim.ranks * sim.threads <= machine.cores_per_node
                         else None)
        error = f"{100 * (result.predicted_s / published_s - 1):+.0f} %" if published_s else "n/a"
        rows.append([app, case, system, published_s, result.predicted_s, error, source])
        print(f"  {app} {case} on {system}: predicted {result.predicted_s:.4g} s "
              f"(wall {time.perf_counter() - began:.1f} s)", flush=True)
    if rows:
        print(format_table(["app", "case", "system", "published_s", "predicted_s", "error", "source"], rows, 80))
        print("case: problem, ranks x threads (t2..t5: CloverLeaf test problems 2..5; lj: in.lj)")
    if "imc" in chosen:
        print(format_table(["photons", "cores", "published_FOM", "predicted_FOM", "error", "eff_meas", "eff_pred"],
                           branson_rows(args.network), 80))
        print(f"IMC {BRANSON}: Branson 3-D hohlraum, replicated, one Crossroads node; FOM in photons/s; "
              "eff: FOM / (FOM at 8 cores x cores / 8)")
    for key, text in SOURCES.items():
        print(f"{key} {text}")


if __name__ == "__main__":
    main()

"""Strong scaling of every registered application model on three system presets.

Each model (``ppt app --list``) runs one fixed problem, chosen so one point
takes seconds, on 1, 4, 16 (and for some 32) whole nodes of each of its
systems (one rank per core); STREAM, a node benchmark, runs on 1, 2, 4, ... cores of one node
instead, since its problem does not span nodes.  The default systems are
edison (Aries, Ivy Bridge), trinity (Aries, Haswell) and mira (Blue Gene/Q 5-D
torus); IMC runs on stampede (fat tree, Sandy Bridge) instead of edison, since
its mesh needs power-of-two rank counts and an edison node has 24 cores.

The network is chosen per sweep as ``ppt app --network auto`` chooses it
(packet-level unless its estimated cost is over the budget, then flow).  The
table prints model, system, ranks, predicted time, speed-up, parallel
efficiency (against the sweep's first point) and the share of the mean
rank's time spent in MPI calls.

Run: ``python benchmarks/apps_scaling.py [--quick] [--only MODEL] [--json] [--plot DIR]``
(about 6 minutes at the default size on a shared 2-core machine, ``--quick`` about 1).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass

from ppt.apps import registry
from ppt.apps.scaling import app_scaling, plot_scaling, sims_traffic
from ppt.cli.output import format_table, write_plot
from ppt.drivers.autochoice import choose
from ppt.hardware.systems import load_system
from ppt.machine import Machine

SYSTEMS = ("edison", "trinity", "mira")


@dataclass(frozen=True)
class Sweep:
    """One model's sweep: its parameters (over the registry's defaults), its ``systems``, the node
    counts it runs at the default size and with ``--quick`` (for a node benchmark, ``per_node``,
    the core counts of one node instead: ``1, 2, 4, ...`` up to the node's cores)."""

    params: dict
    nodes: tuple[int, ...] = (1, 4, 16, 32)
    quick_nodes: tuple[int, ...] = (1, 4)
    systems: tuple[str, ...] = SYSTEMS
    per_node: bool = False


#: model name: its sweep.  Problem sizes are the models' defaults unless a point would take minutes.
SWEEPS = {
    "snap": Sweep({}, nodes=(1, 4, 16)),
    "stream": Sweep({}, per_node=True),
    "hpl": Sweep({"N": 40000, "sample_steps": 4}, nodes=(1, 4, 16)),
    "cloverleaf": Sweep({"sample_steps": 2}),
    "minimd": Sweep({"nx": 40, "ny": 40, "nz": 40, "sample_steps": 2}),
    "imc": Sweep({"steps": 2}, nodes=(1, 4, 16), systems=("stampede", "trinity", "mira")),
}


def rank_counts(sweep: Sweep, cores_per_node: int, quick: bool) -> list[int]:
    """Ranks (one per core) of each point of ``sweep`` on nodes of ``cores_per_node`` cores."""
    if sweep.per_node:
        counts = [1 << k for k in range(cores_per_node.bit_length()) if 1 << k < cores_per_node]
        return (counts[::2] if quick else counts) + [cores_per_node]
    return [n * cores_per_node for n in (sweep.quick_nodes if quick else sweep.nodes)]


def scale(model, system: str, params: dict, ranks: list[int], network: str = "auto") -> dict:
    """Strong scaling of registered ``model`` with ``params`` on ``system`` at ``ranks``: ``{"model",
    "system", "network", "params", "results"}``, each result that of :func:`~ppt.apps.scaling.app_scaling`
    (cores, predicted_s, compute_s, comm_s, speedup, efficiency, ...) plus ``nodes``; ``network`` auto
    picks packet or flow as ``ppt app`` does."""
    preset = load_system(system)
    if network == "auto":
        estimate = sims_traffic(Machine(preset), [model.build(r, params) for r in ranks])
        network = choose(estimate)[0]
    machine = Machine(preset, network_kind=network)
    results = app_scaling(machine, model, params, ranks)
    for entry in results:
        entry["nodes"] = -(-entry["cores"] // machine.cores_per_node)
    return {"model": model.name, "system": system, "network": network, "params": params, "results": results}


def comm_share(entry: dict) -> float:
    """Share of the mean rank's time in MPI calls: comm over compute + comm (0 without either)."""
    busy = entry["compute_s"] + entry["comm_s"]
    return entry["comm_s"] / busy if busy else 0.0


def table(sweeps: list[dict]) -> str:
    """The sweeps' points as one table of at most 80 columns."""
    rows = [[s["model"], s["system"], r["cores"], r["predicted_s"], round(r["speedup"], 2),
             round(r["efficiency"], 3), f"{100 * comm_share(r):.0f} %"] for s in sweeps for r in s["results"]]
    return format_table(["model", "system", "ranks", "predicted_s", "speedup", "efficiency", "comm"], rows, 80)


def plot(model: str, sweeps: list[dict], path: str) -> None:
    """One PNG of ``model``'s sweeps, one set of lines per system (time, speed-up, efficiency vs ranks)."""
    networks = ", ".join(f"{s['system']} {s['network']}" for s in sweeps)
    title = f"{model}: strong scaling, one rank per core ({networks} network)"
    write_plot(path, lambda tmp: plot_scaling({s["system"]: s["results"] for s in sweeps}, tmp, title,
                                              x="cores"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1 and 4 nodes only (about a minute)")
    parser.add_argument("--only", choices=sorted(SWEEPS), action="append", help="run this model (repeatable)")
    parser.add_argument("--network", default="auto", choices=("auto", "packet", "flow", "analytic"))
    parser.add_argument("--json", action="store_true", help="print the results as JSON instead of the table")
    parser.add_argument("--plot", metavar="DIR", help="write DIR/apps-scaling-MODEL.png per model")
    args = parser.parse_args()
    sweeps = []
    for model in registry.models():
        if args.only and model.name not in args.only:
            continue
        sweep = SWEEPS[model.name]
        params = model.resolve(sweep.params)
        mine = []
        for system in sweep.systems:
            began = time.perf_counter()
            ranks = rank_counts(sweep, Machine(load_system(system)).cores_per_node, args.quick)
            mine.append(scale(model, system, params, ranks, args.network))
            print(f"  {model.name} on {system} ({mine[-1]['network']}): ranks {ranks}, "
                  f"{time.perf_counter() - began:.1f} s wall", file=sys.stderr, flush=True)
        if args.plot:
            os.makedirs(args.plot, exist_ok=True)
            plot(model.name, mine, os.path.join(args.plot, f"apps-scaling-{model.name}.png"))
        sweeps += mine
    for sweep in sweeps:
        for entry in sweep["results"]:
            del entry["wall_s"]           # the simulator's speed, not part of the prediction
    print(json.dumps({"sweeps": sweeps}, indent=1) if args.json else table(sweeps))


if __name__ == "__main__":
    main()

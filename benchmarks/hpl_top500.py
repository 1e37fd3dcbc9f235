"""HPL predicted against the TOP500 entries of preset systems (Rmax/Rpeak, the machine's efficiency).

TOP500 figures (cores, Rmax, Rpeak, Nmax) as top500.org lists them, read from the lists
collected in github.com/ww44ss/HPC_Exascalar (``results/BigExascalar.csv``, copied from
top500.org): Hopper and Trinity from the November 2015 list, Sequoia from June 2012 (its
only entry with Nmax), Mira and Edison from November 2015 (no Nmax listed).

A full machine is out of reach here (Hopper: 153,408 ranks; a panel step moves about
58 M messages, the simulated MPI handles about 30,000 a second), so every system runs a
part of ``--nodes`` nodes with the same memory per core as its TOP500 run: N scaled by
sqrt(cores used / cores listed) -- HPL is weak-scaled that way.  Mira's N takes Sequoia's
memory per core (the same BG/Q nodes); Edison, listed without Nmax, fills 80 % of its
64 GB nodes (the fill of Hopper's run, 1.07 of 1.33 GB per core).  NB = 192 everywhere (no
list gives NB); the grid is the most square P <= Q; look-ahead 1, increasing-ring broadcast;
``--samples`` panel steps sampled (:mod:`ppt.apps.hpl`).  No parameter is tuned to these
lists: the DGEMM efficiencies come from single-node Linpack measurements
(``hardware/processors/*.json``), and Hopper's and the BG/Q's have none (1.0).

``--full`` runs each whole machine as its TOP500 entry lists it (cores / cores per node nodes, N = Nmax,
or the memory fill above where none is listed; N scaled as above where the preset has fewer nodes than
the entry counts) in HPL's hybrid form: one rank per node whose threads
(a threaded BLAS) share its work over all the node's cores, so the grid is of nodes (Edison: 68 x 82),
not of cores.

Run: ``python benchmarks/hpl_top500.py [--nodes 64 | --full] [--samples 12] [--network analytic]``.
"""
from __future__ import annotations

import argparse
import math
import time

from ppt.apps.hpl import HPLSim
from ppt.apps.hpl_counts import near_square_grid
from ppt.cli.output import format_table
from ppt.hardware.systems import load_system
from ppt.machine import Machine

#: system: (TOP500 list, cores, Rmax Tflop/s, Rpeak Tflop/s, Nmax or None).
TOP500 = {
    "hopper": ("2015-11", 153_408, 1_054.0, 1_288.627, 4_537_344),
    "trinity": ("2015-11", 301_056, 8_100.9, 11_078.861, 8_847_936),
    "sequoia": ("2012-06", 1_572_864, 16_324.751, 20_132.659, 12_681_215),
    "mira": ("2015-11", 786_432, 8_586.612, 10_066.330, None),
    "edison": ("2015-11", 133_824, 1_654.702, 2_569.421, None),
}
#: Bytes of memory per node where a list gives no Nmax: Edison's 64 GB (NERSC).
NODE_MEMORY_B = {"edison": 64e9}
#: Share of memory Edison's matrix fills: Hopper's run (4,537,344^2 x 8 B over 153,408 cores of 1.33 GB).
FILL = 4_537_344 ** 2 * 8 / (153_408 * 32e9 / 24)
NB = 192


def problem_size(system: str, ranks: int, cores_per_node: int) -> int:
    """N for ``ranks`` cores with the memory per core of the system's TOP500 run (a multiple of NB)."""
    _, cores, _, _, nmax = TOP500[system]
    if nmax is None and system == "mira":
        nmax, cores = TOP500["sequoia"][4], TOP500["sequoia"][1]
    if nmax is None:
        n = math.sqrt(FILL * NODE_MEMORY_B[system] / cores_per_node * ranks / 8)
    else:
        n = nmax * math.sqrt(ranks / cores)
    return int(n) // NB * NB


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=64)
    parser.add_argument("--samples", type=int, default=12)
    parser.add_argument("--network", default="analytic")
    parser.add_argument("--systems", default=",".join(TOP500))
    parser.add_argument("--full", action="store_true", help="whole machines, one rank per node (hybrid)")
    args = parser.parse_args()
    rows = []
    for system in args.systems.split(","):
        machine = Machine(load_system(system), network_kind=args.network)
        per_node = machine.cores_per_node
        listed, cores, rmax, rpeak, nmax = TOP500[system]
        if args.full:
            ranks, threads = min(cores // per_node, machine.num_nodes), per_node   # Hopper's preset: 6,384 nodes
        else:
            ranks, threads = args.nodes * per_node, 1
        p, q = near_square_grid(ranks)
        n = problem_size(system, ranks * threads, per_node)
        began = time.perf_counter()
        result = HPLSim(n, NB, p, q, 1, "1ring", args.samples, threads=threads).run(machine).as_json()
        wall = time.perf_counter() - began
        measured = rmax / rpeak
        error = (result["rmax_over_rpeak"] / measured - 1) * 100
        comm = result["comm_s"] / (result["comm_s"] + result["compute_s"])
        rows.append([system, listed, result["cores"], f"{ranks}x{threads}", f"{p}x{q}", n,
                     round(result["gflops"] / 1e3, 2), round(result["rmax_over_rpeak"], 3), round(measured, 3),
                     f"{error:+.1f}%", f"{comm:.0%}", round(wall, 1)])
        print(f"{system}: N={n} on {ranks} ranks x {threads} threads ({p}x{q}): {result['gflops'] / 1e3:.4g} "
              f"Tflop/s, Rmax/Rpeak {result['rmax_over_rpeak']:.3f} vs TOP500 {measured:.3f} ({error:+.1f} %), "
              f"{wall:.0f} s wall", flush=True)
    print()
    print(format_table(["system", "list", "cores", "ranks x threads", "grid", "N", "Tflop/s", "pred Rmax/Rpeak",
                        "TOP500", "error", "comm share", "wall_s"], rows, width=1 << 30))


if __name__ == "__main__":
    main()

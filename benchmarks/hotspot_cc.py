"""Hot spot and victim flows, with and without InfiniBand congestion control.

    python benchmarks/hotspot_cc.py [--systems dragonfly-3k,megafly-3k] [--sources 48] [--victims 4]
                                    [--warmup 1ms] [--time 1ms]

On each system ``--sources`` nodes drawn at random send at full rate to one
node (the hot spot, node 0), so its node link is the root of a congestion
tree that spans its router, its group's links into that router and the
global links into the group.  ``--victims`` other random nodes send at 20 %
of their rate each to node 1, the hot spot's neighbour on the same router:
their packets cross the tree's links but their own destination is not
congested (together they offer 80 % of its link).  Printed per case (no hot
spot; hot spot without control; InfiniBand control with its defaults; and
tuned: a mark on every eligible packet, a 50 us CCTI timer, CCTI increase 4; DCQCN with
its defaults, and tuned: RED marking from 20 KB to 100 KB, up to 20 %): the victims'
and the hot spot's delivered throughput over the measured window (GB/s),
the victims' share of what they offered, and the marks and notifications.
Results are in docs/guide/congestion-control.md.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from ppt.cli.common import seconds
from ppt.drivers.traffic import TrafficGenerator
from ppt import plotstyle
from ppt.hardware.systems import load_system
from ppt.interconnects.core import ffi, lib
from ppt.interconnects.networks.packetnet import PacketNetwork
from ppt.machine import Machine

#: (case, congestion_control, whether the hot spot runs)
CASES = [("no hot spot", None, False),
         ("hot spot, no control", None, True),
         ("hot spot, IB defaults", {"scheme": "ib"}, True),
         ("hot spot, IB tuned", {"scheme": "ib", "marking_rate": 1, "ccti_timer_s": 50e-6, "ccti_increase": 4}, True),
         ("hot spot, DCQCN", {"scheme": "dcqcn"}, True),
         ("hot spot, DCQCN tuned", {"scheme": "dcqcn", "kmin_B": 20e3, "kmax_B": 100e3, "pmax": 0.2}, True)]
VICTIM_LOAD = 0.2


def ejected_B(net) -> np.ndarray:
    injected, ejected = np.zeros(net.num_nodes, np.int64), np.zeros(net.num_nodes, np.int64)
    lib.ppt_net_nic_bytes(net.core.c, ffi.cast("int64_t *", ffi.from_buffer(injected)),
                          ffi.cast("int64_t *", ffi.from_buffer(ejected)))
    return ejected


def run_case(system: str, control, hot: bool, args) -> dict:
    preset = load_system(system)
    preset["network"]["congestion_control"] = control
    machine = Machine(preset, seed=1)
    net = PacketNetwork(machine.topology, machine.network_settings, seed=1)
    sim = net.simulation(comm=None, name="hotspot")
    rng = np.random.default_rng(7)
    others = rng.permutation(np.arange(2, net.num_nodes))
    sources, victims = sorted(others[:args.sources].tolist()), sorted(others[args.sources:][:args.victims].tolist())
    end_s = args.warmup + args.time
    if hot:
        TrafficGenerator(net, "hotspot", 1.0, seed=1, stop_s=end_s, nodes=[0, *sources]).attach(net)
    TrafficGenerator(net, "hotspot", VICTIM_LOAD, seed=2, stop_s=end_s, nodes=[1, *victims]).attach(net)
    sim.run(until_s=args.warmup)
    before, marks = ejected_B(net), net.counters()
    sim.run(until_s=end_s)
    after, counters = ejected_B(net), net.counters()
    offered = args.victims * VICTIM_LOAD * net.injection_bandwidth_Bps
    victim = (after[1] - before[1]) / args.time
    return {"victim_Bps": victim, "victim_fraction": victim / offered, "hot_Bps": (after[0] - before[0]) / args.time,
            "fecn": counters["fecn_marked"] - marks["fecn_marked"],
            "becn": counters["becn_received"] - marks["becn_received"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", default="dragonfly-3k,megafly-3k")
    parser.add_argument("--sources", type=int, default=48)
    parser.add_argument("--victims", type=int, default=4)
    parser.add_argument("--warmup", type=seconds, default=1e-3)
    parser.add_argument("--time", type=seconds, default=1e-3)
    parser.add_argument("--plot", metavar="FILE.png", help="draw the victims' share of what they offered per case")
    args = parser.parse_args()
    table = {}
    for system in args.systems.split(","):
        print(f"\n{system}: {args.sources} sources at full rate into node 0; {args.victims} victims at "
              f"{VICTIM_LOAD:.0%} each into node 1; measured {args.time * 1e6:.0f} us after {args.warmup * 1e6:.0f} us")
        print(f"{'case':<24} {'victim_GBps':>11} {'of_offered':>10} {'hot_GBps':>9} {'FECN':>7} {'BECN':>7} "
              f"{'wall_s':>7}")
        for name, control, hot in CASES:
            began = time.perf_counter()
            r = run_case(system, control, hot, args)
            table.setdefault(system, []).append((name, r["victim_fraction"]))
            print(f"{name:<24} {r['victim_Bps'] / 1e9:11.2f} {r['victim_fraction']:10.2f} {r['hot_Bps'] / 1e9:9.2f} "
                  f"{r['fecn']:7d} {r['becn']:7d} {time.perf_counter() - began:7.1f}", flush=True)

    if args.plot:
        plot(table, args)


def plot(table: dict, args) -> None:
    """The victims' delivered share of their offered load, per case, grouped by system."""
    cases = [name for name, _ in next(iter(table.values()))]
    title = f"{args.sources} sources into one node, {args.victims} victims beside it"
    with plotstyle.figure(args.plot, panel_in=2.8, title=title) as (fig, axes):
        ax = axes[0, 0]
        plotstyle.grouped_bars(ax, cases, {system: [share for _, share in rows] for system, rows in table.items()})
        ax.set_ylabel("victim throughput / offered (0..1)")
        ax.set_ylim(0, 1.1)
        plotstyle.legend(fig)
    print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()

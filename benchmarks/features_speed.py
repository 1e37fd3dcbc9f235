"""What traffic classes and congestion control cost the packet core: packet-hops/s with each on vs off.

    python benchmarks/features_speed.py [--system dragonfly-3k] [--load 0.5] [--warmup 5us] [--time 10us]
                                        [--repeats 3]

Runs ``ppt traffic``'s measurement (uniform random traffic, serially) with the
same preset as is, with as many VCs as 2 classes hold (``vcs`` 4: the
dragonfly's 2 VCs twice, so the same buffers without the arbiter), with 2 and
4 traffic classes (the traffic in class 0, so every port runs the class
arbiter), with InfiniBand congestion control and
with DCQCN (their defaults), and with 2 classes and InfiniBand control; the
variants alternate, ``--repeats`` times, and
the least CPU time of each counts (CPU time of the whole measurement, set-up
included: on a shared machine wall time says more about the neighbours).
Printed: router traversals per CPU second and the ratio to the run without
either feature.  Results are in
docs/guide/traffic-classes.md.
"""
from __future__ import annotations

import argparse
import time

from ppt.cli.common import seconds
from ppt.drivers.traffic import run_traffic
from ppt.hardware.systems import load_system
from ppt.machine import Machine

VARIANTS = [("off", {}),
            ("off, VCs as 2 classes", {"vcs": 4}),
            ("2 classes", {"traffic_classes": 2}),
            ("4 classes", {"traffic_classes": 4}),
            ("IB congestion control", {"congestion_control": {"scheme": "ib"}}),
            ("DCQCN", {"congestion_control": {"scheme": "dcqcn"}}),
            ("2 classes + IB control", {"traffic_classes": 2, "congestion_control": {"scheme": "ib"}})]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--system", default="dragonfly-3k")
    parser.add_argument("--load", type=float, default=0.5)
    parser.add_argument("--warmup", type=seconds, default=5e-6)
    parser.add_argument("--time", type=seconds, default=10e-6)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    best = {name: None for name, _ in VARIANTS}
    for _ in range(args.repeats):
        for name, network in VARIANTS:
            preset = load_system(args.system)
            preset["network"].update(network)
            began = time.process_time()
            result = run_traffic(Machine(preset, seed=1), "ur", args.load, warmup_s=args.warmup, time_s=args.time,
                                 comm=None)
            result["cpu_s"] = time.process_time() - began
            if best[name] is None or result["cpu_s"] < best[name]["cpu_s"]:
                best[name] = result
    base = best["off"]["router_traversals"] / best["off"]["cpu_s"]
    print(f"{args.system}, ur at load {args.load}, {args.warmup * 1e6:g} + {args.time * 1e6:g} us, "
          f"best of {args.repeats}")
    print(f"{'variant':<24} {'Mhops/cpu_s':>11} {'vs off':>7} {'accepted':>9}")
    for name, _ in VARIANTS:
        r = best[name]
        rate = r["router_traversals"] / r["cpu_s"]
        print(f"{name:<24} {rate / 1e6:11.2f} {rate / base:7.2f} {r['accepted_fraction']:9.3f}")


if __name__ == "__main__":
    main()

"""Memory of the packet network: peak resident size per router and per NIC for a system preset.

    python benchmarks/memory.py slimfly-74k [--load 0.1 --time 1e-6]

Measures the process's peak resident set (``ru_maxrss``) after each phase --
Python and PPT imported, topology built, packet network built (the core's
tables), a short uniform-random run (packets, queues, events) -- and prints
each phase's growth divided by routers and by nodes.  Run one system per
process: the peak of an earlier system would hide a later one's.
"""
from __future__ import annotations

import argparse
import resource

from ppt.hardware.systems import load_system
from ppt.interconnects.topologies.registry import build_topology


def peak_B() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("system")
    parser.add_argument("--load", type=float, default=0.1)
    parser.add_argument("--time", type=float, default=1e-6, help="simulated seconds of traffic (default 1e-6)")
    args = parser.parse_args()
    from ppt.interconnects.networks.packetnet import PacketNetwork
    from ppt.drivers.traffic import TrafficGenerator
    phases = [("imported", peak_B())]
    preset = load_system(args.system)
    topo = build_topology(preset["topology"])
    phases.append(("topology", peak_B()))
    net = PacketNetwork(topo, preset["network"])
    sim = net.simulation(comm=None)
    phases.append(("network", peak_B()))
    TrafficGenerator(net, "ur", args.load).attach(net)
    sim.run(until_s=args.time)
    phases.append((f"{args.time * 1e6:g} us UR {args.load}", peak_B()))
    routers, nodes = topo.num_routers, topo.num_nodes
    print(f"{args.system}: {routers:,} routers (radix {topo.radix}), {nodes:,} nodes, "
          f"{net.num_vcs} VCs, {net.counters()['delivered']:,} packets delivered")
    print(f"{'phase':>16} {'peak_MB':>9} {'growth_MB':>10} {'B/router':>9} {'B/node':>8}")
    last = phases[0][1]
    for name, peak in phases:
        grown = peak - last
        print(f"{name:>16} {peak / 1e6:9.1f} {grown / 1e6:10.1f} {grown / routers:9.0f} {grown / nodes:8.0f}")
        last = peak
    total = phases[-1][1] - phases[0][1]
    print(f"{'all but Python':>16} {'':9} {total / 1e6:10.1f} {total / routers:9.0f} {total / nodes:8.0f}")


if __name__ == "__main__":
    main()

"""Average message latency on the 4-port 3-tree (16 nodes) vs number of messages.

N messages of 1,024 bytes are issued at time 0, spread round-robin over the
16 nodes, to a nearest neighbour (the other node of the same leaf switch) or
to a uniformly random other node; a message's latency runs from its issue to
its delivery, so it includes queueing behind earlier messages at the NIC and
in the switches.  Compares MLID (paths spread over the LIDs of a destination)
with the single-path (d-mod-k) routing.

    python benchmarks/fattree_messages.py [--plot docs/fattree-4-3-messages.png]
"""
from __future__ import annotations

import argparse
import random

from ppt import plotstyle
from ppt.hardware.systems import load_system
from ppt.interconnects.networks.packetnet import PacketNetwork
from ppt.machine import Machine

COUNTS = [500, 1000, 2000, 4000, 8000]
BYTES = 1024


def mean_latency(machine, routing: str, pattern: str, count: int, seed: int = 1) -> float:
    net = PacketNetwork(machine.topology, machine.preset["network"], routing=routing)
    sim = net.simulation(comm=None)
    latencies = []
    for node in net.local_nodes(sim):
        net.nic(sim, node).host = lambda sent_s: latencies.append(sim.now - sent_s)
    rng = random.Random(seed)
    n = net.num_nodes
    for i in range(count):
        src = i % n
        dst = src ^ 1 if pattern == "nn" else rng.choice([d for d in range(n) if d != src])
        net.nic(sim, src).send_message(dst, BYTES, 0.0)
    sim.run()
    assert len(latencies) == count
    return sum(latencies) / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plot")
    args = parser.parse_args()
    machine = Machine(load_system("fattree-4-3"))
    rows = []
    print(f"{'messages':>8} {'pattern':>7} {'routing':>7} {'mean_latency_us':>15}")
    for pattern in ("nn", "random"):
        for routing in ("mlid", "dmodk"):
            for count in COUNTS:
                latency = mean_latency(machine, routing, pattern, count)
                rows.append((pattern, routing, count, latency))
                print(f"{count:>8} {pattern:>7} {routing:>7} {latency * 1e6:15.2f}", flush=True)
    if args.plot:
        plot(rows, args.plot)


def plot(rows, path: str) -> None:
    """Mean latency against message count, a colour per pattern and a marker per line; routings whose
    curves would hide one another are one line saying so (nearest neighbours have one path either way)."""
    names = {"mlid": "MLID", "dmodk": "d-mod-k", "nn": "neighbour", "random": "random"}
    curves = {}
    for pattern, routing in ((p, r) for p in ("nn", "random") for r in ("mlid", "dmodk")):
        pts = [(c, l * 1e6) for p, r, c, l in rows if (p, r) == (pattern, routing)]
        curves[pattern, routing] = (f"{names[pattern]} {names[routing]}", *zip(*pts))
    with plotstyle.figure(path, panel_in=2.6, title="4-port 3-tree (16 nodes), FDR links") as (fig, axes):
        ax = axes[0, 0]
        for (pattern, routing), (label, xs, ys) in plotstyle.distinct(curves).items():
            k, m = ("nn", "random").index(pattern), ("mlid", "dmodk").index(routing)
            ax.plot(xs, ys, color=plotstyle.OKABE_ITO[k], marker=plotstyle.MARKERS[2 * k + m],
                    linestyle=plotstyle.LINESTYLES[m], label=label)
        ax.set(xlabel="messages (1,024 B each)", ylabel="mean message latency (µs)")
        plotstyle.legend(fig, ncol=1)

if __name__ == "__main__":
    main()

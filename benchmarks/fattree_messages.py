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
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 4))
        for pattern in ("nn", "random"):
            for routing in ("mlid", "dmodk"):
                pts = [(c, l * 1e6) for p, r, c, l in rows if (p, r) == (pattern, routing)]
                ax.plot(*zip(*pts), "o-" if routing == "mlid" else "s--", label=f"{pattern} {routing}")
        ax.set(xlabel="messages (1,024 B each)", ylabel="mean message latency (µs)",
               title="4-port 3-tree (16 nodes), FDR links")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)


if __name__ == "__main__":
    main()

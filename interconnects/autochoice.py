"""``--network auto``: run the packet network unless it would take longer than a wall-time budget.

The packet network's cost grows with the packet-hops it simulates (each
packet's router traversals, plus its injection and ejection, counted as one
more).  Before a run, a tool estimates them from what it knows of the
traffic -- the messages a model will send between ranks, or a trace's byte
totals -- and divides by :data:`PACKET_HOPS_PER_S`.  Estimates within
:data:`BUDGET_S` run the packet network, larger ones the flow network
(max-min fair sharing on the same routes, far fewer events).  Same-node
messages never reach the network and cost nothing here.
"""
from __future__ import annotations

import math

#: Packet-hops (as counted here) per second of wall time of an MPI job on the packet network.  Measured:
#: ``ppt replay npb_ft_W_n4 --system edison --ranks-per-node 1`` simulates 1.57 M packets, each crossing one
#: router (1.57 M packet-hops), in about 3 s of its 4.4 s wall time on a 2-core machine shared with another
#: long job (``ppt bench network`` there: 0.83 M router traversals/s of synthetic traffic).  Rounded down.
PACKET_HOPS_PER_S = 5e5
#: Wall time the packet network may take before ``auto`` runs the flow network instead, s.
BUDGET_S = 60.0


class Estimator:
    """Packet-hops of traffic on ``machine``'s packet network, ranks placed on nodes by ``node_of``."""

    def __init__(self, machine, node_of):
        from ppt.config import field
        from ppt.interconnects.network import build_network
        from ppt.interconnects.packetizer import Packetizer
        self.node_of = node_of
        self.packetizer = Packetizer(field(machine.preset["network"], "packet", "network", dict))
        self.hops = build_network("analytic", machine).hops      # router hops of the minimal route

    def packets(self, nbytes: int, count: int) -> int:
        """Packets of ``count`` messages of ``nbytes`` each."""
        return count * self.packetizer.count(nbytes)

    def pairs(self, traffic) -> float:
        """Packet-hops of ``traffic``: ``(source rank, destination rank, bytes, messages)`` groups."""
        node_of, total = self.node_of, 0.0
        for src, dst, nbytes, count in traffic:
            a, b = node_of[src], node_of[dst]
            if a != b:
                total += self.packets(nbytes, count) * (self.hops(a, b) + 1)
        return total

    def uniform(self, messages: int, nbytes: int) -> float:
        """Packet-hops of ``messages`` carrying ``nbytes`` in all, every rank sending to every other alike."""
        node_of = self.node_of
        ranks = len(node_of)
        if ranks < 2 or messages == 0:
            return 0.0
        on_node: dict[int, int] = {}
        for node in node_of:
            on_node[node] = on_node.get(node, 0) + 1
        off_node = sum(ranks - on_node[node] for node in node_of) / (ranks * (ranks - 1))
        others = [node for node in on_node if node != node_of[0]]
        mean_hops = sum(self.hops(node_of[0], node) for node in others) / len(others) if others else 0.0
        mean_B = nbytes // messages
        return off_node * self.packets(mean_B, messages) * (mean_hops + 1)


def choose(packet_hops: float, budget_s: float | None = None) -> tuple[str, str]:
    """``(kind, reason)``: "packet" if its estimated wall time is within ``budget_s`` (default
    :data:`BUDGET_S`), else "flow"."""
    budget_s = BUDGET_S if budget_s is None else budget_s
    estimate_s = packet_hops / PACKET_HOPS_PER_S
    if estimate_s <= budget_s:
        return "packet", (f"packet network: about {packet_hops:.3g} packet-hops, estimated {estimate_s:.3g} s, "
                          f"within the {budget_s:g} s budget")
    return "flow", (f"flow network: the packet network would simulate about {packet_hops:.3g} packet-hops, "
                    f"estimated {estimate_s:.3g} s, over the {budget_s:g} s budget (--network packet forces it)")


def collective_messages(calls: int, ranks: int) -> int:
    """Messages a rank's ``calls`` collective calls send, taken as one per tree level (log2 of ``ranks``)."""
    return calls * max(1, math.ceil(math.log2(max(ranks, 2))))

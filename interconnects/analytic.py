"""A cheap network without contention: time = latency + hops x per-hop + bytes / bandwidth.

Use it to test MPI semantics, or to trade fidelity for speed on any system
preset (``--network analytic``): hop counts then come from the preset's
topology and its minimal routing.
"""
from __future__ import annotations

from ppt.errors import ConfigError
from ppt.config import field
from ppt.interconnects.network import Network, Nic, register_network
from ppt.interconnects.nodememory import NodeMemory


class AnalyticNic(Nic):
    __slots__ = ()

    def send_off_node(self, dst_node, nbytes, payload, on_sent, delay_s=0.0):
        net = self.net
        wire_s = nbytes / net.bandwidth_Bps
        hops = net.hops(self.node, dst_node)
        net.messages += 1
        net.bytes += nbytes
        net.hop_sum += hops
        self.send(net.nic_eid(dst_node), "deliver", payload, net.latency_s + hops * net.per_hop_s + wire_s)
        if on_sent is not None:
            self.schedule(wire_s, _call, on_sent)


def _call(fn):
    fn()


@register_network("analytic")
class AnalyticNetwork(Network):
    """Contention-free network.

    ``latency_s``: fixed end-to-end latency between different nodes (s);
    ``per_hop_s``: added per router hop; ``bandwidth_Bps``: bytes/s of a
    message stream; ``hops(src, dst)``: router hops between nodes (default 0).
    Messages within a node go through its memory (``node_memory``; by default at
    ``bandwidth_Bps`` shared, after ``latency_s``).
    """

    def __init__(self, num_nodes: int, latency_s: float, bandwidth_Bps: float, per_hop_s: float = 0.0,
                 hops=None):
        if num_nodes < 1:
            raise ConfigError(f"a network needs at least one node, got {num_nodes}")
        if not latency_s > 0.0 or not bandwidth_Bps > 0.0 or per_hop_s < 0.0:
            raise ConfigError("analytic network needs latency_s > 0, bandwidth_Bps > 0 and per_hop_s >= 0")
        self.num_nodes = num_nodes
        self.num_entities = num_nodes
        self.latency_s = latency_s
        self.per_hop_s = per_hop_s
        self.bandwidth_Bps = bandwidth_Bps
        self.hops = hops or (lambda src, dst: 0)
        self.node_memory = NodeMemory(bandwidth_Bps, latency_s)
        self.lookahead_s = latency_s
        self.injection_bandwidth_Bps = bandwidth_Bps
        self.messages = self.bytes = self.hop_sum = 0

    @classmethod
    def from_machine(cls, machine) -> "AnalyticNetwork":
        """The contention-free model of a machine: NIC latency, per-hop link+router delay, bottleneck bandwidth."""
        from ppt.interconnects.topology import walk
        topo, net = machine.topology, machine.preset["network"]
        links = topo.network_classes()
        link_latency = min((c.latency_s for c in links), default=0.0)
        link_bw = min((c.bandwidth_Bps for c in links), default=float("inf"))
        terminal = topo.terminal_class()
        nic_bw = field(net, "nic_bandwidth_Bps", "network", float, positive=True)
        # as in the packet model: one NIC traversal and one node link at each end
        latency = 2 * (field(net, "nic_latency_s", "network", float, default=0.0, nonnegative=True)
                       + terminal.latency_s)
        routing = topo.routing(field(net, "routing", "network", str, default="min"))
        cache: dict[tuple[int, int], int] = {}

        def hops(src: int, dst: int) -> int:
            """Router hops of the route between nodes on the idle network (one walk per router pair)."""
            key = (int(topo.node_router[src]), int(topo.node_router[dst]))
            count = cache.get(key)
            if count is None:
                count = cache[key] = len(walk(topo, routing, src, dst)) - 1
            return count

        return cls(topo.num_nodes, latency_s=max(latency, 1e-9),
                   bandwidth_Bps=min(nic_bw, terminal.bandwidth_Bps, link_bw),
                   per_hop_s=link_latency + topo.router_delay_s, hops=hops)

    def idle_latency_bound_s(self, nbytes: int) -> float:
        return 2.0 * (self.latency_s + 64 * self.per_hop_s + nbytes / self.bandwidth_Bps) + 1e-6

    def nic_eid(self, node: int) -> int:
        return node

    def build(self, sim) -> None:
        for node in range(self.num_nodes):
            sim.create(node, AnalyticNic, self, node)

    def stats(self, sim) -> dict:
        return {"messages": self.messages, "bytes": self.bytes, "hops": self.hop_sum}

    @staticmethod
    def merge_stats(parts):
        total = {key: sum(p[key] for p in parts) for key in ("messages", "bytes", "hops")}
        total["mean_hops"] = total["hops"] / total["messages"] if total["messages"] else 0.0
        return total

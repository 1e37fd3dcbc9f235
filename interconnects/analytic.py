"""A cheap network without contention: time = latency + hops x per-hop + bytes / bandwidth.

Use it to test MPI semantics, or to trade fidelity for speed on any system
preset (``--network analytic``): hop counts then come from the preset's
topology and its minimal routing.
"""
from __future__ import annotations

from ppt.errors import ConfigError
from ppt.interconnects.network import Network, Nic


class AnalyticNic(Nic):
    __slots__ = ()

    def send_message(self, dst_node, nbytes, payload, on_sent=None):
        net = self.net
        wire_s = nbytes / net.bandwidth_Bps
        if dst_node == self.node:
            delay = net.local_latency_s + nbytes / net.local_bandwidth_Bps
            hops = 0
        else:
            hops = net.hops(self.node, dst_node)
            delay = net.latency_s + hops * net.per_hop_s + wire_s
        net.messages += 1
        net.bytes += nbytes
        net.hop_sum += hops
        self.send(net.nic_eid(dst_node), "deliver", payload, delay)
        if on_sent is not None:
            self.schedule(wire_s if dst_node != self.node else delay, _call, on_sent)


def _call(fn):
    fn()


class AnalyticNetwork(Network):
    """Contention-free network.

    ``latency_s``: fixed end-to-end latency between different nodes (s);
    ``per_hop_s``: added per router hop; ``bandwidth_Bps``: bytes/s of a
    message stream; ``hops(src, dst)``: router hops between nodes (default 0);
    ``local_latency_s`` / ``local_bandwidth_Bps``: messages within a node.
    """

    def __init__(self, num_nodes: int, latency_s: float, bandwidth_Bps: float, per_hop_s: float = 0.0,
                 hops=None, local_latency_s: float | None = None, local_bandwidth_Bps: float | None = None,
                 eager_threshold_B: int = 8192):
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
        self.local_latency_s = latency_s if local_latency_s is None else local_latency_s
        self.local_bandwidth_Bps = local_bandwidth_Bps or bandwidth_Bps
        self.eager_threshold_B = eager_threshold_B
        self.lookahead_s = latency_s
        self.messages = self.bytes = self.hop_sum = 0

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

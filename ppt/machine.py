"""A simulated machine: a system preset turned into a network model and a node model."""
from __future__ import annotations

from functools import cached_property

from ppt.config import field
from ppt.errors import ConfigError

NETWORK_KINDS = ("packet", "analytic")


class Machine:
    """System preset ``preset`` (a dict from :func:`ppt.hardware.systems.load_system`).

    ``network_kind`` is ``"packet"`` (packet-level model of the preset's
    topology) or ``"analytic"`` (contention-free latency/bandwidth model with
    the same hop counts).
    """

    def __init__(self, preset: dict, network_kind: str = "packet", seed: int = 0):
        if network_kind not in NETWORK_KINDS:
            raise ConfigError(f"unknown network kind {network_kind!r}; choose one of: {', '.join(NETWORK_KINDS)}")
        self.preset = preset
        self.name = preset.get("name", "?")
        self.network_kind = network_kind
        self.seed = seed
        node = preset["node"]
        self.cores_per_node = field(node, "cores", "node", int, positive=True)

    @cached_property
    def topology(self):
        from ppt.interconnects.registry import build_topology
        return build_topology(self.preset["topology"])

    @cached_property
    def node_model(self):
        from ppt.hardware.presets import load_processor
        return load_processor(field(self.preset["node"], "processor", "node", str))

    @property
    def num_nodes(self) -> int:
        return int(self.topology.num_nodes)

    def network(self):
        """A fresh network model (networks hold per-run state)."""
        if self.network_kind == "analytic":
            return analytic_network(self.preset, self.topology)
        from ppt.interconnects.packetnet import PacketNetwork
        return PacketNetwork(self.topology, self.preset["network"], seed=self.seed)


def analytic_network(preset: dict, topo):
    """The contention-free model of a preset: NIC latency, per-hop link+router delay, bottleneck bandwidth."""
    from ppt.interconnects.analytic import AnalyticNetwork
    net = preset["network"]
    links = topo.network_classes()
    link_latency = min((c.latency_s for c in links), default=0.0)
    link_bw = min((c.bandwidth_Bps for c in links), default=float("inf"))
    terminal = topo.terminal_class()
    nic_bw = field(net, "nic_bandwidth_Bps", "network", float, positive=True)
    # as in the packet model: one NIC traversal and one node link at each end
    latency = 2 * (field(net, "nic_latency_s", "network", float, default=0.0) + terminal.latency_s)
    routing = topo.routing(field(net, "routing", "network", str, default="min"))

    from ppt.interconnects.topology import walk
    cache: dict[tuple[int, int], int] = {}

    def hops(src: int, dst: int) -> int:
        """Router hops of the minimal route between nodes (one walk per router pair)."""
        key = (int(topo.node_router[src]), int(topo.node_router[dst]))
        count = cache.get(key)
        if count is None:
            count = cache[key] = len(walk(topo, routing, src, dst)) - 1
        return count

    return AnalyticNetwork(topo.num_nodes, latency_s=max(latency, 1e-9),
                           bandwidth_Bps=min(nic_bw, terminal.bandwidth_Bps, link_bw),
                           per_hop_s=link_latency + topo.router_delay_s, hops=hops,
                           eager_threshold_B=field(net, "eager_threshold_B", "network", int, default=8192))

"""The flow network: every message is one flow on its routed path, links and NICs shared max-min fairly.

A message from node ``s`` to node ``d`` crosses ``s``'s injection (its NIC or
its link to the router, whichever is slower), then every router output port
on the path the topology's minimal routing gives (the last one, the port to
``d``, also bounded by ``d``'s NIC).  Its bytes on the wire (payload plus the
preset's packet headers) move at the max-min fair rate of those resources,
recomputed when any flow sharing them starts or ends
(:mod:`ppt.interconnects.fairshare`).  When the last byte is through, the
sender's buffer is free; the message arrives one path latency later: both
NICs' latency, every link latency and router delay on the path, and the
serialization of the first packet on each link (store and forward).

Where this model class is known to err, and by how much, is in
``docs/flow-network.md``.  The flow network runs in one process (its sharing
couples the whole network).
"""
from __future__ import annotations

import sys

from ppt.config import field
from ppt.engine import Entity
from ppt.errors import ConfigError
from ppt.interconnects.fairshare import FairShare, Resource
from ppt.interconnects.network import Network, Nic, register_network
from ppt.interconnects.packetizer import Packetizer
from ppt.interconnects.packetnet import PacketNetwork
from ppt.interconnects.topology import channels


#: Packets whose routes a flow's path is sampled from (its distinct routes share the flow's bytes).
PATH_SAMPLES = 16


#: (system, routing) pairs whose substitution has been reported on stderr (once per process).
_SAID: set = set()


class FlowNic(Nic):
    __slots__ = ()

    def send_message(self, dst_node, nbytes, payload, on_sent=None):
        net = self.net
        if dst_node == self.node:
            net.node_memory.copy(self, nbytes, payload, on_sent)
            return
        path = net.path(self.node, dst_node)
        net.messages += 1
        net.bytes += nbytes
        net.hop_sum += path.hops
        packetizer = net.packetizer
        latency = path.latency_s + path.packet_s * packetizer.size(min(nbytes, packetizer.max_payload_B))
        message = [len(path.routes), dst_node, payload, on_sent, latency]
        part_B = packetizer.wire_bytes(nbytes) / len(path.routes)
        start, done = net.share.start, net.part_done
        for resources in path.routes:
            start(resources, part_B, done, message)


class Path:
    """The routes between two nodes (each a tuple of the resources it crosses; a message's bytes are
    split evenly over them), router hops, and the fixed latency (s) of the longest route;
    ``packet_s``: seconds per byte of one packet stored and forwarded on every link of it."""

    __slots__ = ("routes", "hops", "latency_s", "packet_s")

    def __init__(self, routes, hops, latency_s, packet_s):
        self.routes = routes
        self.hops = hops
        self.latency_s = latency_s
        self.packet_s = packet_s


@register_network("flow")
class FlowNetwork(Network):
    """Flow-level model of ``topology`` routed by ``routing`` (see module docstring).

    ``nic_bandwidth_Bps`` / ``nic_latency_s``: each NIC's bandwidth and its
    latency (charged at both ends); ``packetizer``: packet headers on the wire.
    """

    def __init__(self, topology, routing, nic_bandwidth_Bps: float, nic_latency_s: float, packetizer: Packetizer):
        self.topo = topology
        self.routing = routing
        self.nic_bandwidth_Bps = nic_bandwidth_Bps
        self.nic_latency_s = nic_latency_s
        self.packetizer = packetizer
        self.num_nodes = int(topology.num_nodes)
        self.num_entities = self.num_nodes + 1           # the NICs, then the solver
        self.injection_bandwidth_Bps = min(nic_bandwidth_Bps, topology.terminal_class().bandwidth_Bps)
        self.lookahead_s = min((c.latency_s for c in topology.network_classes()), default=0.0)
        self._paths: dict[tuple[int, int], Path] = {}
        self._resources: dict[int, Resource] = {}
        self.share = None
        self.messages = self.bytes = self.hop_sum = 0

    @classmethod
    def from_machine(cls, machine) -> "FlowNetwork":
        topo, cfg = machine.topology, machine.preset["network"]
        asked = field(cfg, "routing", "network", str, default="min")
        routing = topo.routing(asked, seed=machine.seed)
        if routing.spec is not topo.routing("min").spec:
            if (machine.name, asked) not in _SAID:
                _SAID.add((machine.name, asked))
                print(f"flow network: routing {asked!r} adapts or takes non-minimal paths; flows use the "
                      f"'min' routing instead", file=sys.stderr)
            routing = topo.routing("min", seed=machine.seed)
        return cls(topo, routing,
                   nic_bandwidth_Bps=field(cfg, "nic_bandwidth_Bps", "network", float, positive=True),
                   nic_latency_s=field(cfg, "nic_latency_s", "network", float, default=0.0, nonnegative=True),
                   packetizer=Packetizer(field(cfg, "packet", "network", dict)))

    # -- entities -----------------------------------------------------------------
    def nic_eid(self, node: int) -> int:
        return node

    def build(self, sim) -> None:
        if sim.size > 1:
            raise ConfigError("the flow network runs in one process: run it without mpiexec")
        for node in range(self.num_nodes):
            sim.create(node, FlowNic, self, node)
        self.share = FairShare(sim.create(self.num_nodes, Entity, "flows"))

    def part_done(self, message) -> None:
        """One route's share of a message is through; after the last, free the sender's buffer and
        deliver one latency later."""
        message[0] -= 1
        if message[0]:
            return
        _, dst_node, payload, on_sent, latency = message
        self.share.entity.send(dst_node, "deliver", payload, latency)
        if on_sent is not None:
            on_sent()

    # -- paths --------------------------------------------------------------------------
    def path(self, src: int, dst: int) -> Path:
        """The path between nodes ``src`` and ``dst`` (computed once per pair)."""
        key = (src, dst)
        path = self._paths.get(key)
        if path is None:
            path = self._paths[key] = self._route(src, dst)
        return path

    def _route(self, src: int, dst: int) -> Path:
        """Every distinct route among ``PATH_SAMPLES`` packets' (the routing's random choices, such as
        which of two equally short ways round a torus ring, are made per packet)."""
        routes, longest = {}, (0.0, 0.0)
        hops = 0
        for sample in range(PATH_SAMPLES):
            taken = tuple(channels(self.topo, self.routing, src, dst, uid=(src * self.num_nodes + dst) * PATH_SAMPLES
                                   + sample))
            if taken in routes:
                continue
            resources, latency_s, packet_s = self._resources_of(src, taken)
            routes[taken] = resources
            longest = max(longest, (latency_s, packet_s))
            hops = len(taken) - 1
        return Path(tuple(routes.values()), hops, *longest)

    def _resources_of(self, src: int, taken) -> tuple[tuple, float, float]:
        """Resources, fixed latency (s) and per-byte packet serialization (s/B) of the channels ``taken``."""
        topo = self.topo
        radix, classes = topo.radix, topo.link_classes
        terminal = topo.terminal_class()
        resources = [self._resource(src, self.injection_bandwidth_Bps)]
        latency = 2 * self.nic_latency_s + terminal.latency_s + topo.router_delay_s
        packet_s = 1.0 / self.injection_bandwidth_Bps
        for router, port, _ in taken:
            link = classes[int(topo.port_class[router, port])]
            last = int(topo.port_peer[router, port]) < 0
            bandwidth = min(link.bandwidth_Bps, self.nic_bandwidth_Bps) if last else link.bandwidth_Bps
            resources.append(self._resource(self.num_nodes + router * radix + port, bandwidth))
            latency += link.latency_s + (0.0 if last else topo.router_delay_s)
            packet_s += 1.0 / bandwidth
        return tuple(resources), latency, packet_s

    def _resource(self, rid: int, capacity_Bps: float) -> Resource:
        resource = self._resources.get(rid)
        if resource is None:
            resource = self._resources[rid] = Resource(rid, capacity_Bps)
        return resource

    # -- contract ------------------------------------------------------------------------
    #: The packet network's bound holds here: the same path delays, no queueing on an idle network.
    idle_crossing_s = PacketNetwork.idle_crossing_s
    idle_latency_bound_s = PacketNetwork.idle_latency_bound_s

    def stats(self, sim) -> dict:
        share = self.share
        return {"messages": self.messages, "bytes": self.bytes, "hops": self.hop_sum,
                "reshares": share.reshares, "reshared_flows": share.reshared_flows,
                "local_copies": self.node_memory.copies, "local_bytes": self.node_memory.bytes}

    @staticmethod
    def merge_stats(parts):
        total = dict(parts[0])
        total["mean_hops"] = total["hops"] / total["messages"] if total["messages"] else 0.0
        return total

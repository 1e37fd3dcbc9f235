"""A cheap network without contention: time = latency + hops x per-hop + bytes / bandwidth.

Use it to test MPI semantics, or to trade fidelity for speed on any system
preset (``--network analytic``): each node pair's path then comes from the
preset's topology and routing on an idle network (walked once per router
pair), with that path's own latency and bottleneck bandwidth (the slowest of
the NICs and links it crosses) and the bytes the packets put on the wire.
"""
from __future__ import annotations

import numpy as np

from ppt.errors import ConfigError
from ppt.interconnects.networks.network import Network, Nic, register_network
from ppt.interconnects.networks.nodememory import NodeMemory


#: Packets whose routes make a node pair's path (see routes_Bps), as the flow network samples 16.
ROUTE_SAMPLES = 16


class AnalyticNic(Nic):
    __slots__ = ()

    def send_off_node(self, dst_node, nbytes, payload, on_sent, delay_s=0.0):
        net = self.net
        hops, latency_s, bandwidth_Bps = net.path(self.node, dst_node)
        wire_s = net.wire_bytes(nbytes) / bandwidth_Bps
        net.messages += 1
        net.bytes += nbytes
        net.hop_sum += hops
        self.send(net.nic_eid(dst_node), "deliver", payload, latency_s + wire_s)
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
    ``path(src, dst)``, if given, replaces all three per node pair: it returns
    ``(hops, latency_s, bandwidth_Bps)`` of the pair's path (``bandwidth_Bps``
    then bounds only same-node copies and the lookahead); ``wire_bytes(nbytes)``
    gives the bytes a message puts on the wire (default: ``nbytes``).
    Messages within a node go through its memory (``node_memory``; by default at
    ``bandwidth_Bps`` shared, after ``latency_s``).
    """

    def __init__(self, num_nodes: int, latency_s: float, bandwidth_Bps: float, per_hop_s: float = 0.0,
                 hops=None, path=None, wire_bytes=None):
        if num_nodes < 1:
            raise ConfigError(f"a network needs at least one node, got {num_nodes}")
        if not latency_s > 0.0 or not bandwidth_Bps > 0.0 or per_hop_s < 0.0:
            raise ConfigError("analytic network needs latency_s > 0, bandwidth_Bps > 0 and per_hop_s >= 0")
        self.num_nodes = num_nodes
        self.num_entities = num_nodes
        self.latency_s = latency_s
        self.per_hop_s = per_hop_s
        self.bandwidth_Bps = bandwidth_Bps
        #: Every node pair's path is the same (no ``hops`` or ``path`` given), and a message's wire bytes
        #: are its bytes (no ``wire_bytes``): what the compiled MPI engine computes without asking.
        self.uniform = hops is None and path is None
        self.wire_identity = wire_bytes is None
        self.hops = hops or (lambda src, dst: 0)
        self.path = path or (lambda src, dst: (h := self.hops(src, dst), latency_s + h * per_hop_s, bandwidth_Bps))
        self.wire_bytes = wire_bytes or (lambda nbytes: nbytes)
        self.node_memory = NodeMemory(bandwidth_Bps, latency_s)
        self.lookahead_s = latency_s
        self.injection_bandwidth_Bps = bandwidth_Bps
        #: The slowest bandwidth any path may have (bytes/s): the idle latency bound's.
        self.slowest_Bps = bandwidth_Bps
        self.messages = self.bytes = self.hop_sum = 0

    @classmethod
    def from_machine(cls, machine) -> "AnalyticNetwork":
        """The contention-free model of a machine: per node pair, the latency of its routed path
        (both NICs, every link latency and router delay, as in the packet model) and the bandwidth
        of its slowest part (either NIC, either node link, every router-to-router link it crosses),
        which carries the message's bytes on the wire (payload and packet headers)."""
        from ppt.interconnects.topologies.topology import channels
        topo, settings = machine.topology, machine.network_settings
        links = topo.network_classes()
        link_latency = min((c.latency_s for c in links), default=0.0)
        terminal = topo.terminal_class()
        nic_bw, nic_latency, packetizer = settings.nic_bandwidth_Bps, settings.nic_latency_s, settings.packetizer
        settings.routing_options(topo, settings.routing)      # refuses a setting no routing of the topology takes
        routing = topo.routing(settings.routing, seed=machine.seed)
        adaptive = routing.adaptive           # a lone message spreads over several paths
        packet_B = settings.packet_B
        class_bw = [c.bandwidth_Bps for c in topo.link_classes]
        class_latency = [c.latency_s for c in topo.link_classes]
        router_delay = topo.router_delay_s
        cache: dict[tuple[int, int], tuple] = {}

        def node_link(node: int) -> int:
            return int(topo.port_class[topo.node_router[node], topo.node_port[node]])

        def routes_Bps(src: int, dst: int) -> float:
            """Bytes/s the routing can move from src's router to dst's on an otherwise idle network.

            The routes of ROUTE_SAMPLES packets (uids 0, 1, ...) are walked.  An oblivious routing
            spreads packets over its distinct routes evenly (ties broken by a hash of the uid, as the
            torus's two E links or Gemini's paired links), so each route carries an equal share and
            the port with the most shares per byte/s sets the rate.  An adaptive routing (UGAL-L, PAR,
            adaptive torus) sends a lone message's packets wherever queues are short: its packets are
            also walked against the bytes the earlier ones put on each port, and the rate is the maximum
            flow over all the routes found."""
            load: dict[tuple[int, int], int] = {}

            def occupancy(hops, router):
                view = np.zeros(topo.radix)
                for (r, p), count in load.items():
                    if r == router:
                        view[p] = count * packet_B
                return view

            routes = set()
            for uid in range(ROUTE_SAMPLES):
                routes.add(tuple((r, p) for r, p, _ in channels(topo, routing, src, dst, uid)[:-1]))
            if adaptive:
                for uid in range(ROUTE_SAMPLES):
                    taken = channels(topo, routing, src, dst, uid, occupancy=occupancy)[:-1]
                    routes.add(tuple((r, p) for r, p, _ in taken))
                    for r, p, _ in taken:
                        load[(r, p)] = load.get((r, p), 0) + 1
                return max_flow_Bps(routes, int(topo.node_router[src]), int(topo.node_router[dst]))
            shares: dict[tuple[int, int], int] = {}
            for route in routes:
                for port in route:
                    shares[port] = shares.get(port, 0) + 1
            return len(routes) / max(count / bandwidth(port) for port, count in shares.items())

        def bandwidth(port: tuple[int, int]) -> float:
            return class_bw[int(topo.port_class[port])]

        def max_flow_Bps(routes, source: int, sink: int) -> float:
            """Maximum flow (bytes/s) from router source to router sink over the links of `routes`."""
            capacity: dict[int, dict[int, float]] = {}
            for r, p in {port for route in routes for port in route}:     # parallel links add up
                peer = int(topo.port_peer[r, p])
                capacity.setdefault(r, {})[peer] = capacity.get(r, {}).get(peer, 0.0) + bandwidth((r, p))
                capacity.setdefault(peer, {}).setdefault(r, 0.0)
            total = 0.0
            while True:                                   # Edmonds-Karp: shortest augmenting path first
                parent, frontier = {source: None}, [source]
                while frontier and sink not in parent:
                    nxt = []
                    for u in frontier:
                        for v, c in capacity[u].items():
                            if c > 0.0 and v not in parent:
                                parent[v] = u
                                nxt.append(v)
                    frontier = nxt
                if sink not in parent:
                    return total
                v, flow = sink, float("inf")
                while parent[v] is not None:
                    flow = min(flow, capacity[parent[v]][v])
                    v = parent[v]
                v = sink
                while parent[v] is not None:
                    capacity[parent[v]][v] -= flow
                    capacity[v][parent[v]] += flow
                    v = parent[v]
                total += flow

        def path(src: int, dst: int) -> tuple[int, float, float]:
            """(router hops, latency (s), bottleneck bytes/s) of the route from node src to node dst on
            the idle network; its router-to-router part is walked once per router pair."""
            key = (int(topo.node_router[src]), int(topo.node_router[dst]))
            inner = cache.get(key)
            if inner is None:
                taken = channels(topo, routing, src, dst)[:-1]      # router-to-router channels
                classes = [int(topo.port_class[r, p]) for r, p, _ in taken]
                rate_Bps = routes_Bps(src, dst) if taken else float("inf")
                inner = cache[key] = (len(taken), sum(class_latency[c] + router_delay for c in classes), rate_Bps)
            hops, inner_latency, inner_bw = inner
            first, last = node_link(src), node_link(dst)
            latency = (2 * nic_latency + class_latency[first] + router_delay + inner_latency
                       + class_latency[last])
            return hops, max(latency, 1e-9), min(nic_bw, class_bw[first], class_bw[last], inner_bw)

        network = cls(topo.num_nodes, latency_s=max(2 * (nic_latency + terminal.latency_s), 1e-9),
                      bandwidth_Bps=min(nic_bw, terminal.bandwidth_Bps), per_hop_s=link_latency + router_delay,
                      hops=lambda src, dst: path(src, dst)[0], path=path, wire_bytes=packetizer.wire_bytes)
        network.slowest_Bps = min([nic_bw, *class_bw])
        return network

    def idle_latency_bound_s(self, nbytes: int) -> float:
        return 2.0 * (self.latency_s + 64 * self.per_hop_s + self.wire_bytes(nbytes) / self.slowest_Bps) + 1e-6

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

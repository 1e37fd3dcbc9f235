"""The flow network: every message is one flow on its routed path, links and NICs shared max-min fairly.

A message from node ``s`` to node ``d`` crosses ``s``'s injection (its NIC or
its link to the router, whichever is slower), then every router output port
on the path the topology's minimal routing gives (the last one, the port to
``d``, also bounded by ``d``'s NIC).  Its bytes on the wire (payload plus the
preset's packet headers) move at the max-min fair rate of those resources,
recomputed when any flow sharing them starts or ends
(:mod:`ppt.interconnects.fairshare`).  Messages keep the order the packet
network's FIFOs give them: where it has credit flow control (the preset sets
``network.buffer_B`` or ``vc_buffer_B``), a NIC whose message cannot advance
is held by back-pressure, so a node's messages move one at a time, in the
order they were sent; with unbounded buffers the NIC never waits, but every
port is a FIFO, so a message waits behind the earlier messages of its node
pair.  When the last byte is through, the sender's buffer is free; the
message arrives one path latency later: both NICs' latency, every link
latency and router delay on the path, and the serialization of the first
packet on each link but the slowest (the fill time of the packet network's
store-and-forward pipeline; the slowest link's share is in the bytes' time).

Where this model class is known to err, and by how much, is in
``docs/flow-network.md``.  The flow network runs in one process (its sharing
couples the whole network).
"""
from __future__ import annotations

import sys

import numpy as np

from ppt.config import field
from ppt.engine import Entity
from ppt.errors import ConfigError
from ppt.interconnects.fairshare import FairShare
from ppt.interconnects.network import Network, Nic, register_network
from ppt.interconnects.packetcore import array, ffi, lib
from ppt.interconnects.packetizer import Packetizer
from ppt.interconnects.packetnet import PacketNetwork, _vc_capacity_B


#: Packets whose routes a flow's path is sampled from (its distinct routes share the flow's bytes).
PATH_SAMPLES = 16


#: (system, routing) pairs whose substitution has been reported on stderr (once per process).
_SAID: set = set()


class FlowNic(Nic):
    __slots__ = ()

    def send_off_node(self, dst_node, nbytes, payload, on_sent, delay_s=0.0):
        net = self.net
        path, hops, latency_s, packet_s_per_B, queue = net.path(self.node, dst_node)
        net.messages += 1
        net.bytes += nbytes
        net.hop_sum += hops
        packetizer = net.packetizer
        latency = latency_s + packet_s_per_B * packetizer.size(min(nbytes, packetizer.max_payload_B))
        net.share.start(path, packetizer.wire_bytes(nbytes), net.message_done, (dst_node, payload, on_sent, latency),
                        queue=queue)


@register_network("flow")
class FlowNetwork(Network):
    """Flow-level model of ``topology`` routed by ``routing`` (see module docstring).

    ``nic_bandwidth_Bps`` / ``nic_latency_s``: each NIC's bandwidth and its
    latency (charged at both ends); ``packetizer``: packet headers on the wire; ``backpressure``:
    the packet network it stands for has credit flow control (see module docstring).
    """

    def __init__(self, topology, routing, nic_bandwidth_Bps: float, nic_latency_s: float, packetizer: Packetizer,
                 backpressure: bool = False):
        self.topo = topology
        self.routing = routing
        self.nic_bandwidth_Bps = nic_bandwidth_Bps
        self.nic_latency_s = nic_latency_s
        self.packetizer = packetizer
        self.backpressure = backpressure
        self.num_nodes = int(topology.num_nodes)
        self.num_entities = self.num_nodes + 1           # the NICs, then the solver
        self.injection_bandwidth_Bps = min(nic_bandwidth_Bps, topology.terminal_class().bandwidth_Bps)
        self.rail_bandwidth_Bps = self.injection_bandwidth_Bps     # one rail per node (idle_crossing_s)
        self.lookahead_s = min((c.latency_s for c in topology.network_classes()), default=0.0)
        self._paths: dict[tuple[int, int], tuple] = {}
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
        packetizer = Packetizer(field(cfg, "packet", "network", dict))
        return cls(topo, routing,
                   nic_bandwidth_Bps=field(cfg, "nic_bandwidth_Bps", "network", float, positive=True),
                   nic_latency_s=field(cfg, "nic_latency_s", "network", float, default=0.0, nonnegative=True),
                   packetizer=packetizer,
                   backpressure=_vc_capacity_B(cfg, routing.num_vcs, packetizer.size(packetizer.max_payload_B))
                   is not None)

    # -- entities -----------------------------------------------------------------
    def nic_eid(self, node: int) -> int:
        return node

    def build(self, sim) -> None:
        if sim.size > 1:
            raise ConfigError("the flow network runs in one process: run it without mpiexec")
        for node in range(self.num_nodes):
            sim.create(node, FlowNic, self, node)
        self.share = FairShare(sim.create(self.num_nodes, Entity, "flows"), self._capacities_Bps())
        self._walk_tables = self._tables()

    def message_done(self, message) -> None:
        """A message's last byte is through: free the sender's buffer and deliver one latency later."""
        dst_node, payload, on_sent, latency = message
        self.share.entity.send(dst_node, "deliver", payload, latency)
        if on_sent is not None:
            on_sent()

    # -- paths --------------------------------------------------------------------------
    def path(self, src: int, dst: int) -> tuple:
        """``(path id, router hops, fixed latency (s), packet store-and-forward (s/B), queue)`` between
        nodes ``src`` and ``dst`` (walked once per pair, by the compiled core); the queue orders the
        messages as the module docstring says: per source node under back-pressure, else per pair."""
        key = (src, dst)
        path = self._paths.get(key)
        if path is None:
            found = lib.ppt_flow_route(self.share.c, self._walk_tables, self.routing.c, src, dst, PATH_SAMPLES,
                                       (src * self.num_nodes + dst) * PATH_SAMPLES)
            if found.path < 0:
                raise ConfigError(f"flow network: routing {self.routing.name!r} does not lead from node {src} "
                                  f"to node {dst}")
            queue = src if self.backpressure else len(self._paths)
            path = self._paths[key] = (found.path, found.hops, found.latency_s, found.packet_s_per_B, queue)
        return path

    def _capacities_Bps(self) -> np.ndarray:
        """Capacity of every resource (bytes/s), numbered as ``csrc/flowroute.h`` says: each node's
        injection, then every router port (a port to a node also bounded by that node's NIC)."""
        topo = self.topo
        bandwidth = np.array([c.bandwidth_Bps for c in topo.link_classes])
        used = topo.port_class >= 0
        ports = np.where(used, bandwidth[np.where(used, topo.port_class, 0)], 1.0)   # unused slots: never crossed
        ports = np.where(used & (topo.port_peer < 0), np.minimum(ports, self.nic_bandwidth_Bps), ports)
        return np.concatenate([np.full(self.num_nodes, self.injection_bandwidth_Bps), ports.ravel()])

    def _tables(self):
        """The ``ppt_flow_topo_t`` walks read (its arrays kept alive beside it)."""
        topo = self.topo
        latency = np.array([c.latency_s for c in topo.link_classes])
        arrays = {"node_router": array("int32_t", topo.node_router),
                  "port_peer": array("int32_t", topo.port_peer.ravel()),
                  "port_peer_port": array("int32_t", topo.port_peer_port.ravel()),
                  "port_latency_s": array("double", np.where(topo.port_class >= 0, latency[topo.port_class], 0.0)
                                          .ravel())}
        tables = ffi.new("ppt_flow_topo_t *")
        for name, values in arrays.items():
            setattr(tables, name, values)
        tables.num_nodes, tables.radix = self.num_nodes, int(topo.radix)
        tables.fixed_latency_s = 2 * self.nic_latency_s + topo.terminal_class().latency_s + topo.router_delay_s
        tables.router_delay_s = topo.router_delay_s
        self._table_arrays = arrays
        return tables

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

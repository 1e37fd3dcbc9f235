"""The flow network: every message is one flow on its routed path, links and NICs shared max-min fairly.

A message from node ``s`` to node ``d`` crosses ``s``'s injection (its NIC or
its link to the router, whichever is slower), then every router output port
on the path the preset's routing gives (the last one, the port to ``d``, also
bounded by ``d``'s NIC).  An oblivious routing's path is walked once per node
pair.  Under a routing that adapts to load (UGAL-L, PAR, the torus's adaptive
routing) the packet network decides per packet, so each message is cut into
up to :data:`ADAPTIVE_CHUNKS` chunks, each walked by the same compiled routing
when the message is sent, seeing as each output port's occupancy the bytes
the flows crossing it still have to move (the earlier chunks' included): the
committed bytes UGAL-L weighs against a path's hops.  A message's bytes on
the wire (payload plus the preset's packet headers) move at the max-min fair
rate of those resources, recomputed when any flow sharing them starts or ends
(:mod:`ppt.interconnects.networks.fairshare`).  Messages keep the order the packet
network's FIFOs give them: where it has credit flow control (the preset sets
``network.buffer_B`` or ``vc_buffer_B``), a NIC whose message cannot advance
is held by back-pressure, so a node's messages move one at a time, in the
order they were sent, but a NIC is done with a message once the rest of it
fits in the first router's input buffer (the NIC's credits, one VC's
``vc_buffer_B``): the sender's buffer is then free, the NIC's next message
starts, and those last bytes go on over the path past the NIC.  With
unbounded buffers the NIC never waits, but every port is a FIFO, so a
message waits behind the earlier messages of its node pair, and the sender's
buffer is free when the last byte is through.  A message arrives one path
latency after its last byte is through: both NICs' latency, every link
latency and router delay on the path, and the serialization of the first
packet on each link but the slowest (the fill time of the packet network's
store-and-forward pipeline; the slowest link's share is in the bytes' time),
or where it cuts through (``network.cut_through``) the headers' part of it.

Where this model class is known to err, and by how much, is in
``docs/flow-network.md``.  The flow network runs in one process (its sharing
couples the whole network).
"""
from __future__ import annotations

import sys

import numpy as np

from ppt.engine import Entity
from ppt.errors import ConfigError
from ppt.interconnects.networks.fairshare import FairShare
from ppt.interconnects.networks.network import Network, Nic, register_network
from ppt.interconnects.core import array, ffi, lib
from ppt.interconnects.networks.packetizer import Packetizer
from ppt.interconnects.networks.packetnet import PacketNetwork


#: Packets whose routes a flow's path is sampled from (its distinct routes share the flow's bytes).
PATH_SAMPLES = 16


#: Chunks a message is routed as, at most, under an adaptive routing (one per packet below that).
ADAPTIVE_CHUNKS = 8

#: (system, routing) pairs whose handling has been reported on stderr (once per process).
_SAID: set = set()

_MASK64 = (1 << 64) - 1


class FlowNic(Nic):
    __slots__ = ()

    def send_off_node(self, dst_node, nbytes, payload, on_sent, delay_s=0.0):
        net = self.net
        packetizer = net.packetizer
        path, hops, latency_s, packet_s_per_B, queue = net.route(self.node, dst_node, nbytes)
        net.messages += 1
        net.bytes += nbytes
        net.hop_sum += hops
        latency = latency_s + packet_s_per_B * packetizer.size(min(nbytes, packetizer.max_payload_B))
        wire_B = packetizer.wire_bytes(nbytes)
        ahead_B = net.nic_buffer_B
        if ahead_B and wire_B > ahead_B:             # the NIC is free once the rest fits in the buffer ahead
            net.share.start(path, wire_B - ahead_B, net.injected, (path, ahead_B, dst_node, payload, on_sent, latency),
                            queue=queue)
            return
        net.share.start(path, wire_B, net.message_done, (dst_node, payload, on_sent, latency), queue=queue)


@register_network("flow")
class FlowNetwork(Network):
    """Flow-level model of ``topology`` routed by ``routing`` (see module docstring).

    ``nic_bandwidth_Bps`` / ``nic_latency_s``: each NIC's bandwidth and its
    latency (charged at both ends); ``packetizer``: packet headers on the wire; ``backpressure``:
    the packet network it stands for has credit flow control, with ``nic_buffer_B`` bytes of
    buffer per VC of a router's input port from its NIC (see module docstring).
    """

    def __init__(self, topology, routing, nic_bandwidth_Bps: float, nic_latency_s: float, packetizer: Packetizer,
                 backpressure: bool = False, chunks: int = ADAPTIVE_CHUNKS, nic_buffer_B: int = 0,
                 cut_through: bool = False):
        self.topo = topology
        self.cut_through = cut_through
        self.routing = routing
        #: Chunks a message is routed as, at most, if the routing adapts to load (0: it does not).
        self.chunks = chunks if routing.adaptive else 0
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
        self._pair_queues: dict[tuple[int, int], int] = {}
        self._chunk_paths: dict[tuple, int] = {}
        self._sent = [0] * self.num_nodes
        self._rids = ffi.new("int32_t[]", max(self.chunks, 1) * lib.PPT_FLOW_MAX_ROUTE)
        self._lengths = ffi.new("int32_t[]", max(self.chunks, 1))
        #: Bytes of a message that fit past its NIC, in the first router's input buffer (the NIC's
        #: credits); 0 without back-pressure.
        self.nic_buffer_B = nic_buffer_B if backpressure else 0
        self._past_nic: dict[int, int] = {}
        self.share = None
        self.messages = self.bytes = self.hop_sum = 0

    @classmethod
    def from_machine(cls, machine) -> "FlowNetwork":
        topo, settings = machine.topology, machine.network_settings
        asked = settings.routing
        # UGAL-L weighs a chunk against flow backlogs with its default bias, whatever network.ugal_bias_packets
        # says: that bias tolerates the short queues single packets meet, and a flow backlog has no such
        # noise.  With Edison's 24 packets the chunks of SNAP's 384-core run stayed minimal and the flow
        # network read 21.7 % slow against the packet network; with the default it reads 1.3 % slow.
        settings.routing_options(topo, asked)       # refuses a setting no routing of the topology takes
        routing = topo.routing(asked, seed=machine.seed)
        if routing.adaptive and (machine.name, asked) not in _SAID:
            _SAID.add((machine.name, asked))
            print(f"flow network: routing {asked!r} adapts to load; each message is routed as up to "
                  f"{ADAPTIVE_CHUNKS} chunks, each walked by the routing against the bytes the flows still "
                  f"have to move through each port", file=sys.stderr)
        vc_capacity_B = settings.vc_capacity_B(routing)     # the packet network's rule, so both hold as much
        return cls(topo, routing, nic_bandwidth_Bps=settings.nic_bandwidth_Bps,
                   nic_latency_s=settings.nic_latency_s, packetizer=settings.packetizer,
                   backpressure=vc_capacity_B is not None, chunks=ADAPTIVE_CHUNKS, nic_buffer_B=vc_capacity_B or 0,
                   cut_through=settings.cut_through)

    #: Share each port among its input ports first, then among each input's flows (as the packet
    #: network's round-robin arbitration serves input ports), instead of max-min among flows.  Off:
    #: on dragonfly-booksim it reproduces one allreduce step exactly but leaves the 1,024-rank
    #: allreduce +19% (docs/flow-vs-packet.md); ``benchmarks/flow_vs_packet.py --local-fairness``.
    local_fairness = False

    # -- entities -----------------------------------------------------------------
    def nic_eid(self, node: int) -> int:
        return node

    def build(self, sim) -> None:
        if sim.size > 1:
            raise ConfigError("the flow network runs in one process: run it without mpiexec")
        for node in range(self.num_nodes):
            sim.create(node, FlowNic, self, node)
        self.share = FairShare(sim.create(self.num_nodes, Entity, "flows"), self._capacities_Bps(),
                               local=self.local_fairness)
        self._walk_tables = self._tables()

    def injected(self, message) -> None:
        """All but a message's last ``ahead_B`` bytes are through: its last packet has left the NIC,
        so the sender's buffer is free and the NIC's next message starts; those bytes go on from the
        first router's input buffer, over the path past the NIC."""
        path, ahead_B, dst_node, payload, on_sent, latency = message
        if on_sent is not None:
            on_sent()
        past = self._past_nic.get(path)
        if past is None:
            past = self._past_nic[path] = self.share.path([route[1:] for route in self.share.routes(path)])
        self.share.start(past, ahead_B, self.message_done, (dst_node, payload, None, latency))

    def message_done(self, message) -> None:
        """A message's last byte is through: free the sender's buffer and deliver one latency later."""
        dst_node, payload, on_sent, latency = message
        self.share.entity.send(dst_node, "deliver", payload, latency)
        if on_sent is not None:
            on_sent()

    # -- paths --------------------------------------------------------------------------
    def route(self, src: int, dst: int, nbytes: int) -> tuple:
        """``(path id, router hops, fixed latency (s), packet store-and-forward (s/B), queue)`` of a
        message of ``nbytes`` payload bytes from node ``src`` to node ``dst`` sent now: the pair's
        path (:meth:`path`), or under an adaptive routing its own (:meth:`chunk_path`)."""
        if self.chunks:
            return self.chunk_path(src, dst, nbytes)
        return self.path(src, dst)

    def path(self, src: int, dst: int) -> tuple:
        """:meth:`route` between nodes ``src`` and ``dst`` on an idle network (walked once per pair, by
        the compiled core)."""
        key = (src, dst)
        path = self._paths.get(key)
        if path is None:
            found = lib.ppt_flow_route(self.share.c, self._walk_tables, self.routing.c, src, dst, PATH_SAMPLES,
                                       (src * self.num_nodes + dst) * PATH_SAMPLES, self._packet_B())
            self._check(found, src, dst)
            path = self._paths[key] = (found.path, found.hops, found.latency_s, found.packet_s_per_B,
                                       self._queue(src, dst))
        return path

    def chunk_path(self, src: int, dst: int, nbytes: int) -> tuple:
        """:meth:`route` under an adaptive routing: the message's bytes on the wire are cut into up to
        ``chunks`` equal chunks (one per packet if it has fewer), each walked by the routing now,
        seeing as a port's occupancy the bytes the flows still have to move through it (its earlier
        chunks included).  Random choices use the uid the packet core gives the chunk's first packet."""
        packetizer = self.packetizer
        npackets = packetizer.count(nbytes)
        chunks = min(self.chunks, npackets)
        self._sent[src] += 1
        uid0 = (((src << 32) | self._sent[src]) << 24) & _MASK64
        found = lib.ppt_flow_route_chunks(self.share.c, self._walk_tables, self.routing.c, src, dst, chunks,
                                          packetizer.wire_bytes(nbytes) / chunks, self._packet_B(), uid0, npackets,
                                          self.share.entity.sim.now, self._rids, self._lengths)
        self._check(found, src, dst)
        lengths = tuple(ffi.unpack(self._lengths, chunks))
        key = (lengths, ffi.buffer(self._rids, 4 * sum(lengths))[:])
        path = self._chunk_paths.get(key)
        if path is None:
            rids, ends = ffi.unpack(self._rids, sum(lengths)), np.cumsum(lengths)
            path = self._chunk_paths[key] = self.share.path([rids[end - n:end] for n, end in zip(lengths, ends)])
        return path, found.hops, found.latency_s, found.packet_s_per_B, self._queue(src, dst)

    def _queue(self, src: int, dst: int) -> int:
        """The queue ordering messages from ``src`` to ``dst`` as the module docstring says: per source
        node under back-pressure, else per node pair."""
        if self.backpressure:
            return src
        return self._pair_queues.setdefault((src, dst), len(self._pair_queues))

    def _packet_B(self) -> int:
        """Bytes on the wire of a full packet (the size walks route)."""
        return self.packetizer.size(self.packetizer.max_payload_B)

    def _check(self, found, src: int, dst: int) -> None:
        """Refuse a walk that did not reach node ``dst`` from node ``src``."""
        if found.path < 0:
            raise ConfigError(f"flow network: routing {self.routing.name!r} does not lead from node {src} "
                              f"to node {dst}")

    def _capacities_Bps(self) -> np.ndarray:
        """Capacity of every resource (bytes/s), numbered as ``core/flowroute.h`` says: each node's
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
        tables.cut_through, tables.header_B = self.cut_through, self.packetizer.header_B
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

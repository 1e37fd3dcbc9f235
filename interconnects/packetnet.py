"""The packet-level network shared by every topology.

Messages are cut into packets at the source NIC and reassembled at the
destination NIC; a message pays ``nic_latency_s`` at each NIC (before its
first packet leaves, and after its last packet arrives).  Every router output port serializes one packet at a time
(``size_B / bandwidth_Bps``); a packet reaches the next router ``latency_s``
(link) + ``router_delay_s`` (traversal of that router) after its
serialization ends, so a lone packet's latency is the sum of serialization,
link and router delays along its path (store-and-forward).

Flow control: with ``network.buffer_B`` set, every router input port has that
many bytes of buffer split evenly among the routing's virtual channels (or,
with ``network.vc_buffer_B``, that many bytes per VC), and
upstream ports send only with credits for the downstream (port, VC) buffer;
credits return one link latency after the packet leaves that buffer.  Packets
waiting for a port or credits queue per (output port, VC); a free port serves
its VCs round-robin.  Without ``buffer_B`` buffers are unbounded, nothing ever
blocks, and each output port is a FIFO whose departure times are computed when
packets arrive (one event per hop).

Entity ids: router ``r`` is followed by its nodes' NICs, so routers and their
nodes are contiguous; parallel runs place whole routers (with their NICs) in
contiguous blocks, and the lookahead is the smallest router-to-router link
latency.
"""
from __future__ import annotations

from collections import deque
from heapq import heappush

import numpy as np

from ppt.config import field
from ppt.engine import Entity
from ppt.errors import ConfigError
from ppt.interconnects.network import Network, Nic
from ppt.interconnects.packetizer import Packetizer
from ppt.interconnects.stats import NetworkStats
from ppt.interconnects.topology import Packet

INFINITY = float("inf")
#: Packet uids are ``message uid << PACKET_BITS | packet index``.
PACKET_BITS = 24


class Router(Entity):
    """One router: per-port serialization, per-(port, VC) queues, credits."""

    __slots__ = ("net", "rid", "route", "inv_bw", "lat", "peer_eid", "peer_port", "to_router",
                 "arrive_delay", "peer_fn", "free_at", "credits", "queues", "queued_B", "wake_s", "rr",
                 "bytes_out", "max_queued_B", "occupancy", "credit_on", "arrivals")

    def __init__(self, sim, eid, net, rid):
        super().__init__(sim, eid, f"router[{rid}]")
        self.net = net
        self.rid = rid
        self.route = net.routing.route
        topo = net.topo
        radix = topo.radix
        cls = topo.port_class[rid].tolist()
        peers = topo.port_peer[rid].tolist()
        peer_ports = topo.port_peer_port[rid].tolist()
        self.inv_bw = [1.0 / net.class_bw[c] if c >= 0 else 0.0 for c in cls]
        self.lat = [net.class_lat[c] if c >= 0 else 0.0 for c in cls]
        self.to_router = [q >= 0 for q in peers]
        # Where each output port leads: a router (credits apply) or a NIC (ejection).
        self.peer_eid = [net.router_eid[q] if q >= 0 else (net.nic_eid(pp) if pp >= 0 else -1)
                         for q, pp in zip(peers, peer_ports)]
        self.peer_port = [pp if q >= 0 else -1 for q, pp in zip(peers, peer_ports)]
        self.arrive_delay = [lat + net.router_delay_s if q >= 0 else lat for lat, q in zip(self.lat, peers)]
        #: The peer's arrive/receive service once resolved (False: the peer is on another rank).
        self.peer_fn = [None] * radix
        self.free_at = [0.0] * radix
        cap = net.vc_capacity_B
        self.credit_on = cap is not None
        # Credits (bytes free per downstream VC buffer): only towards routers, only with finite buffers.
        self.credits = [[cap] * net.num_vcs if q >= 0 and cap is not None else None for q in peers]
        self.queues = [None] * radix
        self.queued_B = [0] * radix
        #: Time of the pending port_free event per port (inf: none); other port_free events are stale.
        self.wake_s = [INFINITY] * radix
        self.rr = [0] * radix
        self.bytes_out = [0] * radix
        self.max_queued_B = [0] * radix
        self.occupancy = _Occupancy(self)
        #: Packets that have entered this router (router traversals).
        self.arrivals = 0

    # -- services ---------------------------------------------------------
    def arrive(self, pkt):
        """A packet has fully arrived on input port ``pkt.in_port`` (VC ``pkt.vc``)."""
        self.arrivals += 1
        port, vc = self.route(pkt, self.rid, self.occupancy)
        now = self.sim.now
        if not self.credit_on:
            # Unbounded buffers: the output port is a FIFO, so the departure is known on arrival.
            start = self.free_at[port]
            if start > now:
                backlog = int((start - now) / self.inv_bw[port])
                if backlog > self.max_queued_B[port]:
                    self.max_queued_B[port] = backlog
            else:
                start = now
            self._forward(pkt, port, vc, start + pkt.size_B * self.inv_bw[port])
            return
        if self.free_at[port] <= now and not self.queued_B[port]:
            credits = self.credits[port]
            if credits is None or credits[vc] >= pkt.size_B:
                self._transmit(pkt, port, vc)
                return
        self._enqueue(pkt, port, vc)

    def credit(self, data):
        """Buffer space returned by the downstream router: ``(port, vc, bytes)``."""
        port, vc, size = data
        self.credits[port][vc] += size
        if self.queued_B[port] and self.wake_s[port] == INFINITY:
            self._serve(port)

    def port_free(self, port):
        if self.sim.now != self.wake_s[port]:
            return                                  # superseded by an earlier wake-up
        self.wake_s[port] = INFINITY
        self._serve(port)

    def _wake_at(self, port, time_s):
        if time_s < self.wake_s[port]:
            self.wake_s[port] = time_s
            self.schedule_at(time_s, self.port_free, port)

    # -- internals --------------------------------------------------------
    def _enqueue(self, pkt, port, vc):
        queues = self.queues[port]
        if queues is None:
            queues = self.queues[port] = [deque() for _ in range(self.net.num_vcs)]
        queues[vc].append(pkt)
        queued = self.queued_B[port] = self.queued_B[port] + pkt.size_B
        if queued > self.max_queued_B[port]:
            self.max_queued_B[port] = queued
        self._serve(port)

    def _serve(self, port):
        """Start the next eligible queued packet on ``port`` if the port is idle."""
        now = self.sim.now
        if self.free_at[port] > now:
            self._wake_at(port, self.free_at[port])
            return
        queues = self.queues[port]
        credits = self.credits[port]
        nvc = len(queues)
        start = self.rr[port]
        for i in range(nvc):
            vc = (start + i) % nvc
            q = queues[vc]
            if q and (credits is None or credits[vc] >= q[0].size_B):
                pkt = q.popleft()
                self.queued_B[port] -= pkt.size_B
                self.rr[port] = vc + 1
                self._transmit(pkt, port, vc)
                return

    def _transmit(self, pkt, port, vc):
        """Credit flow control: send ``pkt`` now on the idle ``port``."""
        size = pkt.size_B
        at = self.sim.now + size * self.inv_bw[port]
        self.net.return_credit(self, pkt)     # the input buffer this packet held here is free
        credits = self.credits[port]
        if credits is not None:
            credits[vc] -= size
        self._forward(pkt, port, vc, at)
        if self.queued_B[port]:
            self._wake_at(port, at)

    def _forward(self, pkt, port, vc, at):
        """Put ``pkt`` on the wire of ``port``; its serialization ends at ``at``."""
        self.free_at[port] = at
        self.bytes_out[port] += pkt.size_B
        to_router = self.to_router[port]
        if to_router:
            pkt.hops += 1
            pkt.vc = vc
            pkt.in_port = self.peer_port[port]
            pkt.from_eid = self.eid
        fn = self.peer_fn[port]
        if fn is None:
            fn = self._resolve(port)
        self._key += 1
        sim = self.sim
        if fn:
            heappush(sim.heap, (at + self.arrive_delay[port], self._key, fn, pkt))
        else:
            sim.send_remote(self, at + self.arrive_delay[port], self._key, self.peer_eid[port],
                            "arrive" if to_router else "receive", pkt)

    def _resolve(self, port):
        peer = self.sim.entities.get(self.peer_eid[port])
        fn = self.peer_fn[port] = (False if peer is None else
                                   peer.arrive if self.to_router[port] else peer.receive)
        return fn

    def busy_s(self, port) -> float:
        """Seconds port ``port`` has spent serializing packets."""
        return self.bytes_out[port] * self.inv_bw[port]


class _Occupancy:
    """``occupancy[port]``: bytes waiting for or being sent on an output port now."""

    __slots__ = ("router",)

    def __init__(self, router):
        self.router = router

    def __getitem__(self, port):
        r = self.router
        backlog = (r.free_at[port] - r.sim.now) / r.inv_bw[port] if r.inv_bw[port] else 0.0
        return r.queued_B[port] + (backlog if backlog > 0.0 else 0.0)

    def __len__(self):
        return len(self.router.free_at)


class Message:
    """A message being cut into packets at its source NIC."""

    __slots__ = ("uid", "src", "dst", "nbytes", "npackets", "payload", "on_sent", "cut")

    def __init__(self, uid, src, dst, nbytes, npackets, payload, on_sent):
        self.uid = uid
        self.src = src
        self.dst = dst
        self.nbytes = nbytes
        self.npackets = npackets
        self.payload = payload
        self.on_sent = on_sent
        self.cut = 0

    def __reduce__(self):  # crossing simulation ranks: the sender's callback stays home
        return (Message, (self.uid, self.src, self.dst, self.nbytes, self.npackets, self.payload, None))


class PacketNic(Nic):
    """A NIC: message packetization, injection with credits, reassembly."""

    __slots__ = ("router_eid", "router_arrive", "port", "bw", "arrive_delay", "free_at", "credit_B", "wake_s",
                 "outq", "responses", "pending", "partial", "msg_seq", "source")

    def __init__(self, sim, eid, net, node):
        super().__init__(sim, eid, net, node)
        topo = net.topo
        router = int(topo.node_router[node])
        self.router_eid = net.router_eid[router]
        #: The router's arrive service (routers are built first, on the same simulation rank).
        self.router_arrive = sim.entities[self.router_eid].arrive
        self.port = int(topo.node_port[node])
        cls = int(topo.port_class[router, self.port])
        self.bw = min(net.nic_bandwidth_Bps, net.class_bw[cls])
        self.arrive_delay = net.class_lat[cls] + net.router_delay_s
        self.free_at = 0.0
        self.credit_B = net.vc_capacity_B
        #: Time of the pending wake event (inf: none); other wake events are stale.
        self.wake_s = INFINITY
        self.outq = deque()
        self.responses = deque()
        self.pending = None
        #: Packets still missing per message uid being reassembled here.
        self.partial = {}
        self.msg_seq = 0
        #: Synthetic traffic generator (see traffic.py), or None.
        self.source = None

    def send_message(self, dst_node, nbytes, payload, on_sent=None):
        net = self.net
        if dst_node == self.node:
            delay = net.shm_latency_s + nbytes / net.shm_bandwidth_Bps
            self.schedule(delay, self.deliver, payload)
            if on_sent is not None:
                self.schedule(delay, _call, on_sent)
            return
        self.msg_seq += 1
        msg = Message((self.node << 32) | self.msg_seq, self.node, dst_node, nbytes,
                      net.packetizer.count(nbytes), payload, on_sent)
        net.counters.messages_sent += 1
        self.schedule(net.nic_latency_s, self._queue, msg)

    def _queue(self, msg):
        if self.credit_B is None and self.source is None:
            # Unbounded buffers: nothing can hold the NIC up, so lay out all packets now (FIFO).
            start = max(self.free_at, self.sim.now)
            for _ in range(msg.npackets):
                start = self._launch(self._cut(msg, start), start)
            if msg.on_sent is not None:
                self.schedule_at(start, _call, msg.on_sent)
            return
        self.outq.append(msg)
        self.pump()

    def wake(self, _):
        """Service: the time this NIC asked to look at its queues again."""
        if self.sim.now != self.wake_s:
            return                                  # superseded by an earlier wake-up
        self.wake_s = INFINITY
        self.pump()

    def pump(self):
        """Inject the next packet if the link is free and the router has buffer for it."""
        now = self.sim.now
        if self.free_at > now:
            self._wake_at(self.free_at)
            return
        pkt = self.pending or self._next_packet(now)
        if pkt is None:
            return
        if self.credit_B is not None and self.credit_B < pkt.size_B:
            self.pending = pkt          # a credit from the router resumes us
            return
        self.pending = None
        if self.credit_B is not None:
            self.credit_B -= pkt.size_B
        free = self._launch(pkt, now)
        if self.outq or self.responses:
            self._wake_at(free)
        elif self.source is not None and self.source.next_s < INFINITY:
            self._wake_at(max(free, self.source.next_s))

    def _launch(self, pkt, start_s):
        """Serialize ``pkt`` onto the link to the router from ``start_s``; returns when it ends."""
        at = self.free_at = start_s + pkt.size_B / self.bw
        pkt.in_port = self.port
        pkt.from_eid = self.eid
        pkt.vc = 0
        self.net.counters.injected += 1
        self._key += 1
        heappush(self.sim.heap, (at + self.arrive_delay, self._key, self.router_arrive, pkt))
        return at

    def _cut(self, msg, created_s):
        """The next packet of ``msg``."""
        packetizer = self.net.packetizer
        index = msg.cut
        msg.cut += 1
        payload = max(0, min(packetizer.max_payload_B, msg.nbytes - index * packetizer.max_payload_B))
        pkt = Packet((msg.uid << PACKET_BITS) | index, msg.src, msg.dst, packetizer.size(payload), payload,
                     msg, created_s)
        self.net.routing.inject(pkt)
        return pkt

    def _next_packet(self, now):
        if self.responses:
            return self.responses.popleft()
        if self.outq:
            msg = self.outq[0]
            pkt = self._cut(msg, now)
            if msg.cut == msg.npackets:
                self.outq.popleft()
                if msg.on_sent is not None:
                    self.schedule(pkt.size_B / self.bw, _call, msg.on_sent)
            return pkt
        if self.source is not None:
            pkt = self.source.take(self, now)
            if pkt is None and self.source.next_s < INFINITY:
                self._wake_at(self.source.next_s)
            return pkt
        return None

    def _wake_at(self, time_s):
        if time_s < self.wake_s:
            self.wake_s = time_s
            self.schedule_at(time_s, self.wake, None)

    def credit(self, data):
        """Buffer space returned by the router: ``(port, vc, bytes)``."""
        self.credit_B += data[2]
        if self.pending is not None and self.wake_s == INFINITY:
            self.pump()

    def receive(self, pkt):
        """Service: a packet has arrived from the router."""
        net = self.net
        now = self.sim.now
        net.counters.record(now - pkt.inject_s, pkt.hops, pkt.size_B)
        msg = pkt.msg
        if msg is None:
            net.counters.responses += 1
            return
        if net.packetizer.response_B:
            self.msg_seq += 1
            resp = Packet((((self.node << 32) | self.msg_seq) << PACKET_BITS), self.node, pkt.src,
                          net.packetizer.response_size(), 0, None, now)
            net.routing.inject(resp)
            if self.credit_B is None and self.source is None:
                self._launch(resp, max(self.free_at, now))
            else:
                self.responses.append(resp)
                self.pump()
        if msg.npackets > 1:
            left = self.partial.get(msg.uid, msg.npackets) - 1
            if left:
                self.partial[msg.uid] = left
                return
            del self.partial[msg.uid]
        net.counters.messages_delivered += 1
        if self.host is not None:
            self.schedule(net.nic_latency_s, self.deliver, msg.payload)


def _call(fn):
    fn()


def _vc_capacity_B(cfg: dict, num_vcs: int, packet_B: int) -> int | None:
    """Bytes of buffer per (input port, VC): ``network.buffer_B`` per port split
    evenly among the VCs, or ``network.vc_buffer_B`` per VC; None (unbounded) if neither."""
    buffer_B = field(cfg, "buffer_B", "network", int, default=None, positive=True)
    vc_buffer_B = field(cfg, "vc_buffer_B", "network", int, default=None, positive=True)
    if buffer_B is not None and vc_buffer_B is not None:
        raise ConfigError("network sets both buffer_B (per port, split among VCs) and vc_buffer_B (per VC); keep one")
    if buffer_B is None and vc_buffer_B is None:
        return None
    capacity = vc_buffer_B if vc_buffer_B is not None else buffer_B // num_vcs
    if capacity < packet_B:
        given = f"vc_buffer_B {vc_buffer_B}" if vc_buffer_B is not None else \
            f"buffer_B {buffer_B} split over {num_vcs} VCs"
        raise ConfigError(f"network.{given} holds less than one {packet_B}-byte packet; "
                          f"raise it or lower max_payload_B")
    return capacity


class PacketNetwork(Network):
    """Packet-level model of ``topology`` with the preset's ``network`` section ``cfg``."""

    def __init__(self, topology, cfg: dict, seed: int = 0, routing: str | None = None):
        self.topo = topology
        self.routing = topology.routing(routing or field(cfg, "routing", "network", str, default="min"), seed=seed)
        self.num_vcs = self.routing.num_vcs
        self.packetizer = Packetizer(field(cfg, "packet", "network", dict))
        self.vc_capacity_B = _vc_capacity_B(cfg, self.num_vcs, self.packetizer.size(self.packetizer.max_payload_B))
        self.nic_bandwidth_Bps = field(cfg, "nic_bandwidth_Bps", "network", float, positive=True)
        self.nic_latency_s = field(cfg, "nic_latency_s", "network", float, default=0.0)
        self.shm_latency_s = field(cfg, "shm_latency_s", "network", float, default=max(self.nic_latency_s, 1e-7))
        self.shm_bandwidth_Bps = field(cfg, "shm_bandwidth_Bps", "network", float, default=self.nic_bandwidth_Bps)
        self.eager_threshold_B = field(cfg, "eager_threshold_B", "network", int, default=8192)
        self.router_delay_s = float(topology.router_delay_s)
        terminal = topology.terminal_class()
        #: Bytes/s a node can inject (its NIC or its link to the router, whichever is slower).
        self.injection_bandwidth_Bps = min(self.nic_bandwidth_Bps, terminal.bandwidth_Bps)
        self.class_bw = [c.bandwidth_Bps for c in topology.link_classes]
        self.class_lat = [c.latency_s for c in topology.link_classes]
        self.num_nodes = int(topology.num_nodes)
        nodes_per_router = np.bincount(topology.node_router, minlength=topology.num_routers)
        first = np.concatenate(([0], np.cumsum(nodes_per_router + 1)[:-1]))
        self.router_eid = first.tolist()
        order = np.argsort(topology.node_router, kind="stable")
        slot = np.empty(self.num_nodes, dtype=np.int64)
        slot[order] = np.arange(self.num_nodes) - np.repeat(np.cumsum(nodes_per_router) - nodes_per_router,
                                                              nodes_per_router)
        self._nic_eid = (first[topology.node_router] + 1 + slot).tolist()
        self.num_entities = int(topology.num_routers + self.num_nodes)
        self.lookahead_s = min((c.latency_s for c in topology.network_classes()), default=0.0)
        self.counters = NetworkStats()
        self.routers = []
        self.nics = []

    def nic_eid(self, node: int) -> int:
        return self._nic_eid[node]

    def build(self, sim) -> None:
        """Create this rank's routers and NICs; whole routers (with their NICs) per rank."""
        routers = self.topo.num_routers
        if sim.size > 1:
            sim.set_block_starts([self.router_eid[k * routers // sim.size] for k in range(sim.size)])
        for r in range(routers):
            if sim.is_local(self.router_eid[r]):
                self.routers.append(sim.add(Router(sim, self.router_eid[r], self, r)))
        for n in range(self.num_nodes):
            eid = self._nic_eid[n]
            if sim.is_local(eid):
                self.nics.append(sim.add(PacketNic(sim, eid, self, n)))

    def router_traversals(self) -> int:
        """Packets that entered this rank's routers so far (delivered or still in flight)."""
        return sum(r.arrivals for r in self.routers)

    def return_credit(self, router, pkt):
        """``pkt`` leaves ``router``: give its input buffer space back upstream."""
        port = pkt.in_port
        router.send(pkt.from_eid, "credit", (router.peer_port[port], pkt.vc, pkt.size_B), router.lat[port])

    def stats(self, sim) -> dict:
        links = [{"router": r.rid, "port": p, "bytes": r.bytes_out[p], "busy_s": r.busy_s(p),
                  "max_queue_B": r.max_queued_B[p]}
                 for r in self.routers for p in range(len(r.bytes_out)) if r.bytes_out[p]]
        summary = {"count": len(links), "bytes": sum(link["bytes"] for link in links),
                   "max_queue_B": max((link["max_queue_B"] for link in links), default=0),
                   "busiest": max(links, key=lambda link: (link["busy_s"], -link["router"], -link["port"]),
                                  default=None)}
        return {"counters": self.counters.as_dict(), "links": summary}

    @staticmethod
    def merge_stats(parts: list[dict]) -> dict:
        return NetworkStats.merge([p["counters"] for p in parts], [p["links"] for p in parts])

"""Static structure of an interconnect and the routing contract.

A :class:`Topology` is pure data (numpy arrays), built once, shared by every
simulation rank; it holds no simulation state.  The packet-level network core
(:mod:`ppt.interconnects.network`) turns it into router and NIC entities.

Conventions (every topology follows them):

* Routers are numbered ``0 .. num_routers-1``, compute nodes ``0 .. num_nodes-1``.
* Every router has ``radix`` port slots.  ``port_peer[r, p]`` is the router at
  the far end of port ``p`` of router ``r``, ``-1`` for a terminal (node) port
  or an unused slot.  ``port_peer_port[r, p]`` is the port index at that peer
  (for a terminal port: the node id; for an unused slot: ``-1``).
* ``port_class[r, p]`` indexes ``link_classes`` (``-1`` for an unused slot).
  Links are full duplex; ``bandwidth_Bps`` is per direction.
* Node ``n`` hangs off port ``node_port[n]`` of router ``node_router[n]``.
* Routing never uses global mutable state: its random choices come from
  :meth:`Routing.rand`, a hash of (seed, packet uid, salt), so serial and
  parallel runs of one model take exactly the same paths.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from ppt.errors import ConfigError


@dataclass(frozen=True)
class LinkClass:
    """A kind of link: ``bandwidth_Bps`` bytes/s per direction, ``latency_s`` seconds."""

    name: str
    bandwidth_Bps: float
    latency_s: float


class Packet:
    """One packet in flight.  ``size_B`` counts header + payload bytes.

    ``route`` is private to the routing algorithm (e.g. the Valiant intermediate),
    set by :meth:`Routing.inject`; ``hops`` counts router-to-router hops taken;
    ``msg`` is the message the packet belongs to (None for a response packet).
    """

    __slots__ = ("uid", "src", "dst", "size_B", "payload_B", "hops", "vc",
                 "route", "msg", "inject_s", "in_port", "from_eid")

    def __init__(self, uid, src, dst, size_B, payload_B=0, msg=None, inject_s=0.0):
        self.uid = uid
        self.src = src
        self.dst = dst
        self.size_B = size_B
        self.payload_B = payload_B
        self.hops = 0
        self.vc = 0
        self.route = None
        self.msg = msg
        self.inject_s = inject_s
        #: Input port at the current router, and the entity that sent it there.
        self.in_port = -1
        self.from_eid = -1


def switch_and_terminal(name: str, bandwidth_Bps: float, latency_s: float, terminal_bandwidth_Bps=None,
                        terminal_latency_s=None) -> tuple[LinkClass, LinkClass]:
    """A topology's two link classes: switch-to-switch ``name`` and node ``terminal`` links
    (the terminal ones default to the switch links' bandwidth and latency)."""
    return (LinkClass(name, bandwidth_Bps, latency_s),
            LinkClass("terminal", terminal_bandwidth_Bps or bandwidth_Bps,
                      latency_s if terminal_latency_s is None else terminal_latency_s))


_MASK64 = (1 << 64) - 1


def mix64(x: int) -> int:
    """SplitMix64 finaliser: a fast, well-spread 64-bit hash of an integer."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


class Routing:
    """Chooses, at each router, the output port and virtual channel of a packet.

    Subclasses set ``name`` and ``num_vcs`` and implement :meth:`route`.
    ``occupancy`` passed to :meth:`route` is a sequence indexed by port of the
    bytes queued at that output port of ``router`` now (adaptive routing reads it;
    it is all zeros on an idle network).  At the destination router ``route``
    returns the terminal port ``topology.node_port[pkt.dst]``.
    """

    name = "?"
    num_vcs = 1

    def __init__(self, topology: "Topology", seed: int = 0):
        self.topo = topology
        self.seed = seed

    def rand(self, pkt: Packet, salt: int = 0) -> int:
        """A deterministic pseudo-random 64-bit integer for this packet and salt."""
        return mix64((self.seed * 1000003 + pkt.uid) * 131 + salt)

    def inject(self, pkt: Packet) -> None:
        """Called once when the packet enters the network at its source NIC."""

    def route(self, pkt: Packet, router: int, occupancy) -> tuple[int, int]:
        raise NotImplementedError


class Topology:
    """Routers, ports and links of one interconnect (see module docstring)."""

    kind = "?"
    routings: dict[str, type[Routing]] = {}

    num_nodes: int
    num_routers: int
    radix: int
    port_peer: np.ndarray
    port_peer_port: np.ndarray
    port_class: np.ndarray
    node_router: np.ndarray
    node_port: np.ndarray
    link_classes: tuple[LinkClass, ...]
    router_delay_s: float

    def routing(self, name: str, seed: int = 0, **options) -> Routing:
        """The routing algorithm ``name`` (e.g. ``"min"``) for this topology."""
        try:
            cls = self.routings[name]
        except KeyError:
            known = ", ".join(sorted(self.routings))
            raise ConfigError(f"unknown routing {name!r} for {self.kind}; choose one of: {known}") from None
        return cls(self, seed=seed, **options)

    def nodes_of_router(self, router: int) -> np.ndarray:
        """Nodes attached to ``router``, in id order."""
        order = self.__dict__.get("_node_order")
        if order is None:
            order = self._node_order = np.argsort(self.node_router, kind="stable")
            self._node_first = np.searchsorted(self.node_router[order], np.arange(self.num_routers + 1))
        return order[self._node_first[router]:self._node_first[router + 1]]

    def network_classes(self) -> list[LinkClass]:
        """Link classes of the router-to-router links (no terminal links)."""
        used = np.unique(self.port_class[self.port_peer >= 0])
        return [self.link_classes[int(c)] for c in used]

    def terminal_class(self) -> LinkClass:
        """Link class of the node-to-router links (that of node 0)."""
        return self.link_classes[int(self.port_class[self.node_router[0], self.node_port[0]])]

    def num_links(self) -> int:
        """Bidirectional router-to-router links (terminal links not counted)."""
        return int(np.count_nonzero(self.port_peer >= 0)) // 2

    def network_degree(self) -> np.ndarray:
        """Router-to-router ports in use, per router."""
        return np.count_nonzero(self.port_peer >= 0, axis=1)

    def diameter(self) -> int:
        """Largest router-to-router hop distance (BFS; subclasses may give a closed form)."""
        return max(int(self.hop_distances(r).max()) for r in range(self.num_routers))

    def hop_distances(self, source: int) -> np.ndarray:
        """Minimal router hops from router ``source`` to every router (BFS)."""
        dist = np.full(self.num_routers, -1, dtype=np.int64)
        dist[source] = 0
        frontier = deque([source])
        peers = self.port_peer
        while frontier:
            r = frontier.popleft()
            d = dist[r] + 1
            for q in peers[r]:
                if q >= 0 and dist[q] < 0:
                    dist[q] = d
                    frontier.append(q)
        return dist

    def summary(self) -> dict:
        """The figures of ``ppt topology --json``."""
        return {"nodes": int(self.num_nodes), "routers": int(self.num_routers),
                "links": self.num_links(), "radix": int(self.radix),
                "diameter": int(self.diameter())}


def channels(topology: Topology, routing: Routing, src: int, dst: int, uid: int = 0,
             occupancy=None, max_hops: int = 64) -> list[tuple[int, int, int]]:
    """``(router, port, vc)`` of every channel a lone packet takes from node ``src`` to node ``dst``.

    Follows ``routing.route`` hop by hop, ending with the terminal port at the
    destination router.  ``occupancy(hops, router)`` gives the per-port queue
    view at each router (all zeros, an idle network, if None).  Raises if a VC
    is out of range, the packet leaves at the wrong node, or it takes more
    than ``max_hops`` router hops.
    """
    pkt = Packet(uid, src, dst, 64)
    routing.inject(pkt)
    router = int(topology.node_router[src])
    idle = [0] * topology.radix
    taken = []
    while True:
        port, vc = routing.route(pkt, router, idle if occupancy is None else occupancy(pkt.hops, router))
        if not 0 <= vc < routing.num_vcs:
            raise AssertionError(f"vc {vc} outside 0..{routing.num_vcs - 1}")
        taken.append((router, port, vc))
        peer = int(topology.port_peer[router, port])
        if peer < 0:
            if int(topology.port_peer_port[router, port]) != dst:
                raise AssertionError(f"packet left router {router} on port {port}, not at node {dst}")
            return taken
        pkt.vc = vc
        pkt.hops += 1
        router = peer
        if pkt.hops > max_hops:
            raise AssertionError(f"no delivery after {max_hops} hops: {[c[0] for c in taken[:12]]}...")


def walk(topology: Topology, routing: Routing, src: int, dst: int, uid: int = 0,
         max_hops: int = 64) -> list[int]:
    """Routers a lone packet visits from node ``src`` to node ``dst`` on an idle network."""
    return [router for router, _, _ in channels(topology, routing, src, dst, uid, max_hops=max_hops)]

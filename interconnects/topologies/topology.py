"""Static structure of an interconnect and the routing contract.

A :class:`Topology` is pure data (numpy arrays), built once, shared by every
simulation rank; it holds no simulation state.  The packet-level network
(:mod:`ppt.interconnects.networks.packetnet`) hands its tables to the compiled core.

Conventions (every topology follows them):

* Routers are numbered ``0 .. num_routers-1``, compute nodes ``0 .. num_nodes-1``.
* Every router has ``radix`` port slots.  ``port_peer[r, p]`` is the router at
  the far end of port ``p`` of router ``r``, ``-1`` for a terminal (node) port
  or an unused slot.  ``port_peer_port[r, p]`` is the port index at that peer
  (for a terminal port: the node id; for an unused slot: ``-1``).
* ``port_class[r, p]`` indexes ``link_classes`` (``-1`` for an unused slot).
  Links are full duplex; ``bandwidth_Bps`` is per direction.
* Node ``n`` hangs off port ``node_port[n]`` of router ``node_router[n]``.
* Routings are compiled (``core/``, one C function per topology and
  algorithm) and registered with :func:`register_routing` beside the
  topology; their random choices hash (seed, packet uid, salt), so serial and
  parallel runs of one model take exactly the same paths.
"""
from __future__ import annotations

import copy
import math
from collections import deque
from dataclasses import dataclass

import numpy as np

from ppt.errors import ConfigError
from ppt.params import Param, read_section


@dataclass(frozen=True)
class LinkClass:
    """A kind of link: ``bandwidth_Bps`` bytes/s per direction, ``latency_s`` seconds."""

    name: str
    bandwidth_Bps: float
    latency_s: float

    def __post_init__(self):
        if not 0.0 < self.bandwidth_Bps < math.inf:
            raise ConfigError(f"topology: the {self.name} links' bandwidth must be a positive number of "
                              f"bytes/s, got {self.bandwidth_Bps!r}")
        if not 0.0 <= self.latency_s < math.inf:
            raise ConfigError(f"topology: the {self.name} links' latency must be a finite number of seconds "
                              f">= 0, got {self.latency_s!r}")


#: The link keys of a topology with one class of switch-to-switch links (see :func:`switch_and_terminal`).
SWITCH_LINK_PARAMS = (
    Param("link_bandwidth_Bps", "bandwidth of a switch-to-switch link, each direction", float, positive=True),
    Param("link_latency_s", "latency of a switch-to-switch link", float, nonnegative=True),
    Param("router_delay_s", "time a packet takes to cross a router", float, 0.0, nonnegative=True),
    Param("terminal_bandwidth_Bps", "bandwidth of a node's link to its switch (null: link_bandwidth_Bps)", float,
          None, positive=True),
    Param("terminal_latency_s", "latency of a node's link to its switch (null: link_latency_s)", float, None,
          nonnegative=True))


def switch_and_terminal(name: str, bandwidth_Bps: float, latency_s: float, terminal_bandwidth_Bps=None,
                        terminal_latency_s=None) -> tuple[LinkClass, LinkClass]:
    """A topology's two link classes: switch-to-switch ``name`` and node ``terminal`` links
    (the terminal ones default to the switch links' bandwidth and latency)."""
    return (LinkClass(name, bandwidth_Bps, latency_s),
            LinkClass("terminal", terminal_bandwidth_Bps or bandwidth_Bps,
                      latency_s if terminal_latency_s is None else terminal_latency_s))


_MASK64 = (1 << 64) - 1
#: UGAL-L's default bias toward the minimal path, in packets: BookSim's dragonfly UGAL-L threshold of
#: 30 flits is three of its 10-flit packets (``network.ugal_bias_packets`` overrides it).
UGAL_BIAS_PACKETS = 3.0


def mix64(x: int) -> int:
    """SplitMix64 finaliser: a fast, well-spread 64-bit hash of an integer (as ``ppt_mix64`` in C)."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


@dataclass(frozen=True)
class RoutingSpec:
    """A routing algorithm of one topology family, compiled in the packet core.

    ``route`` and ``inject`` name the C functions (``ppt_route_fn`` and
    ``ppt_inject_fn`` of ``core/core.h``); ``num_vcs`` is a count or a function
    of the topology.  Its traits: ``options``, the keyword options
    :meth:`Topology.routing` accepts for it (of :data:`ROUTING_OPTIONS`; the
    others are refused); ``valiant``: its VCs also carry a Valiant path
    (minimal to an intermediate, then minimal on), which failed links may leave
    as the only legal one; ``adaptive``: its choices read the output ports'
    occupancy, so a lone message may spread over several paths (the flow
    network routes such messages in chunks).
    """

    name: str
    route: str
    inject: str | None = None
    num_vcs: object = 1
    options: tuple = ()
    valiant: bool = False
    adaptive: bool = False


#: Options a routing may declare: what each sets (see :class:`Routing`).
ROUTING_OPTIONS = {
    "candidates": "Valiant candidates a UGAL-type routing weighs (1 to 16, default 3)",
    "c_sf": "Slim Fly UGAL's scale of a Valiant path's cost (default: the topology's ugal_c_sf)",
    "ugal_bias_packets": "packets of minimal queue a UGAL-type routing tolerates before a detour "
                         "(network.ugal_bias_packets)",
}
#: Routing options a preset's ``network`` section may set (see :meth:`Topology.network_options`); each is
#: a key of :class:`~ppt.interconnects.networks.settings.NetworkSettings`.
NETWORK_ROUTING_OPTIONS = ("ugal_bias_packets",)


def register_routing(family: type, name: str, *, route: str, inject: str | None = None, num_vcs=1,
                     options: tuple = (), aliases: tuple = (), valiant: bool = False,
                     adaptive: bool = False) -> RoutingSpec:
    """Make routing ``name`` (and its ``aliases``) of topology class ``family`` and its subclasses,
    with its traits (see :class:`RoutingSpec`)."""
    unknown = sorted(set(options) - set(ROUTING_OPTIONS))
    if unknown:
        raise ValueError(f"routing {name!r}: unknown option {unknown[0]!r} (known: {', '.join(ROUTING_OPTIONS)})")
    if "routings" not in family.__dict__:
        family.routings = dict(family.routings)
    spec = RoutingSpec(name, route, inject, num_vcs, tuple(options), valiant, adaptive)
    for key in (name, *aliases):
        family.routings[key] = spec
    return spec


class Routing:
    """A compiled routing bound to one topology and seed.

    ``route`` chooses, at each router, the output port and virtual channel of
    a packet; random choices hash (seed, packet uid, salt), so serial and
    parallel runs take the same paths.  ``c`` is the ``ppt_routing_t`` the
    packet core calls; walks use :meth:`packet` and :meth:`route`.
    """

    def __init__(self, topology: "Topology", spec: RoutingSpec, seed: int = 0, **options):
        from ppt.interconnects.core import ffi, lib
        unknown = sorted(set(options) - set(spec.options))
        if unknown:
            allowed = ", ".join(spec.options) or "none"
            raise ConfigError(f"routing {spec.name!r} of {topology.kind} takes no option {unknown[0]!r} "
                              f"(options: {allowed})")
        self.topo = topology
        self.spec = spec
        self.name = spec.name
        self.seed = seed
        self.num_vcs = spec.num_vcs(topology) if callable(spec.num_vcs) else int(spec.num_vcs)
        self._tables = topology.core_tables()
        c = self.c = ffi.new("ppt_routing_t *")
        c.route = ffi.addressof(lib, spec.route)
        c.inject = ffi.addressof(lib, spec.inject) if spec.inject else ffi.NULL
        c.topo = self._tables
        c.seed = seed & _MASK64
        c.num_vcs = self.num_vcs
        #: Valiant candidates the UGAL-type routings weigh (1 to 16), and Slim Fly's c_SF scale.
        self.candidates = int(options.get("candidates", 3))
        if not 1 <= self.candidates <= 16:
            raise ConfigError(f"routing {spec.name!r}: candidates must be 1 to 16, got {self.candidates}")
        self.c_sf = float(options.get("c_sf", topology.ugal_c_sf))
        c.candidates, c.c_sf = self.candidates, self.c_sf
        #: UGAL-type routings keep the minimal path until its queue exceeds a Valiant path's by this
        #: many of the routed packet's sizes (core/ugal.c); other routings take no such option.
        self.ugal_bias_packets = c.bias_packets = float(options.get("ugal_bias_packets", UGAL_BIAS_PACKETS))
        self._ffi = ffi
        self._vc = ffi.new("int32_t *")
        self._occupancy = ffi.new("double[]", topology.radix)

    @property
    def adaptive(self) -> bool:
        """Whether the routing's choices read the output ports' occupancy (a trait of its spec)."""
        return self.spec.adaptive

    def packet(self, uid: int, src: int, dst: int, size_B: int = 64):
        """A fresh ``ppt_packet_t`` from node ``src`` to ``dst``, injected (routing state set)."""
        pkt = self._ffi.new("ppt_packet_t *")
        pkt.uid = uid & _MASK64
        pkt.src, pkt.dst, pkt.size_B = src, dst, size_B
        pkt.in_port = pkt.from_router = pkt.next = -1
        pkt.npackets = 1
        if self.spec.inject:
            self.c.inject(self.c, pkt)
        return pkt

    def route(self, pkt, router: int, occupancy=None) -> tuple[int, int]:
        """``(port, vc)`` of ``pkt``'s next channel at ``router``; ``occupancy[port]`` are the
        bytes queued at each output port (an idle network if None)."""
        occ = self._occupancy
        for port in range(self.topo.radix):
            occ[port] = occupancy[port] if occupancy is not None else 0.0
        self.c.occupancy = occ
        try:
            port = self.c.route(self.c, pkt, router, self._vc)
        finally:
            self.c.occupancy = self._ffi.NULL
        return port, self._vc[0]


class Topology:
    """Routers, ports and links of one interconnect (see module docstring)."""

    kind = "?"
    #: What the kind is, one line (for ``ppt describe``).
    tagline = ""
    #: The keys of a preset's ``topology`` section of this kind (besides ``kind``).
    params: tuple[Param, ...] = ()
    routings: dict[str, RoutingSpec] = {}

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

    @classmethod
    def ports_estimate(cls, cfg: dict) -> int:
        """Router ports (routers x radix) a preset section asks for, before building (0: unknown)."""
        return 0

    @classmethod
    def preset_keys(cls) -> tuple[str, ...]:
        """The keys a ``topology`` section of this kind may hold: ``kind`` and the declared ones."""
        return ("kind", *(param.name for param in cls.params))

    @classmethod
    def from_config(cls, cfg: dict) -> "Topology":
        """The topology of a preset's ``topology`` section: its declared keys (:attr:`params`) are the
        constructor's keywords."""
        return cls(**read_section(cfg, cls.params, "topology"))

    def routing_spec(self, name: str) -> RoutingSpec:
        """The registered routing ``name``; a ConfigError listing the choices if there is none."""
        try:
            return self.routings[name]
        except KeyError:
            known = ", ".join(sorted(self.routings))
            raise ConfigError(f"unknown routing {name!r} for {self.kind}; choose one of: {known}") from None

    def routing(self, name: str, seed: int = 0, **options) -> Routing:
        """The routing algorithm ``name`` (e.g. ``"min"``) for this topology."""
        spec = self.routing_spec(name)
        self.check_routable(spec)
        return Routing(self, spec, seed=seed, **options)

    def network_options(self, name: str, given: dict) -> dict:
        """The options of routing ``name`` among ``given``, the routing options (of
        :data:`NETWORK_ROUTING_OPTIONS`, checked values) a preset's network settings set.  A setting
        that another routing of this topology takes is a property of the machine and stays unused by
        routings without it (Aries presets set UGAL's bias and still run MIN); one that no routing of
        this topology takes is a ConfigError."""
        spec = self.routing_spec(name)
        for key in given:
            if not any(key in s.options for s in self.routings.values()):
                takes = ", ".join(spec.options) or "no options"
                raise ConfigError(f"network.{key}: no routing of a {self.kind} uses it (routing {spec.name!r} takes "
                                  f"{takes}); remove the setting")
        return {key: value for key, value in given.items() if key in spec.options}

    # -- optional capabilities: what a topology without them has, or a ConfigError naming what is missing

    #: Independent router planes (:class:`~ppt.interconnects.topologies.planes.Planes` has several).
    planes = 1
    #: Slim Fly UGAL's scale of a Valiant path's cost (c_SF): no scaling elsewhere.
    ugal_c_sf = 1.0

    def worst_case_table(self) -> tuple[np.ndarray, np.ndarray]:
        """The worst-case traffic pattern ("wc") as data: node ``n`` sends to ``first[n] + rand %
        count[n]``.  Topologies that define a worst case override it; this default refuses."""
        raise ConfigError(f"pattern 'wc' is not defined for {self.kind}; use ur, nn, bitcomp, transpose or tornado")

    def plane_routings(self, name: str, seed: int = 0, **options) -> list:
        """Routings of the planes past the first whose links failed apart from it: none in one plane."""
        return []

    def plane_hops(self, name: str):
        """Legal hops per router pair and plane where planes differ: None in one plane."""
        return None

    # -- link failures (see failures.py) --------------------------------------

    #: The failure map applied (a :class:`~ppt.interconnects.topologies.failures.FailureSpec`), None if every
    #: link works.
    failures = None
    #: ``(router, port)`` of one end of each failed link (:meth:`without_links`); none by default.
    failed_links = np.zeros((0, 2), dtype=np.int64)

    def global_ports(self) -> np.ndarray | None:
        """``(routers, radix)`` mask of the ports whose links join two of :meth:`router_groups`
        (the ``global`` class of ``network.fail_class``; the others are ``local``), None for a
        topology without groups."""
        groups = self.router_groups()
        if groups is None:
            return None
        return (self.port_peer >= 0) & (groups[self.port_peer] != groups[:, None])

    def with_failed_links(self, failed: np.ndarray, spec) -> "Topology":
        """A copy without the links ``failed`` (``(router, port)`` of one end each), routing only
        legal paths over the rest.  Topologies without failure-aware routing refuse."""
        raise ConfigError(f"link failures need failure-aware routing, which {self.kind} does not have yet; "
                          f"remove the network.fail_* settings")

    def without_links(self, failed: np.ndarray, spec) -> "Topology":
        """A shallow copy whose ``failed`` links are unused slots at both ends (``port_peer``,
        ``port_peer_port`` and ``port_class`` -1), with ``failures`` = ``spec``, ``failed_links`` =
        ``failed`` and no cached tables: the common part of every :meth:`with_failed_links`."""
        out = copy.copy(self)
        for cached in ("_core_tables", "_core_keep", "_legal_survey"):
            out.__dict__.pop(cached, None)
        router, port = failed[:, 0], failed[:, 1]
        peer, peer_port = self.port_peer[router, port], self.port_peer_port[router, port]
        out.port_peer, out.port_peer_port, out.port_class = (x.copy() for x in (
            self.port_peer, self.port_peer_port, self.port_class))
        for table in (out.port_peer, out.port_peer_port, out.port_class):
            table[router, port] = table[peer, peer_port] = -1
        out.failures, out.failed_links = spec, failed
        #: The topology before its links failed (another plane draws its own map from it).
        out.intact = self
        return out

    def unroutable_pairs(self, spec: RoutingSpec | None = None) -> np.ndarray:
        """``(k, 2)`` router pairs (both holding nodes) without a legal path over surviving links
        for routing ``spec`` (by default one that takes minimal paths only)."""
        return np.zeros((0, 2), dtype=np.int64)

    def legal_hops(self, spec: RoutingSpec | None = None) -> np.ndarray:
        """``(routers, routers)`` int32: router hops of the shortest path routing ``spec`` may take
        legally from router x to router y over surviving links, ``DETOUR`` where only a Valiant
        path is legal, ``FAR`` where none is (see ``legalpaths.py``).  This default knows legality
        only: 0 for every pair with a legal minimal path; grouped topologies count hops."""
        from ppt.interconnects.topologies.legalpaths import DETOUR, FAR
        hops = np.zeros((self.num_routers, self.num_routers), dtype=np.int32)
        for pairs, value in ((self.unroutable_pairs(), DETOUR), (self.unroutable_pairs(spec), FAR)):
            hops[pairs[:, 0], pairs[:, 1]] = value
        return hops

    def check_routable(self, spec: RoutingSpec) -> None:
        """ConfigError naming a router pair routing ``spec`` cannot serve, if the failures left one."""
        if self.failures is None:
            return
        pairs = self.unroutable_pairs(spec)
        if len(pairs):
            more = f" (and {len(pairs) - 1} more pairs)" if len(pairs) > 1 else ""
            raise ConfigError(f"link failures ({self.failures.describe()}) leave router {pairs[0][0]} -> router "
                              f"{pairs[0][1]}{more} without a legal path for routing {spec.name!r}; fail fewer "
                              f"links or choose another network.fail_seed")

    def core_tables(self):
        """The ``ppt_*_t`` tables this topology's compiled routings read (built once, cached)."""
        tables = self.__dict__.get("_core_tables")
        if tables is None:
            tables = self._core_tables = self.build_core_tables()
        return tables

    def build_core_tables(self):
        """Build the topology's C routing tables (each topology implements it)."""
        raise NotImplementedError

    def nodes_of_router(self, router: int) -> np.ndarray:
        """Nodes attached to ``router``, in id order."""
        order = self.__dict__.get("_node_order")
        if order is None:
            order = self._node_order = np.argsort(self.node_router, kind="stable")
            self._node_first = np.searchsorted(self.node_router[order], np.arange(self.num_routers + 1))
        return order[self._node_first[router]:self._node_first[router + 1]]

    def router_groups(self) -> np.ndarray | None:
        """Group id of every router where the topology has groups (dragonfly groups, Slim Fly
        subgraph columns); None otherwise.  Plots and sample files aggregate by it."""
        return None

    def network_classes(self) -> list[LinkClass]:
        """Link classes of the router-to-router links (no terminal links)."""
        used = np.bincount(self.port_class[self.port_peer >= 0], minlength=len(self.link_classes))
        return [self.link_classes[int(c)] for c in np.flatnonzero(used)]

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

    Follows the compiled ``routing`` hop by hop, ending with the terminal port
    at the destination router.  ``occupancy(hops, router)`` gives the per-port
    queue view at each router (all zeros, an idle network, if None).  Raises
    if a VC is out of range, the packet leaves at the wrong node, or it takes
    more than ``max_hops`` router hops.
    """
    pkt = routing.packet(uid, src, dst)
    router = int(topology.node_router[src])
    taken = []
    while True:
        port, vc = routing.route(pkt, router, None if occupancy is None else occupancy(pkt.hops, router))
        if not 0 <= vc < routing.num_vcs:
            raise AssertionError(f"vc {vc} outside 0..{routing.num_vcs - 1}")
        taken.append((router, port, vc))
        peer = int(topology.port_peer[router, port])
        if peer < 0:
            if int(topology.port_peer_port[router, port]) != dst:
                raise AssertionError(f"packet left router {router} on port {port}, not at node {dst}")
            return taken
        pkt.vc = vc
        pkt.in_port = int(topology.port_peer_port[router, port])
        pkt.from_router = router
        pkt.hops += 1
        router = peer
        if pkt.hops > max_hops:
            raise AssertionError(f"no delivery after {max_hops} hops: {[c[0] for c in taken[:12]]}...")


def walk(topology: Topology, routing: Routing, src: int, dst: int, uid: int = 0,
         max_hops: int = 64) -> list[int]:
    """Routers a lone packet visits from node ``src`` to node ``dst`` on an idle network."""
    return [router for router, _, _ in channels(topology, routing, src, dst, uid, max_hops=max_hops)]

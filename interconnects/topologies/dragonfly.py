"""Dragonfly networks and the group machinery shared with Cray Aries.

A *grouped* network joins ``g`` identical groups of ``a`` routers; inside a
group routers are wired by a small local graph (all-to-all for the dragonfly
of Kim, Dally, Scott & Abts, "Technology-Driven, Highly-Scalable Dragonfly
Topology", ISCA 2008; a 16 x 6 flattened butterfly for Aries), and every
router owns ``h`` global ports whose links go to other groups.

Global-link arrangements (how global port slot ``j = router*h + k`` of group
``i`` is wired), applied to *trunks* of ``bundle`` consecutive slots so one
trunk always reaches one group (Aries bundles 4 blue ports per trunk):

* ``consecutive`` -- Kim et al.: trunk ``j`` of group ``i`` goes to the
  ``j mod (g-1)``-th other group in increasing order (called "absolute" by
  Hastings et al., "Comparing Global Link Arrangements for Dragonfly
  Networks", IEEE Cluster 2015); with fewer than ``T+1`` groups the ``T``
  trunks wrap around, giving ``T // (g-1)`` parallel trunks per group pair.
* ``palmtree`` -- M. Garcia's arrangement as defined by Camarero, Vallejo &
  Beivide, "Topological Characterization of Hamming and Dragonfly Networks and
  Its Implications on Routing", ACM TACO 11(4), 2014: trunk ``j`` of group ``i``
  goes to group ``i - 1 - (j mod (g-1))``, arriving on trunk ``T-1-j``;
  needs ``(g-1)`` to divide ``T``.

Routings (compiled in ``core/grouped.c``; random choices hash the seed, the packet and a salt):

* ``min`` -- local hops to a router owning a global link to the destination
  group (its own link if it has one), the global hop, local hops to the
  destination: ``2L+1`` router hops at most, ``L`` the local diameter.
* ``val`` -- Valiant: minimal to a random intermediate group, then minimal to
  the destination; inside one group, via a random intermediate router
  (``local_valiant``; Megafly routes MIN there, see ``megafly.py``).
* ``ugal`` -- UGAL-L: at the source router, per packet, MIN unless one of
  ``candidates`` (default 3) random Valiant paths is cheaper.  A path costs
  the bytes its first port is committed to times its router hops ``H``:
  the port's queue plus, with credit flow control, what it has sent into the
  next router's buffer beyond what the link holds in flight (BookSim's used
  credits; see ``core/ugal.c``).  MIN keeps a bias of ``b`` packets
  (``network.ugal_bias_packets``; 3 by default, BookSim's 30 flits; 24 on
  Aries): a candidate wins only if its cost is below
  ``(committed[min port] - b packets) * H_min``.  A candidate whose
  intermediate group hangs off the same gateway router as the destination
  group (``h-1`` of ``g-2`` groups) leaves by the minimal path's first port
  and can never win; with a single candidate that share of packets would
  still go MIN into a saturated global link under adversarial load, and its
  queue would back up into the injection buffers.
* ``par`` -- progressive adaptive routing (Jiang, Kim & Dally, ISCA 2009): the
  UGAL-L choice is re-made at every router of the source group while the
  packet still follows MIN.

Virtual channels (deadlock freedom).  A path is cut into *phases*: a phase ends
with a global hop, on reaching an intra-group Valiant router, or where PAR
diverts a packet after at least one local hop.  A phase holds at most ``L``
local hops; local hop ``l`` (0-based) of phase ``f`` uses VC ``L*f + l`` and
the global hop ending phase ``f`` uses VC ``L*f + L - 1``.  Ranking channels by
(VC, local before global), every packet's rank strictly increases hop by hop,
so the channel dependency graph is acyclic.  VCs needed: ``L`` times 2 (MIN),
3 (VAL, UGAL), 4 (PAR) -- 2/3/4 for the dragonfly (L=1) as in Kim et al. and
Jiang et al., 4/6/8 for Aries (L=2).
"""
from __future__ import annotations

import numpy as np

from ppt.errors import ConfigError
from ppt.interconnects.topologies.legalpaths import (FAR, hop_counts, legal_hops, legal_survey, local_distances,
                                                     valiant_served)
from ppt.interconnects.topologies.registry import register
from ppt.interconnects.topologies.topology import LinkClass, Topology, register_routing
from ppt.params import Param, read_section

ARRANGEMENTS = ("consecutive", "palmtree")



def complete_graph_ports(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Port wiring of ``n`` all-to-all members: ``(peer, peer_port)``, both ``(n, n-1)``.

    Port ``q`` of member ``u`` reaches member ``q`` if ``q < u`` else ``q + 1``.
    """
    u = np.arange(n)[:, None]
    q = np.arange(n - 1)[None, :]
    peer = q + (q >= u)
    return peer, u - (u > peer)


def global_arrangement(num_groups: int, trunks: int, arrangement: str) -> tuple[np.ndarray, np.ndarray]:
    """Peer group and peer trunk of every trunk of every group, ``(g, T)`` arrays, -1 if unused."""
    g, m = num_groups, num_groups - 1
    i = np.arange(g)[:, None]
    tau = np.arange(trunks)[None, :]
    if arrangement == "consecutive":
        o = tau % m
        group = o + (o >= i)
        peer = (tau // m) * m + i - (i > group)
        used = np.broadcast_to(tau < (trunks // m) * m, group.shape)
        return np.where(used, group, -1), np.where(used, peer, -1)
    group = (i - 1 - tau % m) % g
    return group, np.broadcast_to(trunks - 1 - tau, group.shape).copy()


class GroupedTopology(Topology):
    """Identical groups of routers joined by global links (dragonfly family).

    Router ``r`` is router ``r % a`` of group ``r // a``; its ports are the
    local ports, then its global ports, then its node ports.  Local router
    ``u`` of every group owns ``global_ports[u]`` global and
    ``nodes_per_router[u]`` node ports (the same for all routers in the
    dragonfly and Aries; none or all on Megafly's leaves and spines); slots a
    router does not use are marked -1.  Nodes fill routers in order, group by
    group, so ``num_nodes`` may be below ``g * nodes_per_group``.
    ``local_diameter`` is the most local hops between two routers of a group.
    """

    routings: dict = {}  # registered at the end of this module
    #: Valiant between routers of one group goes via a random third router of the group (else MIN).
    local_valiant = True

    num_groups: int
    routers_per_group: int
    nodes_per_group: int
    local_diameter: int

    def _build(self, *, num_groups, local_peer, local_peer_port, local_port_class, global_ports,
               bundle, arrangement, nodes_per_router, num_nodes, link_classes, global_class,
               node_class, router_delay_s):
        """Wire the ports.  ``local_peer``/``local_peer_port`` are ``(a, lp)`` (-1: no local port);
        ``global_ports`` and ``nodes_per_router`` are counts, one for all routers or one per local router."""
        a, lp = local_peer.shape
        g = num_groups
        h_of = np.broadcast_to(np.asarray(global_ports, dtype=np.int64), (a,))
        p_of = np.broadcast_to(np.asarray(nodes_per_router, dtype=np.int64), (a,))
        h = int(h_of.max())
        radix = lp + int((h_of + p_of).max())
        self.num_groups, self.routers_per_group = g, a
        self.nodes_per_group = int(p_of.sum())
        self.num_routers, self.num_nodes, self.radix = a * g, num_nodes, radix
        self.link_classes, self.router_delay_s = tuple(link_classes), router_delay_s

        peer = np.full((g, a, radix), -1, dtype=np.int64)
        peer_port = np.full((g, a, radix), -1, dtype=np.int64)
        cls = np.full((g, a, radix), -1, dtype=np.int64)
        wired = local_peer >= 0
        peer[:, :, :lp] = np.where(wired, (np.arange(g) * a)[:, None, None] + local_peer, -1)
        peer_port[:, :, :lp] = np.where(wired, local_peer_port, -1)
        cls[:, :, :lp] = np.where(wired, local_port_class, -1)

        # global slot j of a group: the k-th global port of router slot_router[j], routers in order
        slot_router = np.repeat(np.arange(a), h_of)
        slot_port = lp + np.arange(len(slot_router)) - np.repeat(np.cumsum(h_of) - h_of, h_of)
        trunks = len(slot_router) // bundle
        trunk_group, trunk_peer = global_arrangement(g, trunks, arrangement)
        slot_group = np.repeat(trunk_group, bundle, axis=1)
        slot_peer = np.repeat(trunk_peer, bundle, axis=1) * bundle + np.tile(np.arange(bundle), trunks)
        used = slot_group >= 0
        peer[:, slot_router, slot_port] = np.where(used, slot_group * a + slot_router[slot_peer], -1)
        peer_port[:, slot_router, slot_port] = np.where(used, slot_port[slot_peer], -1)
        cls[:, slot_router, slot_port] = np.where(used, global_class, -1)

        # node i of a group: the q-th node port of router node_local[i], after its global ports
        node_local = np.repeat(np.arange(a), p_of)
        node_slot = lp + h_of[node_local] + np.arange(len(node_local)) - np.repeat(np.cumsum(p_of) - p_of, p_of)
        node = np.arange(g * self.nodes_per_group).reshape(g, -1)
        present = node < num_nodes
        peer_port[:, node_local, node_slot] = np.where(present, node, -1)
        cls[:, node_local, node_slot] = np.where(present, node_class, -1)

        self.port_peer = peer.reshape(a * g, radix)
        self.port_peer_port = peer_port.reshape(a * g, radix)
        self.port_class = cls.reshape(a * g, radix)
        group, member = np.divmod(np.arange(num_nodes), self.nodes_per_group)
        self.node_router = group * a + node_local[member]
        self.node_port = node_slot[member]
        self._local_tables(local_peer)
        self._global_tables(lp, h)

    def _local_tables(self, local_peer: np.ndarray) -> None:
        """Hop distances inside a group and, per (router, target), the ports that get closer."""
        a = local_peer.shape[0]
        wired = local_peer >= 0
        adjacent = np.zeros((a, a), dtype=bool)
        adjacent[np.nonzero(wired)[0], local_peer[wired]] = True
        dist = hop_counts(adjacent).astype(np.int64)
        if (dist >= FAR).any():
            raise ConfigError("the routers of a group are not connected; check the local wiring")
        self.local_diameter = int(dist.max())
        self.local_distance = dist
        closer = (dist[local_peer] == (dist - 1)[:, None, :]) & wired[:, :, None]   # (u, port, v)
        u, port, v = np.nonzero(closer)
        order = np.lexsort((port, v, u))
        #: Ports of local router u one hop closer to local router v: local_next[start[u*a+v]:start[u*a+v+1]].
        self._local_next = port[order]
        self._local_next_start = np.searchsorted((u * a + v)[order], np.arange(a * a + 1))

    def _global_tables(self, lp: int, h: int) -> None:
        """The global links between every ordered pair of groups, in (router, port) order."""
        a, g = self.routers_per_group, self.num_groups
        self._local_ports, self._global_ports = lp, h
        glob = self.port_peer[:, lp:lp + h] >= 0
        router, slot = np.nonzero(glob)
        port = slot + lp
        key = (router // a) * g + self.port_peer[router, port] // a
        order = np.argsort(key, kind="stable")
        key = key[order]
        self._gw_start = np.searchsorted(key, np.arange(g * g))
        self._gw_count = np.bincount(key, minlength=g * g)
        self._gw_router, self._gw_port = router[order], port[order]

    def router_groups(self) -> np.ndarray:
        return np.arange(self.num_routers) // self.routers_per_group

    # -- link failures (legalpaths.py, core/grouped_failures.c) ---------------

    #: Surviving local hops ``[router, v]`` to router ``v`` of its group; None without failures.
    router_distance = None

    def with_failed_links(self, failed: np.ndarray, spec) -> "GroupedTopology":
        """A copy whose ``failed`` links are unused slots; its routings take legal paths only
        (``local_diameter`` keeps the fault-free value, which fixes the VCs)."""
        out = self.without_links(failed, spec)
        out._global_tables(self._local_ports, self._global_ports)
        out.router_distance = local_distances(out)
        return out

    def legal_survey(self) -> tuple[np.ndarray, int]:
        """:func:`~ppt.interconnects.topologies.legalpaths.legal_survey`, computed once."""
        survey = self.__dict__.get("_legal_survey")
        if survey is None:
            survey = self._legal_survey = legal_survey(self)
        return survey

    def unroutable_pairs(self, spec=None) -> np.ndarray:
        if self.failures is None:
            return super().unroutable_pairs(spec)
        pairs = self.legal_survey()[0]
        if spec is not None and spec.valiant and len(pairs):
            pairs = pairs[~valiant_served(self, pairs)]
        return pairs

    def legal_hops(self, spec=None) -> np.ndarray:
        """Hops of the shortest legal MIN path per router pair
        (:func:`~ppt.interconnects.topologies.legalpaths.legal_hops`)."""
        if self.failures is None:
            return super().legal_hops(spec)
        return legal_hops(self, spec is not None and spec.valiant)

    def build_core_tables(self):
        """The ``ppt_grouped_t`` the compiled routings read."""
        from ppt.interconnects.core import array, ffi
        t = ffi.new("ppt_grouped_t *")
        t.a, t.g, t.L = self.routers_per_group, self.num_groups, self.local_diameter
        t.local_valiant = self.local_valiant
        t.radix, t.local_ports, t.global_ports = self.radix, self._local_ports, self._global_ports
        keep = [array("int32_t", x) for x in (
            self.port_peer.ravel(), self.node_router, self.node_port, self._local_next_start, self._local_next,
            self.local_distance.ravel(), self._gw_start, self._gw_count, self._gw_router, self._gw_port)]
        (t.port_peer, t.node_router, t.node_port, t.local_next_start, t.local_next, t.local_dist,
         t.gw_start, t.gw_count, t.gw_router, t.gw_port) = keep
        if self.router_distance is not None:
            keep.append(array("int32_t", self.router_distance.ravel()))
            t.router_dist = keep[-1]
        self._core_keep = keep
        return t

    # -- whole-topology figures ---------------------------------------------

    def diameter(self) -> int:
        """Largest router-to-router distance: min-plus over the links of each group pair.

        Stops at the bound ``2L + 1`` (reached by the first pair in all but the
        smallest instances), so it stays cheap for hundreds of groups.  With
        failed links: the most hops of a legal MIN route between routers holding nodes.
        """
        if self.failures is not None:
            return self.legal_survey()[1]
        a, g = self.routers_per_group, self.num_groups
        dist, bound = self.local_distance, 2 * self.local_diameter + 1
        routers, ports = np.array(self._gw_router), np.array(self._gw_port)
        peers = self.port_peer[routers, ports]
        worst = self.local_diameter
        for s in range(g):
            for t in range(s + 1, g):
                i = s * g + t
                k = slice(self._gw_start[i], self._gw_start[i] + self._gw_count[i])
                # (local exit, local entry) pairs, each once (bincount: np.unique imports numpy.ma, 50 ms)
                links = np.flatnonzero(np.bincount(routers[k] % a * a + peers[k] % a, minlength=a * a))
                best = np.full((a, a), bound, dtype=np.int64)
                for chunk in np.array_split(links, -(-len(links) // 64)):
                    via = dist[:, chunk // a][:, :, None] + dist[chunk % a, :][None, :, :]
                    np.minimum(best, via.min(axis=1) + 1, out=best)
                worst = max(worst, int(best.max()))
                if worst == bound:
                    return worst
        return worst

    def worst_case_destination(self, node: int, rand: int) -> int:
        """Destination of ``node`` in the worst-case ("wc") pattern of Kim et al. 2008.

        Every node of group ``i`` sends to a node of group ``i + 1`` (modulo the
        groups that hold nodes), chosen by the non-negative integer ``rand``;
        minimal routing then loads the few links from group ``i`` to ``i + 1``.
        """
        first, count = self.worst_case_table()
        return int(first[node]) + rand % int(count[node])

    def worst_case_table(self) -> tuple[np.ndarray, np.ndarray]:
        """The "wc" pattern as data: node ``n`` sends to ``first[n] + rand % count[n]``."""
        per_group = self.nodes_per_group
        populated = -(-self.num_nodes // per_group)
        node = np.arange(self.num_nodes)
        first = (node // per_group + 1) % populated * per_group
        return first, np.minimum(per_group, self.num_nodes - first)


def check_group_limit(num_groups: int, trunks: int, where: str, limit_text: str) -> None:
    """ConfigError unless ``2 <= num_groups <= trunks + 1`` (each group pair needs a trunk)."""
    if num_groups < 2:
        raise ConfigError(f"{where} = {num_groups}: a dragonfly needs at least 2 groups")
    if num_groups > trunks + 1:
        raise ConfigError(f"{where} = {num_groups} exceeds the limit of {trunks + 1} groups ({limit_text})")


def check_arrangement(arrangement: str, num_groups: int, trunks: int, where: str) -> None:
    """ConfigError for an unknown arrangement or a palmtree that does not fit."""
    if arrangement not in ARRANGEMENTS:
        raise ConfigError(f"{where} = {arrangement!r} is unknown; choose one of: {', '.join(ARRANGEMENTS)}")
    if arrangement == "palmtree" and trunks % (num_groups - 1):
        raise ConfigError(f"{where} = 'palmtree' needs g-1 = {num_groups - 1} to divide the "
                          f"{trunks} global links of a group; use 'consecutive' or change g")


def link_params(prefix: str, links: str) -> tuple[Param, Param]:
    """The keys of link class ``prefix``: ``<prefix>_bandwidth_Bps`` and ``<prefix>_latency_s`` of each
    of its ``links`` (words for the meaning)."""
    return (Param(f"{prefix}_bandwidth_Bps", f"bandwidth of {links}, each direction", float, positive=True),
            Param(f"{prefix}_latency_s", f"latency of {links}", float, nonnegative=True))


def link_class(values: dict, name: str, prefix: str) -> LinkClass:
    """LinkClass ``name`` from the values of :func:`link_params` ``prefix``."""
    return LinkClass(name, values.pop(f"{prefix}_bandwidth_Bps"), values.pop(f"{prefix}_latency_s"))


#: The router traversal time key of a grouped topology.
ROUTER_DELAY = Param("router_delay_s", "time a packet takes to cross a router", float, nonnegative=True)
#: The compute nodes key of a grouped topology.
NUM_NODES = Param("num_nodes", "compute nodes, filling routers in order (null: every slot)", int, None,
                  positive=True)


def check_num_nodes(num_nodes: int | None, capacity: int, capacity_text: str) -> int:
    """``num_nodes``, or ``capacity`` if None; ConfigError unless ``1 <= num_nodes <= capacity``."""
    num_nodes = capacity if num_nodes is None else num_nodes
    if not 1 <= num_nodes <= capacity:
        raise ConfigError(f"topology.num_nodes = {num_nodes} must be between 1 and {capacity_text} = {capacity}")
    return num_nodes


#: The keys every local/global/node-link topology shares, after its sizes.
LOCAL_GLOBAL_NODE_PARAMS = (
    *link_params("local", "a local link (inside a group)"),
    *link_params("global", "a global link (between groups)"),
    *link_params("node", "a node's link to its router"),
    ROUTER_DELAY,
    Param("arrangement", "which global ports join which groups", str, "consecutive", choices=ARRANGEMENTS),
    NUM_NODES)


def local_global_node_fields(values: dict) -> dict:
    """The keyword arguments of a local/global/node-link topology from its read section ``values``: the
    three link classes in place of their keys."""
    values = dict(values)
    return {"local": link_class(values, "local", "local"), "global_": link_class(values, "global", "global"),
            "node": link_class(values, "node", "node"), **values}


@register
class DragonflyTopology(GroupedTopology):
    """Dragonfly of Kim et al. 2008: ``p`` nodes, ``a-1`` local and ``h`` global ports per router.

    Radix ``k = p + a + h - 1``; ``g`` groups, from 2 up to ``a*h + 1``.
    Link classes: 0 ``local``, 1 ``global``, 2 ``node``.
    """

    kind = "dragonfly"
    tagline = "Kim et al. 2008: all-to-all groups of all-to-all routers"
    params = (Param("p", "nodes on every router", int, positive=True),
              Param("a", "routers in a group", int, positive=True),
              Param("h", "global ports of every router", int, positive=True),
              Param("g", "groups, from 2 up to a*h + 1", int, positive=True),
              *LOCAL_GLOBAL_NODE_PARAMS)

    def __init__(self, p: int, a: int, h: int, g: int, local: LinkClass, global_: LinkClass,
                 node: LinkClass, router_delay_s: float, arrangement: str = "consecutive",
                 num_nodes: int | None = None):
        check_group_limit(g, a * h, "topology.g", f"a*h+1 with a={a}, h={h}")
        check_arrangement(arrangement, g, a * h, "topology.arrangement")
        num_nodes = check_num_nodes(num_nodes, p * a * g, "p*a*g")
        self.p, self.a, self.h, self.g, self.arrangement = p, a, h, g, arrangement
        peer, peer_port = complete_graph_ports(a)
        self._build(num_groups=g, local_peer=peer, local_peer_port=peer_port, local_port_class=0,
                    global_ports=h, bundle=1, arrangement=arrangement, nodes_per_router=p,
                    num_nodes=num_nodes, link_classes=(local, global_, node), global_class=1,
                    node_class=2, router_delay_s=router_delay_s)

    @classmethod
    def ports_estimate(cls, cfg: dict) -> int:
        p, a, h, g = (int(cfg[k]) for k in ("p", "a", "h", "g"))
        return a * g * (p + a - 1 + h)

    @classmethod
    def from_config(cls, cfg: dict) -> "DragonflyTopology":
        return cls(**local_global_node_fields(read_section(cfg, cls.params, "topology")))


# -- routing (core/grouped.c): phase x local-hop VCs, L per phase ---------------------------

def _vcs(phases: int):
    return lambda topology: phases * topology.local_diameter


register_routing(GroupedTopology, "min", route="ppt_grouped_min_route", inject="ppt_grouped_min_inject",
                 num_vcs=_vcs(2))
register_routing(GroupedTopology, "val", route="ppt_grouped_min_route", inject="ppt_grouped_val_inject",
                 num_vcs=_vcs(3), valiant=True)
register_routing(GroupedTopology, "ugal", route="ppt_grouped_ugal_route", inject="ppt_grouped_min_inject",
                 num_vcs=_vcs(3), options=("candidates", "ugal_bias_packets"), valiant=True, adaptive=True)
register_routing(GroupedTopology, "par", route="ppt_grouped_par_route", inject="ppt_grouped_min_inject",
                 num_vcs=_vcs(4), options=("candidates", "ugal_bias_packets"), valiant=True, adaptive=True)

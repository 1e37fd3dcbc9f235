"""k-ary n-cube (torus): any number of dimensions, per-dimension sizes, wraparound links.

Routers sit on an integer grid ``dims[0] x ... x dims[n-1]``; router ids are the
row-major (C order, last dimension fastest) index of their coordinates.  Each
router has ``links_per_direction[d]`` parallel links to each of its two
neighbours in dimension ``d`` (none when ``dims[d] == 1``); a dimension of size
2 keeps both its ``+`` and ``-`` links, so the two routers are joined twice.

Port layout of every router: for each dimension in order, the ``+`` links then
the ``-`` links (``links_per_direction[d]`` ports each), then the
``nodes_per_router`` terminal ports.  The ``j``-th ``+`` port of a router is
joined to the ``j``-th ``-`` port of its ``+`` neighbour.

Routings (deadlock freedom by virtual channels, Dally & Seitz's dateline rule:
the wraparound link of each ring is the dateline; a packet that crosses it moves
from VC 0 to VC 1 of that ring):

* ``dor`` (alias ``min``): dimension-order routing, dimensions corrected in
  index order, each along its shorter way round (ties split by a per-packet
  hash); 2 VCs.  Channel dependencies only go to a later dimension or further
  along one ring on a VC that never decreases, so they form no cycle.
* ``adaptive``: minimal adaptive.  A packet finishes the dimension it is
  travelling in, then picks the next dimension, its direction (on ties) and the
  parallel link by the least occupied output port.  It uses VC
  ``2 * finished + dateline`` where ``finished`` counts the dimensions already
  at the destination coordinate; that count never decreases along a path, and
  within one count a packet moves along one ring only, so the channel
  dependency graph is acyclic with ``2 n`` VCs.

Link failures (``network.fail_*``, ``core/torus_failures.c``): a failed link
becomes an unused slot and every routing takes surviving links only, so every
pair of routers the surviving links still join is served; pairs in different
components are reported (:meth:`Torus.unroutable_pairs`) and refused.  Both
routings gain an *escape channel*: up*/down* over a breadth-first spanning
tree of each component (one VC; no dependency leads from a down hop to an up
hop).  ``dor`` keeps its path where it survives (VCs 0/1), else detours
through an intermediate router whose two dimension-order legs survive (VCs
0/1, then 2/3), else escapes (VC 4).  ``adaptive`` adapts over surviving
links, entering a ring only where the way to the target coordinate survives,
and, left without a productive move, plans from there as ``dor`` does (VCs
2n..2n+3 for the detour's legs, 2n+4 to escape).  A packet's VCs only move to a later set, and
each set is acyclic on its own, so failures cannot deadlock either routing.
"""
from __future__ import annotations

import math

import numpy as np

from ppt.errors import ConfigError
from ppt.interconnects.topologies.registry import register
from ppt.interconnects.topologies.topology import LinkClass, Topology, register_routing
from ppt.params import Param, read_section

_WHERE = "topology"


def _number(value, key: str, kind, minimum, inclusive: bool):
    """``value`` as ``kind``, at least (or, not inclusive, above) ``minimum``; ConfigError names ``key``."""
    try:
        if isinstance(value, bool) or (kind is int and float(value) != int(value)):
            raise ValueError
        value = kind(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{_WHERE}.{key} must be {kind.__name__}, got {value!r}") from None
    if value < minimum or (value == minimum and not inclusive):
        bound = ">=" if inclusive else ">"
        raise ConfigError(f"{_WHERE}.{key} must be {bound} {minimum}, got {value!r}")
    return value


def _per_dimension(value, n: int, key: str, kind, minimum, inclusive: bool) -> tuple:
    """``value`` (one number for all dimensions, or a list of ``n``) as an ``n``-tuple."""
    values = list(value) if isinstance(value, (list, tuple)) else [value] * n
    if len(values) != n:
        raise ConfigError(f"{_WHERE}.{key} lists {len(values)} values for {n} dimensions; "
                          f"give one value or one per dimension")
    return tuple(_number(v, key, kind, minimum, inclusive) for v in values)


@register
class Torus(Topology):
    """A k-ary n-cube with ``nodes_per_router`` compute nodes on each router.

    Preset fields (``topology`` section): :attr:`params` (``ppt describe torus``);
    ``link_bandwidth_Bps`` and ``link_latency_s`` take one number or one per
    dimension.  ``num_nodes`` places that many compute nodes evenly over the
    ``num_routers * nodes_per_router`` slots; the other slots stay unused
    (service nodes on a real machine).  Port tables are ``int32``.
    """

    kind = "torus"
    tagline = "k-ary n-cube: any number of dimensions, wraparound links"
    #: Read as given: the constructor checks them, a number or one per dimension alike.
    params = (Param("dims", "routers along each dimension", shape="list of int", positive=True),
              Param("link_bandwidth_Bps", "bandwidth of a torus link, each direction", shape="number or list",
                    positive=True),
              Param("link_latency_s", "latency of a torus link", shape="number or list", nonnegative=True),
              Param("terminal_bandwidth_Bps", "bandwidth of a node's link to its router", shape="float",
                    positive=True),
              Param("terminal_latency_s", "latency of a node's link to its router", default=0.0, shape="float",
                    nonnegative=True),
              Param("router_delay_s", "time a packet takes to cross a router", default=0.0, shape="float",
                    nonnegative=True),
              Param("nodes_per_router", "nodes on every router", default=1, shape="int", positive=True),
              Param("links_per_direction", "parallel links to each neighbour", default=1, shape="int or list",
                    positive=True),
              Param("dim_names", "names of the dimensions (null: dim0, dim1, ...)", default=None,
                    shape="list of str"),
              Param("num_nodes", "nodes spread evenly over the node slots (null: every slot)", default=None,
                    shape="int", positive=True))
    #: Parameters a machine kind fixes; a preset may not set them (nor does it declare them).
    fixed: dict = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.params = tuple(param for param in cls.params if param.name not in cls.fixed)

    @classmethod
    def preset_keys(cls) -> tuple[str, ...]:
        """The declared keys and the fixed ones, which :meth:`from_config` refuses in words of their own."""
        return (*super().preset_keys(), *cls.fixed)

    def __init__(self, dims, *, link_bandwidth_Bps, link_latency_s, terminal_bandwidth_Bps,
                 terminal_latency_s=0.0, router_delay_s=0.0, nodes_per_router=1,
                 links_per_direction=1, num_nodes=None, dim_names=None):
        if not isinstance(dims, (list, tuple)) or not dims:
            raise ConfigError(f"{_WHERE}.dims must be a non-empty list of dimension sizes, got {dims!r}")
        n = len(dims)
        self.dims = _per_dimension(dims, n, "dims", int, 1, True)
        self.check_dims(self.dims)
        self.links_per_direction = _per_dimension(links_per_direction, n, "links_per_direction",
                                                  int, 1, True)
        bandwidths = _per_dimension(link_bandwidth_Bps, n, "link_bandwidth_Bps", float, 0, False)
        latencies = _per_dimension(link_latency_s, n, "link_latency_s", float, 0, True)
        self.nodes_per_router = _number(nodes_per_router, "nodes_per_router", int, 1, True)
        self.router_delay_s = _number(router_delay_s, "router_delay_s", float, 0, True)
        terminal = LinkClass("node",
                             _number(terminal_bandwidth_Bps, "terminal_bandwidth_Bps", float, 0, False),
                             _number(terminal_latency_s, "terminal_latency_s", float, 0, True))
        if dim_names is None:
            dim_names = [f"dim{d}" for d in range(n)]
        if not isinstance(dim_names, (list, tuple)) or len(dim_names) != n:
            raise ConfigError(f"{_WHERE}.dim_names must list {n} names, one per dimension, got {dim_names!r}")
        self.dim_names = tuple(str(name) for name in dim_names)

        self.num_routers = math.prod(self.dims)
        slots = self.num_routers * self.nodes_per_router
        if num_nodes is None:
            num_nodes = slots
        num_nodes = _number(num_nodes, "num_nodes", int, 1, True)
        if num_nodes > slots:
            raise ConfigError(f"{_WHERE}.num_nodes is {num_nodes} but the torus has only {slots} "
                              f"node slots ({self.num_routers} routers x {self.nodes_per_router})")
        self.num_nodes = num_nodes

        self.strides = tuple(math.prod(self.dims[d + 1:]) for d in range(n))
        first = np.concatenate(([0], np.cumsum([2 * m for m in self.links_per_direction])))
        #: direction_ports[d] = (ports of the + links, ports of the - links) of dimension d.
        self.direction_ports = tuple(
            (tuple(range(first[d], first[d] + m)), tuple(range(first[d] + m, first[d] + 2 * m)))
            for d, m in enumerate(self.links_per_direction))
        self.num_torus_ports = int(first[-1])
        self.radix = self.num_torus_ports + self.nodes_per_router
        self.link_classes = tuple(LinkClass(name, bw, lat) for name, bw, lat
                                  in zip(self.dim_names, bandwidths, latencies)) + (terminal,)
        self._build_tables()

    @classmethod
    def check_dims(cls, dims: tuple) -> None:
        """Raise ConfigError when ``dims`` is impossible for this kind (any n-cube is fine here)."""

    def _build_tables(self) -> None:
        R, radix = self.num_routers, self.radix
        self.port_peer = np.full((R, radix), -1, dtype=np.int32)
        self.port_peer_port = np.full((R, radix), -1, dtype=np.int32)
        self.port_class = np.full((R, radix), -1, dtype=np.int32)
        router = np.arange(R, dtype=np.int32)
        for d, (k, stride) in enumerate(zip(self.dims, self.strides)):
            if k == 1:
                continue
            coord = (router // stride) % k
            up = router + np.where(coord == k - 1, -(k - 1) * stride, stride).astype(np.int32)
            for plus, minus in zip(*self.direction_ports[d]):
                self.port_peer[:, plus] = up
                self.port_peer_port[:, plus] = minus
                self.port_peer[up, minus] = router
                self.port_peer_port[up, minus] = plus
                self.port_class[:, plus] = d
                self.port_class[:, minus] = d
        slots = R * self.nodes_per_router
        slot = (np.arange(self.num_nodes, dtype=np.int64) * slots) // self.num_nodes
        self.node_router = (slot // self.nodes_per_router).astype(np.int32)
        self.node_port = (self.num_torus_ports + slot % self.nodes_per_router).astype(np.int32)
        self.port_peer_port[self.node_router, self.node_port] = np.arange(self.num_nodes, dtype=np.int32)
        self.port_class[self.node_router, self.node_port] = len(self.dims)

    @classmethod
    def ports_estimate(cls, cfg: dict) -> int:
        dims = [int(k) for k in cfg["dims"]]
        links = cfg.get("links_per_direction", cls.fixed.get("links_per_direction", 1))
        links = [int(m) for m in links] if isinstance(links, (list, tuple)) else [int(links)] * len(dims)
        return math.prod(dims) * (2 * sum(links) + int(cfg.get("nodes_per_router", cls.fixed.get("nodes_per_router", 1))))

    @classmethod
    def from_config(cls, cfg: dict) -> "Torus":
        """Build from a preset's ``topology`` section (see the class docstring for fields)."""
        for key, value in cls.fixed.items():
            if isinstance(cfg, dict) and key in cfg:
                raise ConfigError(f"{_WHERE}.{key} is fixed at {value!r} for kind {cls.kind!r}; "
                                  f"remove it or use kind 'torus'")
        return cls(**read_section(cfg, cls.params, _WHERE), **cls.fixed)

    def build_core_tables(self):
        """The ``ppt_torus_t`` the compiled routings read: the rings and every router's coordinates."""
        from ppt.interconnects.core import array, ffi
        rings = [d for d, k in enumerate(self.dims) if k > 1]
        if len(rings) > 8:
            raise ConfigError(f"{_WHERE}.dims: the packet core routes tori of at most 8 dimensions "
                              f"with more than one router, got {len(rings)}")
        t = ffi.new("ppt_torus_t *")
        t.nrings = len(rings)
        for j, d in enumerate(rings):
            plus, minus = self.direction_ports[d]
            t.dim[j], t.k[j], t.plus[j], t.minus[j], t.links[j] = d, self.dims[d], plus[0], minus[0], len(plus)
        router = np.arange(self.num_routers, dtype=np.int64)
        coord = np.stack([(router // self.strides[d]) % self.dims[d] for d in rings], axis=1) if rings else \
            np.zeros((self.num_routers, 0), dtype=np.int64)
        keep = [array("int32_t", coord.ravel()), array("int32_t", self.node_router),
                array("int32_t", self.node_port)]
        t.coord, t.node_router, t.node_port = keep
        t.num_routers, t.radix = self.num_routers, self.radix
        for j, d in enumerate(rings):
            t.stride[j] = self.strides[d]
        if self.failures is not None:
            depth, pre, end = self.escape_forest()
            keep += [array("int32_t", self.port_peer.ravel()), array("int32_t", depth), array("int32_t", pre),
                     array("int32_t", end)]
            t.port_peer, t.esc_depth, t.esc_pre, t.esc_end = keep[-4:]
        self._core_keep = keep
        return t

    # -- link failures (core/torus_failures.c) ----------------------------------------------------

    def with_failed_links(self, failed: np.ndarray, spec) -> "Torus":
        """A copy whose ``failed`` links are unused slots; its routings take surviving links only,
        with an up*/down* escape channel that serves every pair the surviving links still join."""
        return self.without_links(failed, spec)

    def components(self) -> np.ndarray:
        """Connected component of every router over the surviving links (numbered from 0 in order of
        their lowest router)."""
        survey = self.__dict__.setdefault("_legal_survey", {})
        label = survey.get("components")
        if label is None:
            label = np.full(self.num_routers, -1, dtype=np.int64)
            peer, count = self.port_peer, 0
            for root in range(self.num_routers):
                if label[root] >= 0:
                    continue
                label[root] = count
                frontier = np.array([root])
                while frontier.size:
                    nxt = peer[frontier].ravel()
                    nxt = np.unique(nxt[nxt >= 0])
                    nxt = nxt[label[nxt] < 0]
                    label[nxt] = count
                    frontier = nxt
                count += 1
            survey["components"] = label
        return label

    def escape_forest(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The escape channel's spanning forest over the surviving links: a breadth-first tree per
        component from its lowest router (the parent of a router the lowest router one level up
        beside it), as ``(depth, pre, end)`` per router: tree depth, preorder number, and preorder
        number past its subtree (router u holds v below it iff ``pre[u] <= pre[v] < end[u]``)."""
        survey = self.__dict__.setdefault("_legal_survey", {})
        if "forest" not in survey:
            survey["forest"] = self._escape_forest()
        return survey["forest"]

    def _escape_forest(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        R, peer = self.num_routers, self.port_peer
        depth = np.full(R, -1, dtype=np.int64)
        parent = np.full(R, -1, dtype=np.int64)
        order = []
        for root in range(R):
            if depth[root] >= 0:
                continue
            depth[root], frontier = 0, np.array([root])
            while frontier.size:
                order.append(frontier)
                near = peer[frontier]
                cand = np.where(near >= 0, near, R)
                fresh = np.unique(cand[(cand < R)])
                fresh = fresh[depth[fresh] < 0]
                if fresh.size:
                    depth[fresh] = depth[frontier[0]] + 1
                    # parent: the lowest router of the frontier beside it
                    rows = np.repeat(frontier, near.shape[1])
                    cols = cand.ravel()
                    hit = (cols < R) & np.isin(cols, fresh)
                    pairs = np.unique(np.column_stack([cols[hit], rows[hit]]), axis=0)
                    first = np.unique(pairs[:, 0], return_index=True)[1]
                    parent[pairs[first, 0]] = pairs[first, 1]
                frontier = fresh
        order = np.concatenate(order)
        size = np.ones(R, dtype=np.int64)
        for r in order[::-1]:
            if parent[r] >= 0:
                size[parent[r]] += size[r]
        pre = np.zeros(R, dtype=np.int64)
        next_child = np.zeros(R, dtype=np.int64)       # preorder number of a router's next child
        offset = 0
        for r in order:                                  # parents come before children, children by id
            p = parent[r]
            if p < 0:
                pre[r], offset = offset, offset + size[r]
            else:
                pre[r] = next_child[p]
            next_child[r] = pre[r] + 1
            if p >= 0:
                next_child[p] += size[r]
        return depth, pre, pre + size

    def unroutable_pairs(self, spec=None) -> np.ndarray:
        """Router pairs (both holding nodes) in different components of the surviving links: every
        routing serves every other pair (its escape channel reaches the whole component)."""
        if self.failures is None:
            return super().unroutable_pairs(spec)
        label = self.components()
        holds = np.unique(self.node_router).astype(np.int64)
        apart = label[holds]
        if np.unique(apart).size < 2:
            return np.zeros((0, 2), dtype=np.int64)
        x, y = [], []
        for part in np.unique(apart):           # each component's routers against all the others'
            mine, others = holds[apart == part], holds[apart != part]
            x.append(np.repeat(mine, others.size))
            y.append(np.tile(others, mine.size))
        x, y = np.concatenate(x), np.concatenate(y)
        order = np.lexsort((y, x))
        return np.column_stack([x[order], y[order]])

    def coordinates(self, router: int) -> tuple[int, ...]:
        """Grid coordinates of ``router``."""
        return tuple((router // s) % k for s, k in zip(self.strides, self.dims))

    def router_at(self, coords) -> int:
        """Router id at grid coordinates ``coords`` (taken modulo each size)."""
        return sum((c % k) * s for c, k, s in zip(coords, self.dims, self.strides))

    def hop_distances(self, source: int) -> np.ndarray:
        """Minimal router hops from ``source`` to every router: sum of ring distances."""
        router = np.arange(self.num_routers, dtype=np.int64)
        dist = np.zeros(self.num_routers, dtype=np.int64)
        for k, stride, c0 in zip(self.dims, self.strides, self.coordinates(source)):
            delta = np.abs((router // stride) % k - c0)
            dist += np.minimum(delta, k - delta)
        return dist

    def diameter(self) -> int:
        """Largest minimal hop count: sum of ``floor(k_d / 2)``.  With failed links: the most router
        hops a route may take (a minimal part, then two dimension-order legs or the escape channel's
        climb and descent), which bounds a packet's path as the diameter does without."""
        minimal = sum(k // 2 for k in self.dims)
        if self.failures is None:
            return minimal
        return minimal + max(2 * minimal, 2 * int(self.escape_forest()[0].max()))


# Routings (core/torus.c): dimension order with dateline VCs, and minimal adaptive with 2n VCs; with failed
# links (core/torus_failures.c) each adds the VC pairs of a two-leg dimension-order detour and the escape VC.
register_routing(Torus, "dor", route="ppt_torus_dor_route", inject="ppt_torus_inject", aliases=("min",),
                 num_vcs=lambda torus: 2 if torus.failures is None else 5)
register_routing(Torus, "adaptive", route="ppt_torus_adaptive_route", inject="ppt_torus_adaptive_inject", adaptive=True,
                 num_vcs=lambda torus: max(2, 2 * sum(k > 1 for k in torus.dims)) + 5 * (torus.failures is not None))

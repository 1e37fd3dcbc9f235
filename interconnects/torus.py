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
"""
from __future__ import annotations

import math

import numpy as np

from ppt.config import field
from ppt.errors import ConfigError
from ppt.interconnects.registry import register
from ppt.interconnects.topology import LinkClass, Topology, register_routing

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

    Preset fields (``topology`` section): ``dims`` (sizes, one per dimension),
    ``link_bandwidth_Bps`` (bytes/s per direction of one link) and
    ``link_latency_s`` (seconds), each one number or one per dimension,
    ``terminal_bandwidth_Bps``; optional ``terminal_latency_s`` (0),
    ``router_delay_s`` (0), ``nodes_per_router`` (1), ``links_per_direction``
    (1, or one per dimension), ``dim_names`` and ``num_nodes``.  ``num_nodes``
    (default: every slot) places that many compute nodes evenly over the
    ``num_routers * nodes_per_router`` slots; the other slots stay unused
    (service nodes on a real machine).  Port tables are ``int32``.
    """

    kind = "torus"
    #: Parameters a machine kind fixes; a preset may not set them.
    fixed: dict = {}

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
        options = dict(cls.fixed)
        for key in ("nodes_per_router", "links_per_direction", "num_nodes", "dim_names",
                    "router_delay_s", "terminal_latency_s"):
            if key not in options:
                value = field(cfg, key, _WHERE, default=None)
                if value is not None:
                    options[key] = value
        return cls(field(cfg, "dims", _WHERE),
                   link_bandwidth_Bps=field(cfg, "link_bandwidth_Bps", _WHERE),
                   link_latency_s=field(cfg, "link_latency_s", _WHERE),
                   terminal_bandwidth_Bps=field(cfg, "terminal_bandwidth_Bps", _WHERE),
                   **options)

    def build_core_tables(self):
        """The ``ppt_torus_t`` the compiled routings read: the rings and every router's coordinates."""
        from ppt.interconnects.packetcore import array, ffi
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
        self._core_keep = keep
        return t

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
        """Largest minimal hop count: sum of ``floor(k_d / 2)``."""
        return sum(k // 2 for k in self.dims)



# Routings (csrc/torus.c): dimension order with dateline VCs, and minimal adaptive with 2n VCs.
register_routing(Torus, "dor", route="ppt_torus_dor_route", inject="ppt_torus_inject", num_vcs=2, aliases=("min",))
register_routing(Torus, "adaptive", route="ppt_torus_adaptive_route", inject="ppt_torus_inject",
                 num_vcs=lambda torus: max(2, 2 * sum(k > 1 for k in torus.dims)))

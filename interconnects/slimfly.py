"""Slim Fly: diameter-2 networks on McKay-Miller-Siran (MMS) graphs.

References: M. Besta and T. Hoefler, "Slim Fly: A Cost Effective Low-Diameter
Network Topology", SC14 (arXiv:1912.08968); B. D. McKay, M. Miller and J. Siran,
"A note on large graphs of diameter two and given maximum degree", J. Comb.
Theory B 74 (1998).

For a prime power q = 4w + d, d in {-1, 0, 1}, and a primitive element xi of GF(q)
(``galois`` picks the smallest one), the generator sets are

* d = +1: X = {1, xi^2, ..., xi^(q-3)},  X' = {xi, xi^3, ..., xi^(q-2)}
* d = -1: X = {1, xi^2, ..., xi^(2w-2), xi^(2w-1), xi^(2w+1), ..., xi^(4w-3)},
          X' = {xi, xi^3, ..., xi^(2w-1), xi^(2w), xi^(2w+2), ..., xi^(4w-2)}
* d =  0: X = {1, xi^2, ..., xi^(q-2)},  X' = {xi, xi^3, ..., xi^(q-1)}

Routers (s, x, y), s in {0, 1}, x, y in GF(q): 2q^2 routers, id = s*q^2 + x*q + y.
(0,x,y) ~ (0,x,y') iff y - y' in X;  (1,m,c) ~ (1,m,c') iff c - c' in X';
(0,x,y) ~ (1,m,c) iff y = m*x + c.  Network radix k' = (3q - d)/2, diameter 2.
Only q = 2 among prime powers has no such form (q = 4w + 2).

Ports of every router: [0, p) terminals; [p, p+h) intra-subgraph links, port p+i
to the neighbour at difference +X[i] (h = |X| = (q - d)/2); [p+h, p+h+q) links to
the other subgraph, port p+h+j to the router whose column is j ((1, j, y - j*x)
from (0,x,y), (0, j, m*j + c) from (1,m,c)).  Node n sits on router n // p,
port n % p.

Minimal routes come from this structure in closed form (no all-pairs table):
two routers of one column meet through the intra neighbour a in X (or X') with
diff - a in X; two columns of one subgraph through the unique router of the other
subgraph on both (m = (y - y')/(x - x')); across subgraphs through (0, x, m*x + c)
or (1, m, y - m*x), whichever is adjacent.
"""
from __future__ import annotations

import galois
import numpy as np

from ppt.config import field
from ppt.errors import ConfigError
from ppt.interconnects.registry import register
from ppt.interconnects.topology import Routing, Topology, switch_and_terminal

NETWORK_LINK, TERMINAL_LINK = 0, 1


class MMSField:
    """GF(q) lookup tables and the MMS generator sets X, X' for one prime power q."""

    def __init__(self, q: int):
        if not galois.is_prime_power(q):
            raise ConfigError(f"topology.q must be a prime power (Slim Fly needs GF(q)), got {q}")
        if q % 4 == 2:
            raise ConfigError(f"topology.q = {q} has no MMS form q = 4w + d with d in {{-1, 0, 1}}; "
                              "use an odd prime power or a power of 2 >= 4")
        self.q = q
        self.delta = {1: 1, 3: -1, 0: 0}[q % 4]
        w = (q - self.delta) // 4
        gf = galois.GF(q)
        e = gf(np.arange(q))
        self.add = np.asarray(e[:, None] + e[None, :], dtype=np.int32)
        self.sub = np.asarray(e[:, None] - e[None, :], dtype=np.int32)
        self.mul = np.asarray(e[:, None] * e[None, :], dtype=np.int32)
        self.inv = np.zeros(q, dtype=np.int32)
        self.inv[1:] = np.asarray(e[1:] ** -1, dtype=np.int32)
        if self.delta == 1:
            powers_x, powers_xp = range(0, q - 2, 2), range(1, q - 1, 2)
        elif self.delta == -1:
            powers_x = [*range(0, 2 * w - 1, 2), *range(2 * w - 1, 4 * w - 2, 2)]
            powers_xp = [*range(1, 2 * w, 2), *range(2 * w, 4 * w - 1, 2)]
        else:
            powers_x, powers_xp = range(0, q - 1, 2), range(1, q, 2)
        xi = gf.primitive_element
        self.X = [int(xi ** k) for k in powers_x]
        self.Xp = [int(xi ** k) for k in powers_xp]

    def position(self, gens: list[int]) -> np.ndarray:
        """Index of each field element in ``gens`` (-1 when absent)."""
        pos = np.full(self.q, -1, dtype=np.int32)
        pos[gens] = np.arange(len(gens))
        return pos

    def two_step(self, gens: list[int]) -> np.ndarray:
        """For each difference d, an element a of ``gens`` with d - a in ``gens`` (-1 if none)."""
        g = np.asarray(gens)
        sums = self.add[g[:, None], g[None, :]]
        first = np.full(self.q, len(g), dtype=np.int64)     # lowest generator index per sum
        np.minimum.at(first, sums.ravel(), np.repeat(np.arange(len(g)), len(g)))
        return np.where(first < len(g), np.append(g, -1)[first], -1)


@register
class SlimFly(Topology):
    """A Slim Fly of 2q^2 routers with p nodes each (see module docstring)."""

    kind = "slimfly"

    def __init__(self, q: int, p: int, link_bandwidth_Bps: float, link_latency_s: float,
                 router_delay_s: float, terminal_bandwidth_Bps: float | None = None,
                 terminal_latency_s: float | None = None, router_radix: int | None = None,
                 ugal_c_sf: float = 1.0):
        fld = MMSField(q)
        self.field = fld
        self.q, self.p, self.delta = q, p, fld.delta
        self.h = len(fld.X)
        self.network_radix = (3 * q - fld.delta) // 2
        if p < 1:
            raise ConfigError(f"topology.p (nodes per router) must be >= 1, got {p}")
        if router_radix is not None and p + self.network_radix > router_radix:
            raise ConfigError(f"topology.p = {p} needs {p + self.network_radix} ports per router "
                              f"(p + k', k' = (3q - d)/2 = {self.network_radix}) but topology.router_radix "
                              f"is {router_radix}; use p <= {router_radix - self.network_radix}")
        self.num_routers = 2 * q * q
        self.num_nodes = self.num_routers * p
        self.radix = p + self.network_radix
        self.router_delay_s = router_delay_s
        self.ugal_c_sf = ugal_c_sf
        self.link_classes = switch_and_terminal("network", link_bandwidth_Bps, link_latency_s,
                                                terminal_bandwidth_Bps, terminal_latency_s)
        self._build_ports()
        self._make_tables()

    @classmethod
    def from_config(cls, cfg: dict) -> "SlimFly":
        where = "topology"
        return cls(q=field(cfg, "q", where, int, positive=True),
                   p=field(cfg, "p", where, int, positive=True),
                   link_bandwidth_Bps=field(cfg, "link_bandwidth_Bps", where, float, positive=True),
                   link_latency_s=field(cfg, "link_latency_s", where, float),
                   router_delay_s=field(cfg, "router_delay_s", where, float, default=0.0),
                   terminal_bandwidth_Bps=field(cfg, "terminal_bandwidth_Bps", where, float, default=None),
                   terminal_latency_s=field(cfg, "terminal_latency_s", where, float, default=None),
                   router_radix=field(cfg, "router_radix", where, int, default=None),
                   ugal_c_sf=field(cfg, "ugal_c_sf", where, float, default=1.0, positive=True))

    def _build_ports(self) -> None:
        q, p, h, fld = self.q, self.p, self.h, self.field
        q2 = q * q
        shape = (self.num_routers, self.radix)
        self.port_peer = np.empty(shape, dtype=np.int32)
        self.port_peer_port = np.empty(shape, dtype=np.int32)
        self.port_class = np.full(shape, NETWORK_LINK, dtype=np.int8)
        # terminal ports
        self.port_peer[:, :p] = -1
        self.port_peer_port[:, :p] = np.arange(self.num_nodes, dtype=np.int32).reshape(-1, p)
        self.port_class[:, :p] = TERMINAL_LINK
        nodes = np.arange(self.num_nodes)
        self.node_router = (nodes // p).astype(np.int32)
        self.node_port = (nodes % p).astype(np.int32)
        # views indexed [subgraph][column, row, port] of the two port tables
        peer = [self.port_peer[s * q2:(s + 1) * q2].reshape(q, q, -1) for s in (0, 1)]
        back = [self.port_peer_port[s * q2:(s + 1) * q2].reshape(q, q, -1) for s in (0, 1)]
        a = np.arange(q, dtype=np.int32)[:, None, None]      # column: x or m
        b = np.arange(q, dtype=np.int32)[None, :, None]      # row: y or c
        j = np.arange(q, dtype=np.int32)[None, None, :]      # column on the other side
        # intra-subgraph links: port p+i reaches the neighbour at difference +gens[i]; the
        # way back is the difference -gens[i], also a generator (X = -X, X' = -X').
        for s, gens in ((0, fld.X), (1, fld.Xp)):
            g = np.asarray(gens, dtype=np.int32)
            peer[s][:, :, p:p + h] = s * q2 + a * q + fld.add[b, g[None, None, :]]
            back[s][:, :, p:p + h] = p + fld.position(gens)[fld.sub[0, g]]
        # links across: (0,x,y) port p+h+m  <->  (1,m,c) port p+h+x  with y = m*x + c
        peer[0][:, :, p + h:] = q2 + j * q + fld.sub[b, fld.mul[j, a]]     # (1, m=j, c=y-m*x)
        back[0][:, :, p + h:] = p + h + a
        peer[1][:, :, p + h:] = j * q + fld.add[fld.mul[a, j], b]          # (0, x=j, y=m*x+c)
        back[1][:, :, p + h:] = p + h + a

    def _make_tables(self) -> None:
        """Python-list copies of the field tables for the per-packet routing code."""
        fld = self.field
        self._add, self._sub, self._mul = fld.add.tolist(), fld.sub.tolist(), fld.mul.tolist()
        self._inv = fld.inv.tolist()
        self._pos = (fld.position(fld.X).tolist(), fld.position(fld.Xp).tolist())
        self._two = (fld.two_step(fld.X).tolist(), fld.two_step(fld.Xp).tolist())

    def coordinates(self, router: int) -> tuple[int, int, int]:
        """(s, x, y) of a subgraph-0 router or (s, m, c) of a subgraph-1 router."""
        s, rest = divmod(router, self.q * self.q)
        return (s, *divmod(rest, self.q))

    def min_step(self, r: int, t: int) -> tuple[int, int]:
        """(first output port, router hops) of the minimal path from router r to router t != r."""
        q, p, h = self.q, self.p, self.h
        sub, mul = self._sub, self._mul
        sr, rest = divmod(r, q * q)
        ar, br = divmod(rest, q)
        st, rest = divmod(t, q * q)
        at, bt = divmod(rest, q)
        if sr == st:
            if ar == at:                                   # one column: intra links only
                diff = sub[bt][br]
                i = self._pos[sr][diff]
                if i >= 0:
                    return p + i, 1
                return p + self._pos[sr][self._two[sr][diff]], 2
            # two columns of one subgraph meet at the one router of the other subgraph on both
            if sr == 0:   # (0,x,y) -> (0,x',y'): m = (y - y') / (x - x')
                return p + h + mul[sub[br][bt]][self._inv[sub[ar][at]]], 2
            return p + h + mul[sub[bt][br]][self._inv[sub[ar][at]]], 2   # x = (c' - c) / (m - m')
        if sr == 0:       # (0,x,y) -> (1,m,c)
            x, y, m, c = ar, br, at, bt
            on_line = self._add[mul[m][x]][c]              # (0, x, m*x + c) is t's neighbour
            if on_line == y:
                return p + h + m, 1
            i = self._pos[0][sub[on_line][y]]
            return (p + i if i >= 0 else p + h + m), 2     # else via (1, m, y - m*x)
        m, c, x, y = ar, br, at, bt                        # (1,m,c) -> (0,x,y)
        mx = mul[m][x]
        if self._add[mx][c] == y:
            return p + h + x, 1
        i = self._pos[1][sub[sub[y][mx]][c]]               # via (1, m, y - m*x)
        return (p + i if i >= 0 else p + h + x), 2        # else via (0, x, m*x + c)

    def distance(self, r: int, t: int) -> int:
        """Minimal router hops between routers r and t (0, 1 or 2)."""
        return 0 if r == t else self.min_step(r, t)[1]

    def worst_case_destination(self, node: int, rand: int = 0) -> int:
        """Destination of ``node`` in the worst-case permutation for minimal routing
        (a fixed permutation: ``rand`` is unused).

        Let succ(0,x,y) = (1, x, y - x^2) and succ(1,m,c) = (0, m+1, m(m+1) + c): a
        bijection that moves every router over one of its cross links.  Router r sends
        to succ(succ(r)) -- (0,x,y) -> (0, x+1, y+x), (1,m,c) -> (1, m+1, c-m-1) -- which
        lies in another column of the same subgraph, so exactly two hops away with the
        unique minimal path r -> succ(r) -> succ(succ(r)).  The directed link
        r -> succ(r) thus carries two router pairs: r's (first hop) and the pair of
        succ^-1(r) (second hop).  Node i of router r sends to node i of its target.
        """
        router, local = divmod(node, self.p)
        s, a, b = self.coordinates(router)
        nxt = self._add[a][1]
        if s == 0:
            target = nxt * self.q + self._add[b][a]
        else:
            target = self.q * self.q + nxt * self.q + self._sub[b][nxt]
        return target * self.p + local

    def worst_case_table(self) -> tuple[np.ndarray, np.ndarray]:
        """The worst-case permutation as data: node ``n`` sends to ``first[n]`` (``count`` is all ones)."""
        q, fld = self.q, self.field
        router, local = np.divmod(np.arange(self.num_nodes), self.p)
        s, rest = np.divmod(router, q * q)
        a, b = np.divmod(rest, q)
        nxt = fld.add[a, 1]
        target = np.where(s == 0, nxt * q + fld.add[b, a], q * q + nxt * q + fld.sub[b, nxt])
        return target * self.p + local, np.ones(self.num_nodes, dtype=np.int64)

    def diameter(self) -> int:
        """MMS graphs have diameter 2."""
        return 2


class MinRouting(Routing):
    """Minimal routing (<= 2 router hops); VC i on hop i."""

    name = "min"
    num_vcs = 2

    def __init__(self, topology: SlimFly, seed: int = 0):
        super().__init__(topology, seed)
        self._p = topology.p
        self._min_step = topology.min_step

    def route(self, pkt, router, occupancy):
        target = pkt.dst // self._p
        if router == target:
            return pkt.dst % self._p, pkt.vc
        return self._min_step(router, target)[0], pkt.hops


class ValiantRouting(MinRouting):
    """Valiant routing: minimal to a random intermediate router, then minimal to the destination.

    At most 2 + 2 router hops; VC i on hop i.
    """

    name = "val"
    num_vcs = 4

    def inject(self, pkt):
        pkt.route = self.rand(pkt, 1) % self.topo.num_routers

    def route(self, pkt, router, occupancy):
        mid = pkt.route
        if mid == router:
            pkt.route = mid = -1
        if mid < 0:
            return MinRouting.route(self, pkt, router, occupancy)
        return self._min_step(router, mid)[0], pkt.hops


class UgalRouting(ValiantRouting):
    """UGAL-L at the source router: the minimal path against ``candidates`` random Valiant paths.

    Cost of a path = bytes queued at its first output port; a Valiant path's cost is
    scaled by (L_I / L_M) * c_SF (its hop count over the minimal one).  Ties keep
    the minimal path.
    """

    name = "ugal"

    def __init__(self, topology: SlimFly, seed: int = 0, c_sf: float | None = None, candidates: int = 3):
        super().__init__(topology, seed)
        self.c_sf = topology.ugal_c_sf if c_sf is None else c_sf
        self.candidates = candidates

    def inject(self, pkt):
        pkt.route = None   # decided at the source router, where the queues are seen

    def route(self, pkt, router, occupancy):
        if pkt.route is None:
            pkt.route = self._choose(pkt, router, occupancy)
        return ValiantRouting.route(self, pkt, router, occupancy)

    def _choose(self, pkt, router: int, occupancy) -> int:
        """The intermediate router of the cheapest path, -1 for the minimal path."""
        target = pkt.dst // self._p
        if router == target:
            return -1
        port, l_min = self._min_step(router, target)
        best, best_cost = -1, occupancy[port]
        distance, routers = self.topo.distance, self.topo.num_routers
        for i in range(self.candidates):
            mid = self.rand(pkt, 2 + i) % routers
            if mid == router or mid == target:
                continue
            first, l_up = self._min_step(router, mid)
            cost = occupancy[first] * (l_up + distance(mid, target)) / l_min * self.c_sf
            if cost < best_cost:
                best, best_cost = mid, cost
        return best


SlimFly.routings = {"min": MinRouting, "val": ValiantRouting, "ugal": UgalRouting}

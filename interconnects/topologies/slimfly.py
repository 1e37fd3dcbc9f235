"""Slim Fly: diameter-2 networks on McKay-Miller-Siran (MMS) graphs.

References: M. Besta and T. Hoefler, "Slim Fly: A Cost Effective Low-Diameter
Network Topology", SC14 (arXiv:1912.08968); B. D. McKay, M. Miller and J. Siran,
"A note on large graphs of diameter two and given maximum degree", J. Comb.
Theory B 74 (1998).

For a prime power q = 4w + d, d in {-1, 0, 1}, and the primitive element xi of GF(q) (the
smallest primitive root for q prime, the root of the Conway polynomial otherwise;
:mod:`~ppt.interconnects.topologies.finitefield`), the generator sets are

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

Link failures (``network.fail_*``): ``local`` links are those inside one column
(the intra-subgraph links, ports [p, p+h)), ``global`` ones join two columns
(the links across subgraphs).  A failed link becomes an unused slot, and every
routing takes legal paths only: each minimal leg at most 2 surviving hops, so
the hop-indexed VCs still suffice (MIN one leg, VAL and UGAL two legs through an
intermediate both legs reach so).  A pair over 2 surviving hops apart has no
legal MIN path; VAL and UGAL take a Valiant path there
(``core/slimfly_failures.c``).
"""
from __future__ import annotations

import numpy as np

from ppt.errors import ConfigError
from ppt.interconnects.topologies.finitefield import FiniteField, prime_power
from ppt.interconnects.topologies.hopreach import missing, share_any, within_two
from ppt.interconnects.topologies.registry import register
from ppt.interconnects.topologies.topology import SWITCH_LINK_PARAMS, Topology, register_routing, switch_and_terminal
from ppt.params import Param

NETWORK_LINK, TERMINAL_LINK = 0, 1


class MMSField:
    """GF(q) lookup tables and the MMS generator sets X, X' for one prime power q."""

    def __init__(self, q: int):
        if prime_power(q) is None:
            raise ConfigError(f"topology.q must be a prime power (Slim Fly needs GF(q)), got {q}")
        if q % 4 == 2:
            raise ConfigError(f"topology.q = {q} has no MMS form q = 4w + d with d in {{-1, 0, 1}}; "
                              "use an odd prime power or a power of 2 >= 4")
        self.q = q
        self.delta = {1: 1, 3: -1, 0: 0}[q % 4]
        w = (q - self.delta) // 4
        gf = FiniteField(q)
        self.add, self.sub, self.mul, self.inv = gf.add, gf.sub, gf.mul, gf.inv
        if self.delta == 1:
            powers_x, powers_xp = range(0, q - 2, 2), range(1, q - 1, 2)
        elif self.delta == -1:
            powers_x = [*range(0, 2 * w - 1, 2), *range(2 * w - 1, 4 * w - 2, 2)]
            powers_xp = [*range(1, 2 * w, 2), *range(2 * w, 4 * w - 1, 2)]
        else:
            powers_x, powers_xp = range(0, q - 1, 2), range(1, q, 2)
        self.X = [gf.power(k) for k in powers_x]
        self.Xp = [gf.power(k) for k in powers_xp]

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
    tagline = "Slim Fly (MMS graph) of 2q^2 routers, diameter 2"
    params = (Param("q", "prime power of the MMS graph: 2q^2 routers", int, positive=True),
              Param("p", "nodes on every router", int, positive=True),
              *SWITCH_LINK_PARAMS,
              Param("router_radix", "ports of a router, checked to hold p + the network ports (null: no check)",
                    int, None, positive=True),
              Param("ugal_c_sf", "UGAL's scale of a Valiant path's cost", float, 1.0, positive=True))

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

    @classmethod
    def ports_estimate(cls, cfg: dict) -> int:
        q, p = int(cfg["q"]), int(cfg["p"])
        return 2 * q * q * (p + (3 * q + 1) // 2)

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

    def build_core_tables(self):
        """The ``ppt_slimfly_t`` the compiled routings read (field tables and generator indices)."""
        from ppt.interconnects.core import array, ffi
        fld = self.field
        t = ffi.new("ppt_slimfly_t *")
        t.q, t.p, t.h, t.num_routers = self.q, self.p, self.h, self.num_routers
        keep = [array("int32_t", fld.add.ravel()), array("int32_t", fld.sub.ravel()),
                array("int32_t", fld.mul.ravel()), array("int32_t", fld.inv)]
        t.add, t.sub, t.mul, t.inv = keep
        for s, gens in enumerate((fld.X, fld.Xp)):
            keep += [array("int32_t", fld.position(gens)), array("int32_t", fld.two_step(gens))]
            t.pos[s], t.two[s] = keep[-2], keep[-1]
        t.radix = self.radix
        if self.failures is not None:
            keep.append(array("int32_t", self.port_peer.ravel()))
            t.port_peer = keep[-1]
        self._core_keep = keep
        return t

    # -- link failures (hopreach.py, core/slimfly_failures.c) -----------------

    def with_failed_links(self, failed: np.ndarray, spec) -> "SlimFly":
        """A copy whose ``failed`` links are unused slots; its routings take legs of at most
        2 surviving hops only (the VCs stay 2 for MIN, 4 for VAL and UGAL)."""
        return self.without_links(failed, spec)

    def legal_reach(self) -> np.ndarray:
        """Bitsets of the routers within 2 surviving hops of each router
        (:func:`~ppt.interconnects.topologies.hopreach.within_two`), computed once."""
        reach = self.__dict__.get("_legal_survey")
        if reach is None:
            reach = self._legal_survey = within_two(self)
        return reach

    def unroutable_pairs(self, spec=None) -> np.ndarray:
        """Router pairs over 2 surviving hops apart (no legal MIN leg); for a Valiant routing only
        those of them no intermediate router joins by two such legs."""
        if self.failures is None:
            return super().unroutable_pairs(spec)
        reach = self.legal_reach()
        pairs = missing(reach, np.arange(self.num_routers))
        if spec is not None and spec.valiant and len(pairs):
            pairs = pairs[~share_any(reach, pairs)]
        return pairs

    def router_groups(self) -> np.ndarray:
        """2q groups of q routers: the routers (s, x, *) of one column of one subgraph."""
        return np.arange(self.num_routers) // self.q

    def coordinates(self, router: int) -> tuple[int, int, int]:
        """(s, x, y) of a subgraph-0 router or (s, m, c) of a subgraph-1 router."""
        s, rest = divmod(router, self.q * self.q)
        return (s, *divmod(rest, self.q))

    def min_step(self, r: int, t: int) -> tuple[int, int]:
        """(first output port, router hops) of the minimal path from router r to router t != r (compiled)."""
        from ppt.interconnects.core import ffi, lib
        hops = ffi.new("int32_t *")
        port = lib.ppt_slimfly_min_step(self.core_tables(), r, t, hops)
        return port, hops[0]

    def distance(self, r: int, t: int) -> int:
        """Minimal router hops between routers r and t (0, 1 or 2)."""
        return 0 if r == t else self.min_step(r, t)[1]

    def worst_case_destination(self, node: int, rand: int = 0) -> int:
        """Destination of ``node`` in the worst-case permutation (``rand`` is unused; see worst_case_table)."""
        return int(self.worst_case_table()[0][node])

    def worst_case_table(self) -> tuple[np.ndarray, np.ndarray]:
        """The worst-case permutation for minimal routing as data: node ``n`` sends to ``first[n]``
        (``count`` is all ones: a fixed permutation).

        Let succ(0,x,y) = (1, x, y - x^2) and succ(1,m,c) = (0, m+1, m(m+1) + c): a
        bijection that moves every router over one of its cross links.  Router r sends
        to succ(succ(r)) -- (0,x,y) -> (0, x+1, y+x), (1,m,c) -> (1, m+1, c-m-1) -- which
        lies in another column of the same subgraph, so exactly two hops away with the
        unique minimal path r -> succ(r) -> succ(succ(r)).  The directed link
        r -> succ(r) thus carries two router pairs: r's (first hop) and the pair of
        succ^-1(r) (second hop).  Node i of router r sends to node i of its target.
        """
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


# Routings (core/slimfly.c): hop-indexed VCs, VC i on router hop i.
register_routing(SlimFly, "min", route="ppt_slimfly_min_route", num_vcs=2)
register_routing(SlimFly, "val", route="ppt_slimfly_val_route", inject="ppt_slimfly_val_inject", num_vcs=4,
                 valiant=True)
register_routing(SlimFly, "ugal", route="ppt_slimfly_ugal_route", inject="ppt_slimfly_ugal_inject", num_vcs=4,
                 options=("candidates", "c_sf", "ugal_bias_packets"), valiant=True, adaptive=True)

"""InfiniBand fat-tree: the m-port n-tree with multiple-LID (MLID) routing.

Reference: X.-Y. Lin, Y.-C. Chung and T.-Y. Huang, "A multiple LID routing scheme
for fat-tree-based InfiniBand networks", IPDPS 2004.  Numbering follows the paper
(``half`` = m/2):

* Processing node P(p0 p1 ... p_{n-1}) with p0 in [0, m) and p_i in [0, half):
  2*half^n nodes.  Node id = the mixed-radix value of p (p0 most significant).
* Switch SW<w, l> at level l in [0, n) (0 = roots, n-1 = leaves, height n+1 with
  the nodes), label w = w0 ... w_{n-2}; roots have w in [0, half)^(n-1), the other
  levels w0 in [0, m) and w_i in [0, half): (2n-1)*half^(n-1) switches.  Router
  ids run level by level, inside a level by the mixed-radix value of w.
* Ports: a root uses all m ports downward; other switches use ports [0, half)
  down and [half, m) up.  Down port k of SW<w, l> meets up port w_l + half of
  SW<w', l+1>, where w' is w with digit l replaced by k.  P(p) hangs off port
  p_{n-1} of leaf SW<p0 ... p_{n-2}, n-1>.

Routing is up*/down* through the lowest common ancestor, in the paper's LID
form: every node owns a block of half^(n-1) LIDs, BaseLID(P) = id*half^(n-1) + 1,
and a switch at level l forwards destination LID d down to port p'_l when the
destination lies below it, else up to port half + floor((d-1)/half^(n-1-l)) mod half.
The source chooses the LID offset, hence the up-path:

* ``mlid`` (alias ``min``): the paper's path selection -- the offset is the
  source's rank inside the subtree below the lowest common ancestor (its digits
  after the common prefix), so sources spread over distinct up-links and roots.
* ``dmodk`` (alias ``single``): one LID per node (offset = destination id mod
  half^(n-1)); every path to a destination climbs to the same root (D-mod-K).

A tree may be populated with fewer nodes than its capacity: nodes 0..num_nodes-1
take the first leaf ports in id order; the remaining ports stay empty.  The
model does not enforce InfiniBand's 48K unicast LID space (the published scheme
needs 2*half^n * half^(n-1) LIDs).

Link failures (``network.fail_*``; a fat-tree has only the ``all`` class): a
failed link becomes an unused slot, and both routings stay up*/down* over
surviving links.  A packet climbs until its destination's leaf switch lies
below over surviving links (then descends on the one down path), and climbing
it takes its LID's up port where the destination is still reached from there,
else another such up port its LID picks (``core/fattree.c``); it may thus climb
above the lowest common ancestor.  A leaf pair with no surviving up*/down* path
is reported before the run.
"""
from __future__ import annotations

import numpy as np

from ppt.errors import ConfigError
from ppt.interconnects.topologies.registry import register
from ppt.interconnects.topologies.topology import SWITCH_LINK_PARAMS, Topology, register_routing, switch_and_terminal
from ppt.params import Param

SWITCH_LINK, TERMINAL_LINK = 0, 1


@register
class FatTree(Topology):
    """An m-port n-tree of m-port switches (see module docstring)."""

    kind = "fattree"
    tagline = "InfiniBand m-port n-tree (fat tree) with multiple-LID routing"
    params = (Param("ports", "ports of every switch (m, even)", int, positive=True),
              Param("levels", "switch levels (n); the tree holds 2 (m/2)^n nodes", int, positive=True),
              Param("num_nodes", "nodes on the first leaf ports (null: every port)", int, None, positive=True),
              *SWITCH_LINK_PARAMS)

    def __init__(self, ports: int, levels: int, link_bandwidth_Bps: float, link_latency_s: float,
                 router_delay_s: float, num_nodes: int | None = None,
                 terminal_bandwidth_Bps: float | None = None, terminal_latency_s: float | None = None):
        if ports < 2 or ports % 2:
            raise ConfigError(f"topology.ports must be an even number >= 2 (m-port n-tree), got {ports}")
        if levels < 1:
            raise ConfigError(f"topology.levels must be >= 1, got {levels}")
        m, n, half = ports, levels, ports // 2
        self.ports, self.levels, self.half = m, n, half
        self.capacity = 2 * half ** n
        if num_nodes is None:
            num_nodes = self.capacity
        if not 1 <= num_nodes <= self.capacity:
            raise ConfigError(f"topology.num_nodes must be in 1..{self.capacity} "
                              f"(2*(m/2)^n for m={m}, n={n}), got {num_nodes}")
        self.num_nodes = num_nodes
        self.lids_per_node = half ** (n - 1)
        roots = half ** (n - 1)
        per_level = m * half ** (n - 2) if n >= 2 else 0
        self.level_offset = [0] + [roots + i * per_level for i in range(n - 1)]
        self.num_routers = roots + (n - 1) * per_level
        self.radix = m
        self.router_delay_s = router_delay_s
        self.link_classes = switch_and_terminal("switch", link_bandwidth_Bps, link_latency_s,
                                                terminal_bandwidth_Bps, terminal_latency_s)
        self._build_ports(roots, per_level)
        self.router_level = np.repeat(np.arange(n), [roots] + [per_level] * (n - 1))

    @classmethod
    def ports_estimate(cls, cfg: dict) -> int:
        m, n = int(cfg["ports"]), int(cfg["levels"])
        half = m // 2
        return (half ** (n - 1) + (n - 1) * m * half ** max(n - 2, 0)) * m

    def _build_ports(self, roots: int, per_level: int) -> None:
        m, n, half = self.ports, self.levels, self.half
        shape = (self.num_routers, m)
        self.port_peer = np.full(shape, -1, dtype=np.int32)
        self.port_peer_port = np.full(shape, -1, dtype=np.int32)
        self.port_class = np.full(shape, -1, dtype=np.int8)
        for level in range(n - 1):
            count, down = (roots, m) if level == 0 else (per_level, half)
            place = half ** (n - 2 - level)          # weight of label digit `level`
            upper = np.arange(count)[:, None]
            digit = (upper // place) % half           # w_level of the upper switch
            k = np.arange(down)[None, :]
            lower = upper - digit * place + k * place
            up_port = np.broadcast_to(half + digit, lower.shape)
            urow = np.broadcast_to(self.level_offset[level] + upper, lower.shape)
            lrow = self.level_offset[level + 1] + lower
            kk = np.broadcast_to(k, lower.shape)
            self.port_peer[urow, kk] = lrow
            self.port_peer_port[urow, kk] = up_port
            self.port_peer[lrow, up_port] = urow
            self.port_peer_port[lrow, up_port] = kk
            self.port_class[urow, kk] = SWITCH_LINK
            self.port_class[lrow, up_port] = SWITCH_LINK
        leaf_ports = m if n == 1 else half
        nodes = np.arange(self.num_nodes)
        self.node_router = (self.level_offset[n - 1] + nodes // leaf_ports).astype(np.int32)
        self.node_port = (nodes % leaf_ports).astype(np.int32)
        self.port_peer_port[self.node_router, self.node_port] = nodes
        self.port_class[self.node_router, self.node_port] = TERMINAL_LINK

    def node_digits(self, node: int) -> list[int]:
        """The paper's label p0 p1 ... p_{n-1} of processing node ``node``."""
        digits = []
        for _ in range(self.levels - 1):
            node, d = divmod(node, self.half)
            digits.append(d)
        return [node] + digits[::-1]

    def common_prefix(self, a: int, b: int) -> int:
        """Length of the common prefix of two node labels: the level of their lowest common ancestor."""
        n, half = self.levels, self.half
        for length in range(1, n + 1):
            div = half ** (n - length)
            if a // div != b // div:
                return length - 1
        return n

    def base_lid(self, node: int) -> int:
        """BaseLID(P): the first of the node's half^(n-1) LIDs (LIDs start at 1)."""
        return node * self.lids_per_node + 1

    def build_core_tables(self):
        """The ``ppt_fattree_t`` the compiled routings read: every switch's forwarding rule."""
        from ppt.interconnects.core import array, ffi
        n, half = self.levels, self.half
        level = self.router_level
        index = np.arange(self.num_routers) - np.asarray(self.level_offset)[level]
        digit_div = half ** (n - 1 - level)
        t = ffi.new("ppt_fattree_t *")
        t.levels, t.half, t.lids_per_node = n, half, self.lids_per_node
        keep = [array("int64_t", np.where(level == 0, self.capacity, half * digit_div)),
                array("int64_t", np.where(level == 0, 0, index // digit_div)),
                array("int64_t", digit_div), array("int64_t", np.where(level == 0, self.ports, half))]
        t.below_div, t.prefix, t.digit_div, t.digit_mod = keep
        if self.reach is not None:
            keep += [array("uint8_t", self.reach.ravel()), array("int32_t", self.port_peer.ravel())]
            t.leaves, t.reach, t.port_peer = self.reach.shape[1], keep[-2], keep[-1]
        self._core_keep = keep
        return t

    # -- link failures (core/fattree.c) ------------------------------------------

    #: ``reach[switch, leaf]`` (uint8, leaf switches in id order): ``DOWN`` (2) where the leaf switch
    #: is below the switch over surviving links, ``UP`` (1) where climbing over surviving links
    #: reaches a switch with it below, 0 otherwise; None without failures.
    reach = None

    def with_failed_links(self, failed: np.ndarray, spec) -> "FatTree":
        """A copy whose ``failed`` links are unused slots; its routings climb only towards switches
        from which the destination is still reached (:attr:`reach`)."""
        out = self.without_links(failed, spec)
        out.reach = out._updown_reach()
        return out

    def _updown_reach(self) -> np.ndarray:
        """The :attr:`reach` table of the surviving links: the down part level by level from the
        leaves up (a switch has a leaf below when one of its surviving children has), then the
        climbing part from the roots down (a switch climbs to a leaf when it has it below or one of
        its surviving parents climbs to it)."""
        n, half, first_leaf = self.levels, self.half, self.level_offset[-1]
        leaves = self.num_routers - first_leaf
        down = np.zeros((self.num_routers + 1, leaves), dtype=bool)      # row num_routers: no switch
        down[first_leaf + np.arange(leaves), np.arange(leaves)] = True
        peer = np.where(self.port_peer >= 0, self.port_peer, self.num_routers)
        rows = [np.arange(self.level_offset[level], self.level_offset[level + 1] if level + 1 < n
                          else self.num_routers) for level in range(n)]
        for level in range(n - 2, -1, -1):
            children = peer[rows[level], :self.ports if level == 0 else half]
            down[rows[level]] = down[children].any(axis=1)
        climb = down.copy()
        for level in range(1, n):
            climb[rows[level]] |= climb[peer[rows[level], half:]].any(axis=1)
        return np.where(down, 2, climb).astype(np.uint8)[:-1]

    def unroutable_pairs(self, spec=None) -> np.ndarray:
        """Leaf switch pairs (both holding nodes) without a surviving up*/down* path."""
        if self.failures is None:
            return super().unroutable_pairs(spec)
        first_leaf = self.level_offset[-1]
        holding = np.unique(self.node_router)
        x, y = np.nonzero(self.reach[holding][:, holding - first_leaf] == 0)
        return np.column_stack([holding[x], holding[y]]).astype(np.int64)

    def diameter(self) -> int:
        """Switch-to-switch hop diameter: up n-1 levels and down again."""
        return 2 * (self.levels - 1)


# Routings (core/fattree.c): up*/down* on the LID the source picks, one VC.
register_routing(FatTree, "mlid", route="ppt_fattree_route", inject="ppt_fattree_mlid_inject", aliases=("min",))
register_routing(FatTree, "dmodk", route="ppt_fattree_route", inject="ppt_fattree_dmodk_inject", aliases=("single",))

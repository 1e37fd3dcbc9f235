"""Megafly, also called Dragonfly+: dragonfly groups that are two-level leaf-spine networks.

Flajslik, Borch & Parker, "Megafly: A Topology for Exascale Systems", ISC 2018;
Shpiner, Haramaty, Eliad, Zdornov, Gafni & Zahavi, "Dragonfly+: Low Cost
Topology for Scaling Datacenters", HiPINEB 2017.  A group is a complete
bipartite graph of ``leaves`` leaf routers, which carry the nodes, and
``spines`` spine routers, which own the global links; groups are joined as in
the dragonfly (the ``consecutive`` and ``palmtree`` arrangements of
:mod:`ppt.interconnects.topologies.dragonfly`, over the spines' global ports in order).

Router ``r`` is local router ``r % (leaves + spines)`` of group
``r // (leaves + spines)``; local routers ``0 .. leaves-1`` are the leaves (as
in the CODES dragonfly-plus model).  Port layout, port slots beyond a router's
own ports are unused (-1):

=====  ===========================  ===========================
ports  leaf                         spine
=====  ===========================  ===========================
local  ``q``: spine ``leaves + q``  ``q``: leaf ``q``
then   ``nodes_per_leaf`` nodes     ``global_per_spine`` global
=====  ===========================  ===========================

so ``radix = max(leaves, spines) + max(nodes_per_leaf, global_per_spine)``,
the routers' radix when leaves and spines have the same number of ports (36
for the published 18 + 18 configurations).  Nodes fill the leaves in order.
Link classes: 0 ``local``, 1 ``global``, 2 ``node``.

The group is the dragonfly's with local diameter 2 (leaf - spine - leaf), so
the dragonfly's compiled routings serve it unchanged: MIN takes at most two
local hops per group and one global hop (leaf, spine, spine, leaf between
groups), and the VC scheme gives every phase two local-hop VCs.  Inside one
group Valiant routing is MIN: a minimal leaf-spine-leaf path already goes
through a random spine, and a detour through a third leaf would take four
local hops in one group.
"""
from __future__ import annotations

import numpy as np

from ppt.interconnects.topologies.dragonfly import (GroupedTopology, check_arrangement, check_group_limit,
                                                    check_num_nodes, LOCAL_GLOBAL_NODE_PARAMS,
                                                    local_global_node_fields)
from ppt.interconnects.topologies.registry import register
from ppt.interconnects.topologies.topology import LinkClass
from ppt.params import Param, read_section


def leaf_spine_ports(leaves: int, spines: int) -> tuple[np.ndarray, np.ndarray]:
    """Local wiring of a complete bipartite group: ``(peer, peer_port)``, ``(leaves + spines, max(...))``,
    -1 where a router has fewer local ports than the widest."""
    width = max(leaves, spines)
    peer = np.full((leaves + spines, width), -1, dtype=np.int64)
    peer_port = np.full_like(peer, -1)
    peer[:leaves, :spines] = leaves + np.arange(spines)
    peer_port[:leaves, :spines] = np.arange(leaves)[:, None]
    peer[leaves:, :leaves] = np.arange(leaves)
    peer_port[leaves:, :leaves] = np.arange(spines)[:, None]
    return peer, peer_port


@register
class MegaflyTopology(GroupedTopology):
    """Megafly of ``groups`` groups of ``leaves`` leaf and ``spines`` spine routers.

    Every leaf has ``nodes_per_leaf`` node ports, every spine
    ``global_per_spine`` global ports; ``groups`` runs from 2 up to
    ``spines * global_per_spine + 1``.
    """

    kind = "megafly"
    tagline = "megafly (dragonfly+): groups of leaf and spine routers"
    params = (Param("leaves", "leaf routers in a group", int, positive=True),
              Param("spines", "spine routers in a group, each joined to every leaf", int, positive=True),
              Param("nodes_per_leaf", "nodes on every leaf router", int, positive=True),
              Param("global_per_spine", "global ports of every spine router", int, positive=True),
              Param("groups", "groups, from 2 up to spines*global_per_spine + 1", int, positive=True),
              *LOCAL_GLOBAL_NODE_PARAMS)
    local_valiant = False

    def __init__(self, leaves: int, spines: int, nodes_per_leaf: int, global_per_spine: int, groups: int,
                 local: LinkClass, global_: LinkClass, node: LinkClass, router_delay_s: float,
                 arrangement: str = "consecutive", num_nodes: int | None = None):
        trunks = spines * global_per_spine
        check_group_limit(groups, trunks, "topology.groups",
                          f"spines*global_per_spine+1 with spines={spines}, global_per_spine={global_per_spine}")
        check_arrangement(arrangement, groups, trunks, "topology.arrangement")
        num_nodes = check_num_nodes(num_nodes, groups * leaves * nodes_per_leaf, "groups*leaves*nodes_per_leaf")
        self.leaves, self.spines = leaves, spines
        self.nodes_per_leaf, self.global_per_spine, self.arrangement = nodes_per_leaf, global_per_spine, arrangement
        peer, peer_port = leaf_spine_ports(leaves, spines)
        self._build(num_groups=groups, local_peer=peer, local_peer_port=peer_port, local_port_class=0,
                    global_ports=[0] * leaves + [global_per_spine] * spines, bundle=1, arrangement=arrangement,
                    nodes_per_router=[nodes_per_leaf] * leaves + [0] * spines, num_nodes=num_nodes,
                    link_classes=(local, global_, node), global_class=1, node_class=2,
                    router_delay_s=router_delay_s)

    @classmethod
    def ports_estimate(cls, cfg: dict) -> int:
        sizes = [int(cfg[k]) for k in ("leaves", "spines", "nodes_per_leaf", "global_per_spine", "groups")]
        leaves, spines, p, h, g = sizes
        return g * (leaves + spines) * (max(leaves, spines) + max(p, h))

    @classmethod
    def from_config(cls, cfg: dict) -> "MegaflyTopology":
        return cls(**local_global_node_fields(read_section(cfg, cls.params, "topology")))

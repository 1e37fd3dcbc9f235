"""Cray Aries (XC series): a dragonfly whose groups are 6 x 16 flattened butterflies.

Facts from Alverson, Froese, Kaplan & Roweth, "Cray XC Series Network", Cray
white paper WP-Aries01-1112 (2012), unless noted:

* one 48-tile Aries router per blade: 8 processor tiles serve the 4 nodes
  (2 tiles per NIC), 40 network tiles;
* group = 2 cabinets = 6 chassis x 16 blades = 96 routers;
* green (rank-1) links: chassis backplane, all-to-all among its 16 routers,
  15 tiles per router;
* black (rank-2) links: each router to the router in the same slot of the
  other 5 chassis, 3 tiles per peer ("15 links in 5 connectors", NeSI,
  "XC50 Aries Network Architecture");
* blue (rank-3) links: 10 optical tiles per router, cabled 4 tiles to a
  global link, so a group has 960 / 4 = 240 global links and a system at
  most 241 groups; consecutive arrangement.

Port model (34 ports for the 48 tiles; ``port_tiles`` gives tiles per port):

====  =========  =====  ==============================================
port  class      tiles  far end
====  =========  =====  ==============================================
0-14  green      1      blade ``q`` (``q+1`` from own blade up), same chassis
15-19 black      3      same blade, chassis ``q`` (skipping its own)
20-29 blue       1      global slot ``10*router + k``; trunk = slot // 4
30-33 node       2      nodes ``4*router .. 4*router+3`` (if present)
====  =========  =====  ==============================================

A black port stands for its 3 tiles: its bandwidth is 3 x the per-tile
``black_bandwidth_Bps``.  Router ``r`` is blade ``r % 16`` of chassis
``r // 16 % 6`` of group ``r // 96``.  Minimal routes take at most 2 local
hops per group (green then black or black then green): <= 2 router hops
inside a group, <= 5 between groups.
"""
from __future__ import annotations

import numpy as np

from ppt.errors import ConfigError
from ppt.interconnects.topologies.dragonfly import (NUM_NODES, ROUTER_DELAY, GroupedTopology, check_group_limit,
                                                    complete_graph_ports, link_class, link_params)
from ppt.interconnects.topologies.registry import register
from ppt.interconnects.topologies.topology import LinkClass
from ppt.params import Param, read_section

CHASSIS_PER_GROUP = 6
BLADES_PER_CHASSIS = 16
NODES_PER_ROUTER = 4
BLUE_PORTS = 10
BLUE_PER_LINK = 4
BLACK_TILES = 3
TILES_PER_NODE = 2
ROUTER_TILES = 48
ROUTERS_PER_GROUP = CHASSIS_PER_GROUP * BLADES_PER_CHASSIS
MAX_GROUPS = ROUTERS_PER_GROUP * BLUE_PORTS // BLUE_PER_LINK + 1


def group_wiring() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Local ports of the 96 routers of a group: ``(peer, peer_port, class)``, class 0 green, 1 black."""
    blades, chassis = BLADES_PER_CHASSIS, CHASSIS_PER_GROUP
    local = np.arange(ROUTERS_PER_GROUP)
    c, b = local // blades, local % blades
    green_peer, green_port = complete_graph_ports(blades)
    black_peer, black_port = complete_graph_ports(chassis)
    peer = np.hstack([c[:, None] * blades + green_peer[b], black_peer[c] * blades + b[:, None]])
    peer_port = np.hstack([green_port[b], (blades - 1) + black_port[c]])
    cls = np.array([0] * (blades - 1) + [1] * (chassis - 1))
    return peer, peer_port, cls


@register
class AriesTopology(GroupedTopology):
    """Cray XC Aries network of ``groups`` groups; ``num_nodes`` fill routers in order.

    Link classes: 0 ``green``, 1 ``black`` (3 tiles), 2 ``blue``, 3 ``node``.
    """

    kind = "aries"
    tagline = "Cray XC Aries: dragonfly groups of 96 routers, 4 nodes each"
    params = (Param("groups", "groups of 96 routers (6 chassis of 16 blades)", int, positive=True),
              NUM_NODES,
              *link_params("green", "a green link (all-to-all in a chassis)"),
              *link_params("black", "one tile of a black link (3 tiles to each peer chassis)"),
              *link_params("blue", "a blue (global) link"),
              *link_params("node", "a node's link to its router"),
              ROUTER_DELAY)
    port_tiles = np.array([1] * (BLADES_PER_CHASSIS - 1) + [BLACK_TILES] * (CHASSIS_PER_GROUP - 1)
                          + [1] * BLUE_PORTS + [TILES_PER_NODE] * NODES_PER_ROUTER)

    def __init__(self, groups: int, green: LinkClass, black_tile: LinkClass, blue: LinkClass,
                 node: LinkClass, router_delay_s: float, num_nodes: int | None = None):
        check_group_limit(groups, MAX_GROUPS - 1, "topology.groups",
                          f"Aries: {ROUTERS_PER_GROUP * BLUE_PORTS} blue ports per group, "
                          f"{BLUE_PER_LINK} to a global link")
        capacity = groups * ROUTERS_PER_GROUP * NODES_PER_ROUTER
        num_nodes = capacity if num_nodes is None else num_nodes
        if not 1 <= num_nodes <= capacity:
            raise ConfigError(f"topology.num_nodes = {num_nodes} must be between 1 and "
                              f"{capacity} (4 nodes on each of the {groups * ROUTERS_PER_GROUP} routers)")
        black = LinkClass("black", BLACK_TILES * black_tile.bandwidth_Bps, black_tile.latency_s)
        peer, peer_port, cls = group_wiring()
        self._build(num_groups=groups, local_peer=peer, local_peer_port=peer_port, local_port_class=cls,
                    global_ports=BLUE_PORTS, bundle=BLUE_PER_LINK, arrangement="consecutive",
                    nodes_per_router=NODES_PER_ROUTER, num_nodes=num_nodes,
                    link_classes=(green, black, blue, node), global_class=2, node_class=3,
                    router_delay_s=router_delay_s)

    @classmethod
    def ports_estimate(cls, cfg: dict) -> int:
        return int(cfg["groups"]) * ROUTERS_PER_GROUP * len(cls.port_tiles)

    @classmethod
    def from_config(cls, cfg: dict) -> "AriesTopology":
        values = read_section(cfg, cls.params, "topology")
        return cls(green=link_class(values, "green", "green"), black_tile=link_class(values, "black", "black"),
                   blue=link_class(values, "blue", "blue"), node=link_class(values, "node", "node"), **values)

    def tiles_in_use(self) -> np.ndarray:
        """Router tiles behind the connected ports, per router (at most ``ROUTER_TILES``)."""
        return (self.port_tiles * (self.port_class >= 0)).sum(axis=1)

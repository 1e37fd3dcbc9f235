"""Legal paths of a grouped topology (dragonfly, Megafly, Aries) whose links have partly failed.

The VC scheme of ``core/grouped.c`` cuts a path into phases: a phase holds
at most ``L`` local hops (``L`` the fault-free local diameter, which fixes
the VCs), a global hop ends a phase, and a routing has a budget of ``P``
phases (MIN 2, VAL/UGAL 3, PAR 4).  A visit to a group with ``m`` local hops
thus costs ``max(1, ceil(m / L))`` phases, and a path is *legal* when its
visits cost at most ``P`` phases in all and every link it crosses survives.

Every routing falls back to MIN, so a router pair is served when it has a
legal path within MIN's 2 phases: between groups, ``<= L`` local hops, one
surviving global link, ``<= L`` local hops; inside a group, ``<= 2L`` local
hops (the route changes phase at a router half-way).  Valiant candidates are
used only where legal (``core/grouped_failures.c``).

The check answers for all pairs at once, per source group, from the
per-router surviving local distances and the surviving global links: for a
source group of ``a`` routers with ``m`` global links it is one
``(a, m, a)`` min-plus reduction, so ``g`` groups cost ``O(g a^2 m)``
(the 342-router dragonfly at 20 % failures: a few milliseconds).
"""
from __future__ import annotations

import numpy as np

#: Distance of a router not reachable over surviving local links (large, and safe to add).
FAR = 1 << 20
#: Legal hops (see ``Topology.legal_hops``) of a router pair only a Valiant detour serves: more than
#: any minimal route's, fewer than ``FAR`` (no legal path at all).
DETOUR = FAR - 1


def hop_counts(adjacent: np.ndarray) -> np.ndarray:
    """Hops between the members of each graph of a stack ``adjacent`` (``(..., n, n)`` bool,
    ``[u, v]`` set for a link from u to v), by a breadth-first search of all graphs at once:
    int32 of the same shape, ``FAR`` where v cannot be reached from u."""
    n = adjacent.shape[-1]
    links = adjacent.astype(np.float32)
    dist = np.full(adjacent.shape, FAR, dtype=np.int32)
    reached = np.broadcast_to(np.eye(n, dtype=bool), adjacent.shape).copy()
    dist[reached] = 0
    frontier, hops = reached.astype(np.float32), 0
    while frontier.any():
        hops += 1
        fresh = (frontier @ links > 0) & ~reached
        dist[fresh] = hops
        reached |= fresh
        frontier = fresh.astype(np.float32)
    return dist


def local_distances(topology) -> np.ndarray:
    """``dist[r, v]``: surviving local hops from router ``r`` to router ``v`` of its group (int32,
    ``FAR`` if cut off)."""
    a, g = topology.routers_per_group, topology.num_groups
    peer = topology.port_peer
    router, port = np.nonzero((peer >= 0) & (peer // a == np.arange(topology.num_routers)[:, None] // a))
    adjacent = np.zeros((g, a, a), dtype=bool)
    adjacent[router // a, router % a, peer[router, port] % a] = True
    return hop_counts(adjacent).reshape(g * a, a)


def minimal_route_hops(topology, source_group: int) -> np.ndarray:
    """``hops[x, y]``: router hops of the shortest legal MIN path from router ``x`` of
    ``source_group`` to every router ``y`` (shape ``(a, num_routers)``, ``FAR`` where none)."""
    a, g, L = topology.routers_per_group, topology.num_groups, topology.local_diameter
    dist = topology.router_distance
    start = topology._gw_start[source_group * g:(source_group + 1) * g]
    count = topology._gw_count[source_group * g:(source_group + 1) * g]
    hops = np.full((a, g, a), FAR, dtype=np.int32)
    mine = dist[source_group * a:(source_group + 1) * a]
    hops[:, source_group, :] = np.where(mine <= 2 * L, mine, FAR)
    used = np.nonzero(count)[0]
    if len(used):
        first, last = start[used[0]], start[used[-1]] + count[used[-1]]
        exit_router = topology._gw_router[first:last]
        entry_router = topology.port_peer[exit_router, topology._gw_port[first:last]]
        leave = np.where(dist[exit_router] <= L, dist[exit_router], FAR)       # (m, a): gateway -> x
        enter = np.where(dist[entry_router] <= L, dist[entry_router], FAR)     # (m, a): entry -> y
        via = leave.T[:, :, None] + 1 + enter[None, :, :]                       # (a, m, a)
        hops[:, used, :] = np.minimum(np.minimum.reduceat(via, start[used] - first, axis=1), FAR)
    return hops.reshape(a, g * a)


def legal_survey(topology) -> tuple[np.ndarray, int]:
    """Router pairs (both holding nodes) without a legal MIN path, ``(k, 2)`` in (source,
    destination) order, and the most router hops a legal MIN route between such routers takes."""
    a = topology.routers_per_group
    holds = np.bincount(topology.node_router, minlength=topology.num_routers) > 0
    pairs, worst = [], 0
    for group in range(topology.num_groups):
        rows = holds[group * a:(group + 1) * a]
        if not rows.any():
            continue
        hops = minimal_route_hops(topology, group)[rows][:, holds]
        x, y = np.nonzero(hops >= FAR)
        pairs.append(np.column_stack([np.nonzero(rows)[0][x] + group * a, np.nonzero(holds)[0][y]]))
        served = hops[hops < FAR]
        worst = max(worst, int(served.max()) if served.size else 0)
    return np.concatenate(pairs).astype(np.int64), worst


def legal_hops(topology, valiant: bool) -> np.ndarray:
    """``hops[x, y]`` for every router pair: router hops of the shortest legal MIN path (the
    :func:`minimal_route_hops` of every group), else ``DETOUR`` where ``valiant`` and a Valiant path
    still serves the pair (looked for between routers holding nodes only), else ``FAR``.  Shape
    ``(num_routers, num_routers)``, int32."""
    hops = np.concatenate([minimal_route_hops(topology, group) for group in range(topology.num_groups)])
    holds = np.bincount(topology.node_router, minlength=topology.num_routers) > 0
    x, y = np.nonzero((hops >= FAR) & holds[:, None] & holds[None, :])
    if valiant and len(x):
        pairs = np.column_stack([x, y])
        rescued = pairs[valiant_served(topology, pairs)]
        hops[rescued[:, 0], rescued[:, 1]] = DETOUR
    return hops


def valiant_served(topology, pairs: np.ndarray) -> np.ndarray:
    """Which router ``pairs`` (``(k, 2)``, none with a legal MIN path) a Valiant path still serves:
    at most L surviving local hops to a surviving global link into a third group, then a legal
    MIN path from the router it lands on.  Pairs inside one group have no such rescue."""
    a, g, L = topology.routers_per_group, topology.num_groups, topology.local_diameter
    dist, start, count = topology.router_distance, topology._gw_start, topology._gw_count
    exits = np.asarray(topology._gw_router)
    entries = topology.port_peer[exits, np.asarray(topology._gw_port)]
    onward = {}                                     # group -> minimal_route_hops from its routers
    served = np.zeros(len(pairs), dtype=bool)
    for k, (x, y) in enumerate(pairs):
        gx, gy = x // a, y // a
        if gx == gy:
            continue
        first, last = start[gx * g], start[gx * g] + count[gx * g:(gx + 1) * g].sum()
        leave = exits[first:last]
        land = entries[first:last][(dist[leave, x % a] <= L) & (entries[first:last] // a != gy)]
        for z in np.unique(land):
            hops = onward.get(z // a)
            if hops is None:
                hops = onward[z // a] = minimal_route_hops(topology, z // a)
            if hops[z % a, y] < FAR:
                served[k] = True
                break
    return served

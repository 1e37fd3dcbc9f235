"""How a parallel run splits the packet network: contiguous router blocks of even work that keep groups
whole, and the window length the cut allows.

Each simulation rank simulates one contiguous block of routers (with their nodes).  The blocks share
the work out evenly: every router alike for synthetic traffic on every node, the MPI ranks on a router's
nodes for a job (the routers of a 16-node job are then split, not left on one rank).  Where the
topology has groups of consecutive routers (dragonfly and Aries groups, Slim Fly subgraph columns), the
block edges move to the nearest group edge when that keeps the work even enough, so the cut crosses
only the links between groups: on a dragonfly those are the global links, the fewest and (in the
presets) the longest.  A packet or a credit reaches
another rank no sooner than the latency of the link it crosses, so the conservative window may be as
long as the smallest latency of a cut link (:func:`cut_latency_s`) instead of the network's smallest.
"""
from __future__ import annotations

import numpy as np


def even_starts(num_routers: int, size: int, planes: int = 1) -> list[int]:
    """First router of each of ``size`` even blocks of whole plane sets, then ``num_routers``
    (as ``block_first_router`` in ``core/net.c`` without given starts)."""
    per_plane = num_routers // planes
    return [k * per_plane // size * planes for k in range(size)] + [num_routers]


def router_starts(num_routers: int, size: int, groups=None, planes: int = 1, weights=None) -> list[int]:
    """First router of each of ``size`` blocks, then ``num_routers``.

    ``weights`` (work of every router, e.g. the MPI ranks on its nodes; None: every router alike) is
    shared out as evenly as block edges allow: edges at the group edges (``groups``: group of every
    router, consecutive routers per group) nearest the even shares when that leaves no block more than
    :data:`MAX_IMBALANCE` times the mean, else at the nearest whole plane sets.
    """
    if size == 1:
        return [0, num_routers]
    weights = np.ones(num_routers) if weights is None else np.asarray(weights, dtype=np.float64)
    if not weights.sum() > 0:
        weights = np.ones(num_routers)
    plane_edges = np.arange(0, num_routers + 1, planes)
    if groups is not None:
        groups = np.asarray(groups)
        if len(groups) == num_routers and not np.any(np.diff(groups) < 0):
            edges = np.concatenate(([0], np.nonzero(np.diff(groups))[0] + 1, [num_routers]))
            starts = _split(weights, size, edges)
            if starts is not None and imbalance(weights, starts) <= MAX_IMBALANCE:
                return starts
    starts = _split(weights, size, plane_edges)
    return starts if starts is not None else even_starts(num_routers, size, planes)


#: Largest block work over the mean that a split at group edges may leave (else edges move inside groups).
MAX_IMBALANCE = 1.2


def _split(weights: np.ndarray, size: int, edges: np.ndarray) -> list[int] | None:
    """Block starts at the ``edges`` (router ids, from 0 to the number of routers) nearest the even
    shares of the ``weights``, each at least one edge past the one before (so work on fewer routers
    than ranks still spreads one router a rank); None when there are too few edges."""
    before = np.concatenate(([0.0], np.cumsum(weights)))[edges]     # work before each edge
    total = before[-1]
    at = [0]                                                        # indices into edges
    for k in range(1, size):
        nearest = int(np.argmin(np.abs(before - k * total / size)))     # ties go low
        at.append(max(nearest, at[-1] + 1))
    if at[-1] >= len(edges) - 1:
        return None
    return [int(edges[i]) for i in at] + [int(edges[-1])]


def imbalance(weights, starts: list[int]) -> float:
    """Largest block's work over the mean block's."""
    work = np.add.reduceat(np.asarray(weights, dtype=np.float64), starts[:-1])
    return float(work.max() * len(work) / work.sum())


def router_owner(starts: list[int]) -> np.ndarray:
    """Simulation rank of every router, given the block starts."""
    return np.repeat(np.arange(len(starts) - 1), np.diff(starts))


def cut_ports(topology, starts: list[int]) -> np.ndarray:
    """Mask ``[router, port]`` of the router-to-router ports whose two ends lie on different ranks."""
    owner = router_owner(starts)
    peer = topology.port_peer
    linked = peer >= 0
    return linked & (owner[:, None] != owner[np.where(linked, peer, 0)])


def cut_latency_s(topology, starts: list[int]) -> float:
    """Smallest latency of a link the cut crosses, s (inf when nothing is cut)."""
    cut = cut_ports(topology, starts)
    if not cut.any():
        return float("inf")
    latencies = np.array([c.latency_s for c in topology.link_classes])
    return float(latencies[topology.port_class[cut]].min())


def cut_share(topology, starts: list[int]) -> float:
    """Fraction of the router-to-router ports (links, counted per direction) that the cut crosses."""
    linked = int((topology.port_peer >= 0).sum())
    return int(cut_ports(topology, starts).sum()) / linked if linked else 0.0

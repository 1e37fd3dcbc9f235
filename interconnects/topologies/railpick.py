"""Failure-aware rail choice: which planes serve a router pair, and how long their legal paths are.

A multirail NIC with a static failure map knows, for every destination, which
of its planes still has a legal path and how long the shortest one is.
:func:`plane_hops` builds that knowledge once, before a run, as one table the
packet core reads (``ppt_net_set_plane_hops`` in ``core/net.h``): for every
(source router, destination router) pair of the base topology and every plane,
the router hops of the plane's shortest legal path for the routing
(:meth:`Topology.legal_hops`), ``DETOUR`` where only a Valiant path is legal,
``NONE`` where none is.  Every rail policy skips a plane marked ``NONE`` for a
pair, so a pair only some planes serve runs on those; ``rail_policy``
``shortest`` takes, in turn, the planes whose hops are fewest.
:func:`check_served` refuses, before anything runs, a map that leaves a pair
without a legal path in every plane.
"""
from __future__ import annotations

import numpy as np

from ppt.errors import ConfigError
from ppt.interconnects.topologies.legalpaths import DETOUR as DETOUR_HOPS, FAR

#: Table value of a plane that serves a pair only by a Valiant detour (the core's PPT_PLANE_DETOUR).
DETOUR = 254
#: Table value of a plane without a legal path for a pair (the core's PPT_PLANE_NONE).
NONE = 255


def plane_hops(topologies: list, spec) -> np.ndarray:
    """``(R, R, planes)`` uint8 for the planes' ``topologies`` (``R`` routers each) and routing
    ``spec``: hops of each plane's shortest legal path per router pair (at most 253), ``DETOUR`` or
    ``NONE``."""
    columns = []
    for topology in topologies:
        hops = topology.legal_hops(spec)
        columns.append(np.where(hops >= FAR, NONE, np.where(hops >= DETOUR_HOPS, DETOUR,
                                                            np.minimum(hops, DETOUR - 1))).astype(np.uint8))
    return np.stack(columns, axis=-1)


def check_served(table: np.ndarray, base, spec) -> None:
    """ConfigError naming a router pair (both holding nodes) that no plane of ``table`` serves for
    routing ``spec``, and the failure map of ``base`` (plane 0) that left it so."""
    holds = np.nonzero(np.bincount(base.node_router, minlength=base.num_routers) > 0)[0]
    x, y = np.nonzero((table[holds][:, holds] == NONE).all(axis=-1))
    if not len(x):
        return
    more = f" (and {len(x) - 1} more pairs)" if len(x) > 1 else ""
    planes = table.shape[-1]
    raise ConfigError(f"link failures ({base.failures.describe()}, each plane its own draw) leave router "
                      f"{holds[x[0]]} -> router {holds[y[0]]}{more} without a legal path in any of the {planes} "
                      f"planes for routing {spec.name!r}; fail fewer links or choose another network.fail_seed")

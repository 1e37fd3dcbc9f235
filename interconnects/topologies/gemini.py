"""Cray Gemini (XE6/XK7) 3D torus.

One Gemini router serves two compute nodes.  Its ten torus links run two per
direction in X and Z and one per direction in Y (Kerbyson et al., ICPADS 2012:
eight YARC ports each for +-X and +-Z, four for +-Y), so X and Z carry twice the
bandwidth of Y per direction.  Routing, ports and VCs are those of
:class:`~ppt.interconnects.topologies.torus.Torus`; ``link_bandwidth_Bps`` is per link.
"""
from __future__ import annotations

from ppt.errors import ConfigError
from ppt.interconnects.topologies.registry import register
from ppt.interconnects.topologies.torus import Torus


@register
class Gemini(Torus):
    """A Gemini X x Y x Z torus: 2 nodes per router, 2/1/2 links per direction in X/Y/Z."""

    kind = "gemini"
    tagline = "Cray Gemini 3D torus: 2 nodes a router, 2/1/2 links in X/Y/Z"
    fixed = {"nodes_per_router": 2, "links_per_direction": (2, 1, 2), "dim_names": ("X", "Y", "Z")}

    @classmethod
    def check_dims(cls, dims: tuple) -> None:
        if len(dims) != 3:
            raise ConfigError(f"topology.dims of a gemini torus must list 3 sizes (X, Y, Z), got {len(dims)}")

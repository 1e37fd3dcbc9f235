"""IBM Blue Gene/Q 5D torus.

The router is on the compute chip: one node per router, ten torus links (one
per direction in each of A, B, C, D, E) and the E dimension always 2 wide
(inside a compute card), so the two E neighbours are joined by both their +E and
-E links.  Routing, ports and VCs are those of
:class:`~ppt.interconnects.topologies.torus.Torus`.  Packetization (32-byte header = 12 B
network + 20 B messaging unit, payload in 32-byte chunks up to 512 bytes) is
data in the presets' ``network.packet`` section, and so is the timing: the
routers cut through (``network.cut_through``) and the message unit's
injection and reception time is the NIC latency (``network.nic_latency_s``,
charged at each end), apart from the MPI software overheads (``mpi``).
"""
from __future__ import annotations

from ppt.errors import ConfigError
from ppt.interconnects.topologies.registry import register
from ppt.interconnects.topologies.torus import Torus

E_SIZE = 2


@register
class BlueGeneQ(Torus):
    """An A x B x C x D x E Blue Gene/Q torus, one node per router, E = 2."""

    kind = "bgq"
    tagline = "IBM Blue Gene/Q 5D torus: one node a router, E = 2"
    fixed = {"nodes_per_router": 1, "links_per_direction": 1, "dim_names": ("A", "B", "C", "D", "E")}

    @classmethod
    def check_dims(cls, dims: tuple) -> None:
        if len(dims) != 5:
            raise ConfigError(f"topology.dims of a bgq torus must list 5 sizes (A, B, C, D, E), "
                              f"got {len(dims)}")
        if dims[4] != E_SIZE:
            raise ConfigError(f"topology.dims: the bgq E dimension is always {E_SIZE}, got {dims[4]}")

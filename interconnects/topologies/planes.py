"""Multi-plane, multi-rail networks: ``network.planes`` identical, independent router planes.

:class:`Planes` is the fabric the packet core runs: ``planes`` copies of a
topology's router graph, router ``r`` of plane ``k`` being router
``r * planes + k`` (so a router's planes are neighbours and a simulation
rank's block of routers holds whole plane sets with their nodes).  Nodes are
those of the base topology; ``node_router`` names a node's plane-0 router and
the node has one rail (NIC port) into each plane, on port ``node_port`` of
router ``node_router + k``.  Routings stay the base topology's: the core runs
one copy per plane that sees plane-local router ids.  Where links failed,
each plane draws its own map and routes over its own surviving links; a router
pair only some planes serve legally runs on those planes (``railpick.py``), and
only a pair no plane serves stops the run before it starts.

:class:`RailPolicy` is how a NIC spreads its traffic over the rails
(``network.rail_policy``, ``network.rail_unit``; the network settings' ``rails`` part).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ppt.errors import ConfigError
from ppt.interconnects.topologies import railpick
from ppt.interconnects.topologies.topology import Routing, Topology

#: ``network.rail_policy`` values, in the order of the core's PPT_RAIL_* constants.
RAIL_POLICIES = ("random", "round-robin", "congestion", "dedicated", "shortest")
#: ``network.rail_unit`` values, in the order of PPT_RAIL_PER_MESSAGE, PPT_RAIL_PER_PACKET.
RAIL_UNITS = ("message", "packet")
#: Planes at most: a bound far above real multi-rail machines (2 to 8 rails), so a typo such as
#: network.planes=10000000 is refused at once instead of exhausting memory while the planes are built.
MAX_PLANES = 64


def _choice(key: str, value: str, choices: tuple) -> int:
    if value not in choices:
        raise ConfigError(f"network.{key} {value!r} is not one of: {', '.join(choices)}")
    return choices.index(value)


@dataclass(frozen=True)
class RailPolicy:
    """How each NIC spreads its messages over its ``planes`` rails.

    ``policy`` (an index of :data:`RAIL_POLICIES`): ``random`` hashes (seed,
    message or packet uid); ``round-robin`` takes the node's rails in turn;
    ``congestion`` the rail with the fewest bytes waiting at the NIC (on its
    wire, queued or cut for it); ``dedicated`` the node's own plane (one job
    per plane; see ``PacketNetwork.set_node_planes``, plane 0 by default);
    ``shortest`` the planes whose legal path for the (source router,
    destination router) pair has the fewest router hops under each plane's
    failure map (a plane reached only by a Valiant detour counts as longer than
    any minimal path), taking the tied planes in turn as round-robin does --
    without failures every plane ties and it *is* round-robin.  Every policy
    avoids a plane without a legal path for the pair (``railpick.py``).
    ``unit`` (an index of :data:`RAIL_UNITS`): the choice is made per message
    (all its packets on one rail) or per packet.  Responses and synthetic
    traffic choose per packet.
    """

    planes: int = 1
    policy: int = 1
    unit: int = 1

    @classmethod
    def from_settings(cls, settings) -> "RailPolicy":
        """The ``planes``, ``rail_policy`` and ``rail_unit`` keys of a preset's network settings
        (:class:`~ppt.interconnects.networks.settings.NetworkSettings`)."""
        planes = settings.planes
        if planes < 1:
            raise ConfigError(f"network.planes must be at least 1, got {planes}")
        if planes > MAX_PLANES:
            raise ConfigError(f"network.planes = {planes:,}: at most {MAX_PLANES} planes (rails per NIC) are "
                              f"modelled; multi-rail machines have 2 to 8")
        return cls(planes, _choice("rail_policy", settings.rail_policy, RAIL_POLICIES),
                   _choice("rail_unit", settings.rail_unit, RAIL_UNITS))


class Planes(Topology):
    """``planes`` independent copies of ``base``'s router graph (see the module docstring).  Where
    links have failed, plane 0 is ``base`` and every other plane draws its own failure map."""

    def __init__(self, base: Topology, planes: int):
        if planes < 1:
            raise ConfigError(f"network.planes must be at least 1, got {planes}")
        self.base = base
        self.planes = planes
        #: Each plane's topology: ``base`` and, with failures, the others' own failed copies.
        self.plane_topologies = [base] + [_plane_copy(base, k) for k in range(1, planes)]
        self.kind = base.kind
        self.routings = base.routings
        self.num_nodes = base.num_nodes
        self.num_routers = base.num_routers * planes
        self.radix = base.radix
        shape = (self.num_routers, self.radix)
        peer = np.stack([t.port_peer for t in self.plane_topologies], axis=1)
        plane = np.arange(planes)[None, :, None]
        self.port_peer = np.where(peer >= 0, peer * planes + plane, -1).reshape(shape)
        self.port_peer_port = np.stack([t.port_peer_port for t in self.plane_topologies], axis=1).reshape(shape)
        self.port_class = np.stack([t.port_class for t in self.plane_topologies], axis=1).reshape(shape)
        self.node_router = base.node_router * planes
        self.node_port = base.node_port
        self.link_classes = base.link_classes
        self.router_delay_s = base.router_delay_s

    def routing(self, name: str, seed: int = 0, **options):
        """The base topology's routing ``name``: the core runs a copy of it in every plane (over
        that plane's own tables, :meth:`plane_routings`).  Where the planes' links failed apart,
        every router pair must have a legal path in some plane (ConfigError otherwise)."""
        hops = self.plane_hops(name)
        if hops is None:
            return self.base.routing(name, seed=seed, **options)
        return Routing(self.base, self.base.routing_spec(name), seed=seed, **options)

    def plane_routings(self, name: str, seed: int = 0, **options) -> list:
        """Routing ``name`` over the tables of planes 1, 2, ... where their links failed apart
        from plane 0's (None for a plane whose tables are plane 0's).  A plane may leave pairs
        without a legal path: the NICs send those pairs over other planes (:meth:`plane_hops`)."""
        spec = self.base.routing_spec(name)
        return [None if t is self.base else Routing(t, spec, seed=seed, **options)
                for t in self.plane_topologies[1:]]

    def plane_hops(self, name: str):
        """Per router pair and plane, the hops of the plane's shortest legal path for routing
        ``name`` (:func:`~ppt.interconnects.topologies.railpick.plane_hops`, computed once per routing), or
        None where every plane is the same topology (no failures, or a file's failures in every
        plane).  A ConfigError if some pair has no legal path in any plane."""
        if all(t is self.base for t in self.plane_topologies):
            return None
        cache = self.__dict__.setdefault("_plane_hops", {})
        if name not in cache:
            spec = self.base.routing_spec(name)
            table = railpick.plane_hops(self.plane_topologies, spec)
            railpick.check_served(table, self.base, spec)
            cache[name] = table
        return cache[name]

    def router_plane(self) -> np.ndarray:
        """Plane of every router."""
        return np.arange(self.num_routers) % self.planes

    def router_groups(self) -> np.ndarray | None:
        groups = self.base.router_groups()
        return None if groups is None else np.repeat(groups, self.planes)

    def diameter(self) -> int:
        """The largest of the planes' (which differ where their links failed apart)."""
        return max(t.diameter() for t in self.plane_topologies)

    def worst_case_table(self):
        """The base topology's worst-case traffic table (it names nodes, which the planes share)."""
        return self.base.worst_case_table()

    def summary(self) -> dict:
        return {**super().summary(), "planes": self.planes}


def _plane_copy(base: Topology, plane: int) -> Topology:
    """Plane ``plane`` of a network whose plane 0 is ``base``: its own draw of base's random
    failure map, or base itself (no failures, or a file's links, which fail in every plane)."""
    from ppt.interconnects.topologies.failures import apply_failures
    spec = base.failures
    if spec is None or spec.file is not None:
        return base
    return apply_failures(base.intact, spec.for_plane(plane))


def check_planes(topology: Topology, planes: int) -> None:
    """ConfigError, before any plane is made, when ``planes`` copies of ``topology`` do not fit in this
    machine's memory (the topology size guard's estimate, per plane)."""
    from ppt import hostmemory
    from ppt.interconnects.topologies.registry import BYTES_PER_PORT
    need = int(topology.num_routers) * int(topology.radix) * planes * BYTES_PER_PORT
    available = hostmemory.available_bytes()
    if planes > 1 and available and need > available:
        raise ConfigError(f"network.planes = {planes:,}: {planes:,} planes of this {topology.kind} topology need "
                          f"about {need / 2**30:,.1f} GiB for their router ports and packet core but only "
                          f"{available / 2**30:,.1f} GiB of memory is available; use fewer planes")


def fabric(topology: Topology, planes: int) -> Topology:
    """The network of ``planes`` planes of ``topology``: the topology itself for one plane."""
    check_planes(topology, planes)
    return topology if planes == 1 else Planes(topology, planes)

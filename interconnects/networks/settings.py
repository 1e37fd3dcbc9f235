"""Network settings of a system preset: its ``network`` section, read and checked here, once.

:class:`NetworkSettings` has one field per key of the section; a field's
default is the key's default, and a key that is not a field is a one-line
ConfigError (a misspelled key is never ignored).  It is built from the final
preset (after ``--set`` and ``--fail-*``) when the machine is built
(``Machine.network_settings``), and every component reads its own part:

* the packet, flow and analytic networks: ``routing``, :attr:`packetizer`
  (``packet``), ``nic_bandwidth_Bps``, ``nic_latency_s``, ``cut_through``,
  the VCs and their buffers (:meth:`num_vcs`, :meth:`vc_capacity_B`) and the
  routing options (:meth:`routing_options`);
* the node memory: ``shm_latency_s``;
* the machine's topology: :attr:`failures` (the ``fail_*`` keys,
  :mod:`ppt.interconnects.topologies.failures`);
* the packet network's fabric: :attr:`rails` (``planes``, ``rail_policy``,
  ``rail_unit``, :mod:`ppt.interconnects.topologies.planes`);
* the packet network's traffic classes: :attr:`classes` (``traffic_classes``,
  ``class_shares``, ``class_priority``, :mod:`ppt.interconnects.networks.classes`);
* the packet network's congestion control: :attr:`congestion`
  (``congestion_control``, :mod:`ppt.interconnects.networks.congestion`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ppt.config import field as read_field
from ppt.errors import ConfigError
from ppt.interconnects.networks.classes import TrafficClasses
from ppt.interconnects.networks.congestion import CongestionControl
from ppt.interconnects.networks.nodememory import DEFAULT_LATENCY_S
from ppt.interconnects.networks.packetizer import Packetizer
from ppt.interconnects.topologies.failures import FailureSpec
from ppt.interconnects.topologies.planes import RailPolicy
from ppt.interconnects.topologies.topology import NETWORK_ROUTING_OPTIONS

#: The routing a preset that names none runs.
DEFAULT_ROUTING = "min"
#: Virtual channels per port the packet core holds at most.
MAX_VCS = 32767
#: Bytes per VC that stand for an unbounded buffer where the core needs queues per VC (traffic classes).
UNBOUNDED_VC_B = 1 << 50


def _key(default=dataclasses.MISSING, kind=None, **checks):
    """A key of the section: its ``default`` (none: the key is required) and how a value is checked
    (``kind`` and ``positive``/``nonnegative`` as :func:`ppt.config.field`; bool: true or false;
    None: by the part that reads it)."""
    return dataclasses.field(default=default, metadata={"kind": kind, "checks": checks})


def _part():
    """A part built from the keys (not a key itself)."""
    return dataclasses.field(init=False, repr=False, compare=False)


@dataclass(frozen=True)
class NetworkSettings:
    """A preset's ``network`` section, checked (see the module docstring); SI units."""

    #: Bytes/s one NIC port (rail) injects.
    nic_bandwidth_Bps: float = _key(kind=float, positive=True)
    #: The packet format (``header_B``, ``max_payload_B``, ``chunk_B``, ``response_B``; see packetizer.py).
    packet: dict = _key(kind=dict)
    #: Routing algorithm, by its registered name.
    routing: str = _key(DEFAULT_ROUTING, str)
    #: Buffer bytes per router input port, split evenly among its VCs (None: see vc_buffer_B).
    buffer_B: int | None = _key(None, int, positive=True)
    #: Buffer bytes per VC of a router input port (None with buffer_B None: unbounded, no credits).
    vc_buffer_B: int | None = _key(None, int, positive=True)
    #: Virtual channels per port (None: what the routing needs).
    vcs: int | None = _key(None, int, positive=True)
    #: Latency of a NIC, charged at both ends, s.
    nic_latency_s: float = _key(0.0, float, nonnegative=True)
    #: Latency of a same-node copy (the hardware part; MPI overheads are the mpi section's), s.
    shm_latency_s: float = _key(DEFAULT_LATENCY_S, float, nonnegative=True)
    #: Share of router-to-router links that fail ("5%" or 0.05).
    fail_links: float | str = _key(0.0)
    #: Which links fail_links draws from: all, local or global.
    fail_class: str = _key("all")
    #: Seed of the failure draw.
    fail_seed: int = _key(0)
    #: File naming the failed links, one "ROUTER PORT" a line (instead of fail_links).
    fail_file: str | None = _key(None)
    #: Independent router planes, one NIC rail into each.
    planes: int = _key(1, int)
    #: How a NIC picks a rail (see planes.RAIL_POLICIES).
    rail_policy: str = _key("round-robin", str)
    #: Whether the rail is picked per message or per packet.
    rail_unit: str = _key("packet", str)
    #: UGAL-type routings' bias toward the minimal path, packets (None: the routing's default).
    ugal_bias_packets: float | None = _key(None, float, nonnegative=True)
    #: Routers cut through (forward a packet once its header is in) instead of storing and forwarding.
    cut_through: bool = _key(False, bool)
    #: Traffic classes, each with its own VCs and share of every port (1: none).
    traffic_classes: int = _key(1, int, positive=True)
    #: Each class's guaranteed fraction of a port's bandwidth, summing to 1 (None: equal shares).
    class_shares: list | None = _key(None, list)
    #: Each class's strict priority level, higher served first (None: all equal).
    class_priority: list | None = _key(None, list)
    #: Congestion control: None (off) or a mapping with a scheme ("ib") and its parameters (congestion.py).
    congestion_control: dict | None = _key(None)

    #: The packet format's part: cutting messages into packets.
    packetizer: Packetizer = _part()
    #: The fail_* keys' part: which links fail.
    failures: FailureSpec = _part()
    #: The planes and rail_* keys' part: how NICs spread messages over their rails.
    rails: RailPolicy = _part()
    #: The traffic_classes and class_* keys' part: classes, shares and priorities.
    classes: TrafficClasses = _part()
    #: The congestion_control key's part.
    congestion: CongestionControl = _part()

    def __post_init__(self):
        for key in dataclasses.fields(self):
            if not key.init:
                continue
            kind, value = key.metadata["kind"], getattr(self, key.name)
            if kind is None or (value is None and key.default is None):
                continue
            if kind is bool:
                if not isinstance(value, bool):
                    raise ConfigError(f"network.{key.name} must be true or false, got {value!r}")
                continue
            object.__setattr__(self, key.name, read_field({key.name: value}, key.name, "network", kind,
                                                          **key.metadata["checks"]))
        if self.buffer_B is not None and self.vc_buffer_B is not None:
            raise ConfigError("network sets both buffer_B (per port, split among VCs) and vc_buffer_B (per VC); "
                              "keep one")
        object.__setattr__(self, "packetizer", Packetizer(self.packet))
        object.__setattr__(self, "failures", FailureSpec.from_settings(self))
        object.__setattr__(self, "rails", RailPolicy.from_settings(self))
        object.__setattr__(self, "classes", TrafficClasses.from_settings(self))
        object.__setattr__(self, "congestion", CongestionControl.from_section(
            self.congestion_control, self.packet_B, self.nic_bandwidth_Bps))

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        """The keys a ``network`` section may hold: the fields."""
        return tuple(key.name for key in dataclasses.fields(cls) if key.init)

    @classmethod
    def from_section(cls, section: dict) -> "NetworkSettings":
        """The settings of a ``network`` section; a one-line ConfigError names an unknown or missing key."""
        if not isinstance(section, dict):
            raise ConfigError(f"network must be a mapping of fields, got {type(section).__name__}")
        keys = cls.keys()
        for key in section:
            if key not in keys:
                raise ConfigError(f"unknown setting network.{key}; valid keys: {', '.join(keys)}")
        for key in dataclasses.fields(cls):
            if key.init and key.default is dataclasses.MISSING and key.name not in section:
                raise ConfigError(f"network is missing the field {key.name!r}")
        return cls(**section)

    @classmethod
    def from_preset(cls, preset: dict) -> "NetworkSettings":
        """The settings of system preset ``preset``'s ``network`` section."""
        return cls.from_section(read_field(preset, "network", "preset", dict))

    @classmethod
    def of(cls, settings) -> "NetworkSettings":
        """``settings`` itself, or the settings of a ``network`` section given as a dict."""
        return settings if isinstance(settings, cls) else cls.from_section(settings)

    @property
    def packet_B(self) -> int:
        """Bytes on the wire of a full packet."""
        return self.packetizer.size(self.packetizer.max_payload_B)

    @property
    def bounded_buffers(self) -> bool:
        """Whether routers' input buffers are bounded (credit flow control): buffer_B or vc_buffer_B set."""
        return self.buffer_B is not None or self.vc_buffer_B is not None

    def num_vcs(self, routing) -> int:
        """Virtual channels per port under ``routing``, over all traffic classes: each class has ``vcs``
        (the hardware's) or, by default, what the routing needs to be deadlock-free; a ConfigError if
        ``vcs`` is fewer or the total more than the core holds."""
        vcs = routing.num_vcs if self.vcs is None else self.vcs
        if vcs < routing.num_vcs:
            raise ConfigError(f"routing {routing.name!r} needs {routing.num_vcs} virtual channels to be "
                              f"deadlock-free but network.vcs is {vcs}; raise network.vcs or choose another routing")
        total = vcs * self.classes.count
        if total > MAX_VCS:
            raise ConfigError(f"network.vcs = {vcs} for each of {self.classes.count} traffic classes: the packet "
                              f"core holds at most {MAX_VCS} VCs per port")
        return total

    def vc_capacity_B(self, routing) -> int | None:
        """Bytes of buffer per (input port, VC) under ``routing``: ``buffer_B`` split evenly among the
        :meth:`num_vcs`, or ``vc_buffer_B``; None (unbounded) if neither (with traffic classes,
        :data:`UNBOUNDED_VC_B`: per-VC queues whose credits never run out).  A ConfigError if it holds
        less than one full packet."""
        vcs = self.num_vcs(routing)
        if not self.bounded_buffers:
            # classes need queues per VC to arbitrate: buffers so large that credits never run out
            return UNBOUNDED_VC_B if self.classes.on else None
        if self.vc_buffer_B is not None:
            capacity, given = self.vc_buffer_B, f"vc_buffer_B {self.vc_buffer_B}"
        else:
            capacity, given = self.buffer_B // vcs, f"buffer_B {self.buffer_B} split over {vcs} VCs"
        if capacity < self.packet_B:
            raise ConfigError(f"network.{given} holds less than one {self.packet_B}-byte packet; "
                              f"raise it or lower max_payload_B")
        return capacity

    def routing_options(self, topology, name: str) -> dict:
        """The options of ``topology``'s routing ``name`` this section sets (``ugal_bias_packets``), as
        keywords of ``topology.routing``; one that no routing of the topology takes is a ConfigError
        (:meth:`~ppt.interconnects.topologies.topology.Topology.network_options`)."""
        given = {key: getattr(self, key) for key in NETWORK_ROUTING_OPTIONS if getattr(self, key) is not None}
        return topology.network_options(name, given)

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
from ppt.interconnects.topologies.failures import CLASSES as FAILURE_CLASSES, FailureSpec
from ppt.interconnects.topologies.planes import RAIL_POLICIES, RAIL_UNITS, RailPolicy
from ppt.interconnects.topologies.topology import NETWORK_ROUTING_OPTIONS
from ppt.params import REQUIRED, Param, names

#: The routing a preset that names none runs.
DEFAULT_ROUTING = "min"
#: Virtual channels per port the packet core holds at most.
MAX_VCS = 32767
#: Bytes per VC that stand for an unbounded buffer where the core needs queues per VC (traffic classes).
UNBOUNDED_VC_B = 1 << 50


def _key(meaning: str, default=REQUIRED, kind=None, **checks):
    """A key of the section, declared (see :class:`~ppt.params.Param`; the name is the field's)."""
    param = Param("", meaning, kind, default, **checks)
    return dataclasses.field(default=dataclasses.MISSING if default == REQUIRED else default,
                             metadata={"param": param})


def _part():
    """A part built from the keys (not a key itself)."""
    return dataclasses.field(init=False, repr=False, compare=False)


@dataclass(frozen=True)
class NetworkSettings:
    """A preset's ``network`` section, checked (see the module docstring); SI units."""

    nic_bandwidth_Bps: float = _key("bandwidth one NIC port (rail) injects", kind=float, positive=True)
    packet: dict = _key("the packet format (see 'ppt describe network.packet')", kind=dict)
    routing: str = _key("routing algorithm, by its registered name (see 'ppt describe TOPOLOGY')",
                        DEFAULT_ROUTING, str)
    buffer_B: int | None = _key("buffer per router input port, split evenly among its VCs (null: see "
                                "vc_buffer_B)", None, int, positive=True)
    vc_buffer_B: int | None = _key("buffer per VC of a router input port (null with buffer_B null: "
                                   "unbounded, no credits)", None, int, positive=True)
    vcs: int | None = _key("virtual channels per port (null: what the routing needs)", None, int, positive=True)
    nic_latency_s: float = _key("latency of a NIC, charged at both ends", 0.0, float, nonnegative=True)
    shm_latency_s: float = _key("latency of a same-node copy (the hardware part; MPI overheads are the "
                                "mpi section's)", DEFAULT_LATENCY_S, float, nonnegative=True)
    fail_links: float | str = _key("share of router-to-router links that fail (\"5%\" or 0.05)", 0.0,
                                   shape="share")
    fail_class: str = _key("which links fail_links draws from", "all", choices=FAILURE_CLASSES, shape="str")
    fail_seed: int = _key("seed of the failure draw", 0, shape="int")
    fail_file: str | None = _key("file naming the failed links, one \"ROUTER PORT\" a line (instead of "
                                 "fail_links)", None, shape="path")
    planes: int = _key("independent router planes, one NIC rail into each", 1, int)
    rail_policy: str = _key("how a NIC picks a rail", "round-robin", str, choices=RAIL_POLICIES)
    rail_unit: str = _key("whether the rail is picked per message or per packet", "packet", str,
                          choices=RAIL_UNITS)
    ugal_bias_packets: float | None = _key("UGAL-type routings' bias toward the minimal path, in packets "
                                           "(null: the routing's default)", None, float, nonnegative=True)
    cut_through: bool = _key("routers forward a packet once its header is in, instead of storing it whole",
                             False, bool)
    traffic_classes: int = _key("traffic classes, each with its own VCs and share of every port (1: none)", 1,
                                int, positive=True)
    class_shares: list | None = _key("each class's guaranteed fraction of a port's bandwidth, summing to 1 "
                                     "(null: equal shares)", None, list)
    class_priority: list | None = _key("each class's strict priority level, higher served first (null: all "
                                       "equal)", None, list)
    congestion_control: dict | None = _key("null (off) or a mapping: a scheme (\"ib\" or \"dcqcn\") and its "
                                           "parameters, as the congestion control guide lists them", None,
                                           shape="mapping")

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
        for param in self.params():
            object.__setattr__(self, param.name, param.read({param.name: getattr(self, param.name)}, "network"))
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
    def params(cls) -> tuple[Param, ...]:
        """The keys a ``network`` section may hold, declared: the fields."""
        return tuple(dataclasses.replace(key.metadata["param"], name=key.name)
                     for key in dataclasses.fields(cls) if key.init)

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        """The keys a ``network`` section may hold."""
        return names(cls.params())

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

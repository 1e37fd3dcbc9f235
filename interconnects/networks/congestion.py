"""Congestion control of a packet network: the ``congestion_control`` key of a preset's ``network``
section, checked.

``congestion_control`` is absent or null (none, the default) or a mapping with
``scheme`` ``"ib"``: InfiniBand congestion control (IBTA specification, annex
A10; the mechanism is described in ``core/net.c``).  Its other keys, all
optional:

``threshold_B``
    bytes waiting at a switch output port from which it marks packets FECN
    (default: one full packet, the most aggressive marking, as OpenSM's
    default threshold 0xf "very aggressive").
``marking_rate``
    one in this many eligible packets is marked (default 10: OpenSM's
    default marking_rate 0xa, "the mean number of packets between marking
    eligible packets").
``min_packet_B``
    smaller packets are never marked (default 512: OpenSM's packet_size 0x200).
``ccti_increase``
    CCT index added per BECN (default 1, OpenSM's default).
``ccti_limit``
    largest CCT index (default 127, a 128-entry table).
``ccti_timer_s``
    the index drops by one every this many seconds (default 10 us: OpenSM
    derives it from the subnet size; no published value was found, so this
    is PPT's choice).
``cct_step_s``
    the table's inter-packet delay per index (default: half a full packet's
    time on the NIC, so index 127 spaces packets 64.5 packet times apart;
    OpenSM derives its table from the subnet size, PPT takes it linear).

OpenSM defaults: Mellanox OFED user manual, "Congestion Control Manager"
options (rev 2.2, tables 26-27).
"""
from __future__ import annotations

from dataclasses import dataclass

from ppt.config import field, reject_unknown
from ppt.errors import ConfigError

#: Schemes ``congestion_control.scheme`` may name.
SCHEMES = ("ib",)
KEYS = ("scheme", "threshold_B", "marking_rate", "min_packet_B", "ccti_increase", "ccti_limit", "ccti_timer_s",
        "cct_step_s")
WHERE = "network.congestion_control"


@dataclass(frozen=True)
class CongestionControl:
    """A network's congestion control: ``scheme`` None (off) or "ib" with its parameters (bytes, s)."""

    scheme: str | None = None
    threshold_B: float = 0.0
    marking_rate: int = 10
    min_packet_B: int = 512
    ccti_increase: int = 1
    ccti_limit: int = 127
    ccti_timer_s: float = 10e-6
    cct_step_s: float = 0.0

    @classmethod
    def from_section(cls, section, packet_B: int, nic_bandwidth_Bps: float) -> "CongestionControl":
        """The control a ``congestion_control`` value asks for (None: off); ``packet_B`` (a full packet's
        wire bytes) and ``nic_bandwidth_Bps`` give the defaults that depend on the network."""
        if section is None:
            return cls()
        if not isinstance(section, dict):
            raise ConfigError(f"{WHERE} must be a mapping with a scheme (e.g. {{\"scheme\": \"ib\"}}) or null, "
                              f"got {section!r}")
        reject_unknown(section, WHERE, KEYS)
        scheme = field(section, "scheme", WHERE, str)
        if scheme not in SCHEMES:
            raise ConfigError(f"{WHERE}.scheme {scheme!r} is not known; choose one of: {', '.join(SCHEMES)}")
        control = cls(scheme, field(section, "threshold_B", WHERE, float, default=float(packet_B), positive=True),
                      field(section, "marking_rate", WHERE, int, default=10, positive=True),
                      field(section, "min_packet_B", WHERE, int, default=512, nonnegative=True),
                      field(section, "ccti_increase", WHERE, int, default=1, positive=True),
                      field(section, "ccti_limit", WHERE, int, default=127, positive=True),
                      field(section, "ccti_timer_s", WHERE, float, default=10e-6, positive=True),
                      field(section, "cct_step_s", WHERE, float, default=0.5 * packet_B / nic_bandwidth_Bps,
                            nonnegative=True))
        return control

    @property
    def on(self) -> bool:
        return self.scheme is not None

    def describe(self) -> dict | None:
        """The control as results and ``ppt topology`` show it (None: off)."""
        if not self.on:
            return None
        return {key: getattr(self, key) for key in KEYS}

    def configure(self, cfg) -> None:
        """Fill the congestion fields of a ``ppt_net_config_t``."""
        if not self.on:
            return
        cfg.cc_ib = 1
        cfg.cc_threshold_B, cfg.cc_marking_rate, cfg.cc_min_packet_B = self.threshold_B, self.marking_rate, \
            self.min_packet_B
        cfg.ccti_increase, cfg.ccti_limit = self.ccti_increase, self.ccti_limit
        cfg.ccti_timer_s, cfg.cct_step_s = self.ccti_timer_s, self.cct_step_s

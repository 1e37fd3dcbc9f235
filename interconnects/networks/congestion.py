"""Congestion control of a packet network: the ``congestion_control`` key of a preset's ``network``
section, checked.

``congestion_control`` is absent or null (none, the default) or a mapping
with a ``scheme`` and that scheme's parameters, all optional; the mechanisms
are described in ``core/net.c``.

``scheme: "ib"``, InfiniBand congestion control (IBTA specification, annex A10):

``threshold_B``
    bytes waiting at a switch output port from which it marks packets FECN
    (default: one full packet, the most aggressive marking, as OpenSM's
    default threshold 0xf "very aggressive").
``marking_rate``
    one in this many eligible packets is marked (default 10: OpenSM's
    default marking_rate 0xa, "the mean number of packets between marking
    eligible packets").
``min_packet_B``
    smaller packets are never marked (default 512: OpenSM's packet_size 0x200;
    a full packet where packets are smaller, so that they can be marked).
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

``scheme: "dcqcn"``, the end-to-end rate control of Zhu et al., "Congestion
Control for Large-Scale RDMA Deployments", SIGCOMM 2015 (defaults: the
paper's recommended values as recalled by PPT's authors and as the htsim
DCQCN model uses for the two timers; see docs/guide/congestion-control.md):

``kmin_B``, ``kmax_B``, ``pmax``
    RED marking: probability 0 up to ``kmin_B`` bytes waiting (5 KB),
    ``pmax`` (0.01) at ``kmax_B`` (200 KB), 1 beyond.
``g``
    gain of the congestion estimate alpha (1/256).
``period_s``
    alpha decay and rate increase period (55 us).
``ai_Bps``
    additive increase of the target rate per period (40 Mb/s = 5e6 B/s).
``fast_stages``
    periods of fast recovery before additive increase (5).
``cnp_interval_s``
    at most one rate cut per this many seconds (50 us, the paper's CNP interval).
``min_rate_Bps``
    the rate is never cut below this (100 Mb/s = 12.5e6 B/s).
"""
from __future__ import annotations

from dataclasses import dataclass, field as dataclass_field

from ppt.config import field, reject_unknown
from ppt.errors import ConfigError

WHERE = "network.congestion_control"


def _ib_defaults(packet_B: int, nic_bandwidth_Bps: float) -> dict:
    return {"threshold_B": float(packet_B), "marking_rate": 10, "min_packet_B": min(512, packet_B), "ccti_increase": 1,
            "ccti_limit": 127, "ccti_timer_s": 10e-6, "cct_step_s": 0.5 * packet_B / nic_bandwidth_Bps}


def _dcqcn_defaults(packet_B: int, nic_bandwidth_Bps: float) -> dict:
    return {"kmin_B": 5e3, "kmax_B": 200e3, "pmax": 0.01, "g": 1.0 / 256, "period_s": 55e-6, "ai_Bps": 5e6,
            "fast_stages": 5, "cnp_interval_s": 50e-6, "min_rate_Bps": 12.5e6}


#: Each scheme's parameters with their defaults (from the network's full packet bytes and NIC bandwidth).
SCHEMES = {"ib": _ib_defaults, "dcqcn": _dcqcn_defaults}
#: Parameters counted in whole numbers.
WHOLE = ("marking_rate", "min_packet_B", "ccti_increase", "ccti_limit", "fast_stages")
#: Parameters that may be 0.
MAY_BE_ZERO = ("min_packet_B", "cct_step_s")


@dataclass(frozen=True)
class CongestionControl:
    """A network's congestion control: ``scheme`` None (off), "ib" or "dcqcn", and its ``params`` (SI units)."""

    scheme: str | None = None
    params: dict = dataclass_field(default_factory=dict)

    @classmethod
    def from_section(cls, section, packet_B: int, nic_bandwidth_Bps: float) -> "CongestionControl":
        """The control a ``congestion_control`` value asks for (None: off); ``packet_B`` (a full packet's
        wire bytes) and ``nic_bandwidth_Bps`` give the defaults that depend on the network."""
        if section is None:
            return cls()
        if not isinstance(section, dict):
            raise ConfigError(f"{WHERE} must be a mapping with a scheme (e.g. {{\"scheme\": \"ib\"}}) or null, "
                              f"got {section!r}")
        scheme = field(section, "scheme", WHERE, str)
        if scheme not in SCHEMES:
            raise ConfigError(f"{WHERE}.scheme {scheme!r} is not known; choose one of: {', '.join(SCHEMES)}")
        defaults = SCHEMES[scheme](packet_B, nic_bandwidth_Bps)
        reject_unknown(section, f"{WHERE} (scheme {scheme})", ("scheme", *defaults))
        params = {key: field(section, key, WHERE, int if key in WHOLE else float, default=default,
                             **({"nonnegative": True} if key in MAY_BE_ZERO else {"positive": True}))
                  for key, default in defaults.items()}
        if scheme == "dcqcn":
            if not params["kmin_B"] < params["kmax_B"]:
                raise ConfigError(f"{WHERE}.kmin_B must be below kmax_B, got {params['kmin_B']} and {params['kmax_B']}")
            if not 0.0 < params["pmax"] <= 1.0 or not 0.0 < params["g"] < 1.0:
                raise ConfigError(f"{WHERE}: pmax must be in (0, 1] and g in (0, 1), got {params['pmax']} and "
                                  f"{params['g']}")
        return cls(scheme, params)

    @property
    def on(self) -> bool:
        return self.scheme is not None

    def describe(self) -> dict | None:
        """The control as results and ``ppt topology`` show it (None: off)."""
        return {"scheme": self.scheme, **self.params} if self.on else None

    def configure(self, cfg) -> None:
        """Fill the congestion fields of a ``ppt_net_config_t``."""
        from ppt.interconnects.core import lib
        if not self.on:
            return
        p = self.params
        if self.scheme == "ib":
            cfg.cc_scheme = lib.PPT_CC_IB
            cfg.cc_threshold_B, cfg.cc_marking_rate, cfg.cc_min_packet_B = (p["threshold_B"], p["marking_rate"],
                                                                           p["min_packet_B"])
            cfg.ccti_increase, cfg.ccti_limit = p["ccti_increase"], p["ccti_limit"]
            cfg.ccti_timer_s, cfg.cct_step_s = p["ccti_timer_s"], p["cct_step_s"]
        else:
            cfg.cc_scheme = lib.PPT_CC_DCQCN
            cfg.red_kmin_B, cfg.red_kmax_B, cfg.red_pmax = p["kmin_B"], p["kmax_B"], p["pmax"]
            cfg.dcqcn_g, cfg.dcqcn_period_s, cfg.dcqcn_ai_Bps = p["g"], p["period_s"], p["ai_Bps"]
            cfg.dcqcn_min_rate_Bps, cfg.dcqcn_cnp_interval_s = p["min_rate_Bps"], p["cnp_interval_s"]
            cfg.dcqcn_fast_stages = p["fast_stages"]

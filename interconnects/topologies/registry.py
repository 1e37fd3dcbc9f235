"""Topology kinds by name, so presets can name them as data."""
from __future__ import annotations

import importlib
import pkgutil

from ppt import hostmemory
from ppt.config import reject_unknown
from ppt.errors import ConfigError

TOPOLOGIES: dict[str, type] = {}


def register(cls):
    """Class decorator: make a Topology subclass buildable from a preset by its ``kind``."""
    TOPOLOGIES[cls.kind] = cls
    return cls


def build_topology(cfg: dict):
    """Build the topology a preset's ``topology`` section describes."""
    load_all()
    kind = cfg.get("kind") if isinstance(cfg, dict) else None
    if kind is None:
        raise ConfigError("topology is missing the field 'kind'")
    try:
        cls = TOPOLOGIES[kind]
    except KeyError:
        known = ", ".join(sorted(TOPOLOGIES))
        raise ConfigError(f"unknown topology kind {kind!r}; choose one of: {known}") from None
    _refuse_if_too_large(cls, cfg)
    topology = cls.from_config(cfg)
    # a key the kind does not declare is a typo or belongs to another kind
    reject_unknown(cfg, "topology", cls.preset_keys())
    return topology


def kind_keys(kind: str) -> tuple[str, ...] | None:
    """The keys a ``topology`` section of kind ``kind`` may hold, None for an unknown kind."""
    load_all()
    cls = TOPOLOGIES.get(kind)
    return None if cls is None else cls.preset_keys()


def load_all() -> None:
    """Import every module of the package, so each topology kind (and its routings) registers itself:
    a new topology is one new module."""
    import ppt.interconnects.topologies as package
    for module in pkgutil.iter_modules(package.__path__):
        if not module.name.startswith("_"):
            importlib.import_module(f"{package.__name__}.{module.name}")


#: Bytes per router port: the topology's tables (peer, peer port, class) and the packet core's
#: port record, credits and queues of two VCs.
BYTES_PER_PORT = 4 + 4 + 1 + 64 + 8 + 4 + 2 * 16


def _refuse_if_too_large(cls, cfg: dict) -> None:
    """ConfigError, before any array is made, when the topology cannot fit in this machine's memory."""
    try:
        need = cls.ports_estimate(cfg) * BYTES_PER_PORT
    except (KeyError, TypeError, ValueError):
        return                                   # malformed: the builder names the field
    available = hostmemory.available_bytes()
    if available and need > available:
        raise ConfigError(f"this {cls.kind} topology needs about {need / 2**30:,.1f} GiB for its router ports "
                          f"and packet core but only {available / 2**30:,.1f} GiB of memory is available; "
                          f"choose a smaller topology")


#: Bytes one packet in flight holds: its record in the packet core (96) and its pending event, with
#: the pools' growth by doubling (one 4 GiB message on fattree-4-3 peaks at 2.1 M packets and 350 MB).
BYTES_PER_PACKET = 200
#: Packets of one message the packet core counts (a 32-bit field).
MAX_MESSAGE_PACKETS = 2**31 - 1


def refuse_if_message_too_large(settings, nbytes: int, what: str, all_at_once: bool = True) -> None:
    """ConfigError, before the run, when the packet network of the preset's network ``settings``
    (:class:`~ppt.interconnects.networks.settings.NetworkSettings`) cannot hold one ``nbytes`` message:
    more packets than the core counts, or, with unbounded buffers (no ``buffer_B``/``vc_buffer_B``),
    where a NIC lays out all of a message's packets at once, more packets than this machine's memory
    holds.  ``what`` names the input (``--sizes 1G``); ``all_at_once=False`` for synthetic traffic,
    whose packets are always made one at a time."""
    packets = settings.packetizer.count(nbytes)
    other = "use --network flow or analytic, which do not model single packets, or smaller messages"
    # with credits packets are made as buffers free up; with unbounded buffers all at once
    if all_at_once and not settings.bounded_buffers:
        need = packets * BYTES_PER_PACKET
        available = hostmemory.available_bytes()
        if available and need > available:
            raise ConfigError(f"{what}: a {nbytes:,}-byte message is {packets:,} packets, which this network "
                              f"(unbounded buffers: a NIC sends all of a message's packets at once) needs about "
                              f"{need / 2**30:,.1f} GiB for, but only {available / 2**30:,.1f} GiB of memory is "
                              f"available; {other}")
    if packets > MAX_MESSAGE_PACKETS:
        raise ConfigError(f"{what}: a {nbytes:,}-byte message is {packets:,} packets, but the packet network "
                          f"counts at most {MAX_MESSAGE_PACKETS:,} per message; {other}")

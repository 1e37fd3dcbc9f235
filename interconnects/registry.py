"""Topology kinds by name, so presets can name them as data."""
from __future__ import annotations

import importlib

from ppt.errors import ConfigError

TOPOLOGIES: dict[str, type] = {}

#: The modules that define topology kinds (each registers its classes when imported).
MODULES = ("torus", "gemini", "bgq", "dragonfly", "aries", "fattree", "slimfly")


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
    return cls.from_config(cfg)


def load_all() -> None:
    """Import every topology module so each kind is registered."""
    for name in MODULES:
        importlib.import_module(f"ppt.interconnects.{name}")

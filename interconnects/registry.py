"""Topology kinds by name, so presets can name them as data."""
from __future__ import annotations

import importlib
import pkgutil

from ppt.config import ReadTracker, reject_unknown
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
    tracked = ReadTracker(cfg)
    topology = cls.from_config(tracked)
    # the builder reads every key it supports: any other key is a typo or belongs to another kind
    reject_unknown(cfg, "topology", tracked.read | {"kind"})
    return topology


def load_all() -> None:
    """Import every module of the package, so each topology kind (and its routings) registers itself:
    a new topology is one new module."""
    import ppt.interconnects as package
    for module in pkgutil.iter_modules(package.__path__):
        if not module.name.startswith("_"):
            importlib.import_module(f"{package.__name__}.{module.name}")

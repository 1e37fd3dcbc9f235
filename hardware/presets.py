"""Processor presets: data files ``processors/<name>.json`` loaded as :class:`NodeModel`.

Each file holds the fields :meth:`NodeModel.from_config` reads plus
``references`` (citations by id), ``sources`` (for every number, the ``[id]``
of the references it comes from, or how it was derived) and ``notes``
(estimates and caveats).
"""
from __future__ import annotations

import json
from pathlib import Path

from ppt.errors import ConfigError
from ppt.hardware.node import NodeModel

PROCESSORS_DIR = Path(__file__).with_name("processors")


def list_processors() -> list[str]:
    """Names of the built-in processor presets."""
    return sorted(p.stem for p in PROCESSORS_DIR.glob("*.json"))


def read_processor_config(name_or_path: str) -> dict:
    """The raw preset dict for a built-in name or a ``.json`` file path."""
    path = Path(name_or_path)
    if not (path.suffix == ".json" and path.is_file()):
        path = PROCESSORS_DIR / f"{name_or_path}.json"
        if not path.is_file():
            known = ", ".join(list_processors())
            raise ConfigError(f"unknown processor {name_or_path!r}; choose one of: {known} "
                              f"(or give a .json processor file)")
    try:
        cfg = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ConfigError(f"processor file {path.name} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(cfg, dict):
        raise ConfigError(f"processor file {path.name} must hold a JSON object")
    return cfg


def load_processor(name_or_path: str) -> NodeModel:
    """The node model of a built-in processor preset (or a ``.json`` processor file)."""
    return NodeModel.from_config(read_processor_config(name_or_path), where=f"processor {name_or_path!r}")

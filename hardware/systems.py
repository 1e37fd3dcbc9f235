"""System presets: data files ``systems/<name>.json`` (topology, network, node).

``load_system(name_or_path, overrides)`` returns the preset as a dict with
``--set key=value`` overrides applied (dotted keys reach into sections, values
parsed as JSON when they parse, else kept as strings).
"""
from __future__ import annotations

import json
from pathlib import Path

from ppt.config import preset_names, read_preset
from ppt.errors import ConfigError

SYSTEMS_DIR = Path(__file__).with_name("systems")
REQUIRED_SECTIONS = ("name", "topology", "network", "node")


def list_systems() -> list[str]:
    """Names of the built-in system presets."""
    return preset_names(SYSTEMS_DIR)


def load_system(name_or_path: str, overrides=()) -> dict:
    """The preset ``name_or_path`` (built-in name or a JSON file) with overrides applied."""
    preset = read_preset(SYSTEMS_DIR, name_or_path, "system")
    for section in REQUIRED_SECTIONS:
        if section not in preset:
            raise ConfigError(f"system {name_or_path!r} is missing the field {section!r}")
    for item in overrides:
        apply_override(preset, item)
    return preset


def apply_override(preset: dict, item: str) -> None:
    """Apply one ``key.sub=value`` override in place."""
    key, sep, raw = item.partition("=")
    if not sep or not key:
        raise ConfigError(f"--set takes key=value (e.g. network.routing=val), got {item!r}")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    *parents, leaf = key.split(".")
    node = preset
    for part in parents:
        child = node.get(part)
        if not isinstance(child, dict):
            raise ConfigError(f"--set {key}: {part!r} is not a section of this preset")
        node = child
    node[leaf] = value

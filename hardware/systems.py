"""System presets: data files ``systems/<name>.json`` (topology, network, node).

``load_system(name_or_path, overrides)`` returns the preset as a dict with
``--set key=value`` overrides applied (dotted keys reach into sections, values
parsed as JSON when they parse, else kept as strings).
"""
from __future__ import annotations

import difflib
import json
from pathlib import Path

from ppt.config import preset_names, read_preset, reject_unknown
from ppt.errors import ConfigError
from ppt.mpi.settings import MPI_FIELDS

SYSTEMS_DIR = Path(__file__).with_name("systems")
REQUIRED_SECTIONS = ("name", "topology", "network", "node")
#: Keys of each section that is not owned by a component building itself from it (the topology
#: section is checked by the topology builder, which knows its kind's keys).
SECTION_KEYS = {
    "": ("name", "description", "sources", "topology", "network", "mpi", "node"),
    "node": ("processor", "cores"),
    "mpi": MPI_FIELDS,
    "network.packet": ("header_B", "max_payload_B", "chunk_B", "response_B"),
}


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
    check_keys(preset)
    return preset


def check_keys(preset: dict) -> None:
    """ConfigError naming the first misspelled or misplaced key of a system preset."""
    from ppt.interconnects.network import NETWORK_FIELDS
    sections = {**SECTION_KEYS, "network": NETWORK_FIELDS}
    home = {key: f"{name}.{key}" if name else key for name, keys in sections.items() for key in keys}
    for name, keys in sections.items():
        section = preset
        for part in filter(None, name.split(".")):
            section = section.get(part, {}) if isinstance(section, dict) else {}
        reject_unknown(section, name or "preset", keys, home)


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
            close = difflib.get_close_matches(part, [k for k, v in node.items() if isinstance(v, dict)], n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise ConfigError(f"--set {key}: {part!r} is not a section of this preset{hint}")
        node = child
    node[leaf] = value

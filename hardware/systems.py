"""System presets: data files ``systems/<name>.json`` (topology, network, node).

``load_system(name_or_path, overrides)`` returns the preset as a dict with
``--set key=value`` overrides applied (dotted keys reach into sections, values
parsed as JSON when they parse, a number with a unit (``10GB/s``, ``1us``) as the
SI value of the field's dimension (see :mod:`ppt.units`), else kept as strings).

A name is looked up among the built-in presets first, then among the user's
presets in :func:`user_systems_dir` (``$PPT_HOME/systems``, by default
``~/.config/ppt/systems``), where ``ppt calibrate`` writes ``host``.  A preset
read from a file may name its processor as a ``.json`` file relative to its
own folder (``"processor": "host.processor.json"``).

The optional ``calibration`` section records how a generated preset was
measured (``ppt calibrate``: date, command, method, the measured numbers and
the fit); the model does not read it.
"""
from __future__ import annotations

import difflib
import json
import os
from pathlib import Path

from ppt.config import preset_names, read_preset, reject_unknown
from ppt.errors import ConfigError
from ppt.mpi.settings import MPI_FIELDS
from ppt.units import dimension_of, has_unit, parse_quantity

SYSTEMS_DIR = Path(__file__).with_name("systems")
REQUIRED_SECTIONS = ("name", "topology", "network", "node")
#: Keys of each section that is not owned by a component building itself from it (the topology
#: section is checked by the topology builder, which knows its kind's keys).
SECTION_KEYS = {
    "": ("name", "description", "sources", "topology", "network", "mpi", "node", "calibration"),
    "node": ("processor", "cores"),
    "calibration": ("date", "command", "version", "host", "method", "pingpong", "calls", "memory_copy", "fit"),
    "mpi": MPI_FIELDS,
    "network.packet": ("header_B", "max_payload_B", "chunk_B", "response_B"),
}


def list_systems() -> list[str]:
    """Names of the built-in system presets."""
    return preset_names(SYSTEMS_DIR)


def user_systems_dir() -> Path:
    """The user's preset folder: ``$PPT_HOME/systems``, else ``$XDG_CONFIG_HOME/ppt/systems``
    (``~/.config/ppt/systems``)."""
    home = os.environ.get("PPT_HOME")
    if home:
        return Path(home).expanduser() / "systems"
    config = os.environ.get("XDG_CONFIG_HOME") or Path("~/.config").expanduser()
    return Path(config) / "ppt" / "systems"


def list_user_systems() -> list[str]:
    """Names of the user's system presets (processor files ``*.processor.json`` beside them excluded)."""
    folder = user_systems_dir()
    return [name for name in preset_names(folder) if "." not in name] if folder.is_dir() else []


def system_path(name_or_path: str) -> Path:
    """The file of preset ``name_or_path``: a ``.json`` file, a built-in name, then a user preset name."""
    path = Path(name_or_path)
    if path.suffix == ".json" and path.is_file():
        return path
    for folder in (SYSTEMS_DIR, user_systems_dir()):
        if "/" not in name_or_path and (folder / f"{name_or_path}.json").is_file():
            return folder / f"{name_or_path}.json"
    if name_or_path == "host":
        raise ConfigError(f"no 'host' preset in {user_systems_dir()}: run 'ppt calibrate' to measure this host "
                          f"and write it")
    known = ", ".join(list_systems() + list_user_systems())
    raise ConfigError(f"unknown system {name_or_path!r}; choose one of: {known} (or give a .json system file)")


def load_system(name_or_path: str, overrides=()) -> dict:
    """The preset ``name_or_path`` (built-in name, user preset name or a JSON file) with overrides applied."""
    path = system_path(name_or_path)
    preset = read_preset(SYSTEMS_DIR, str(path), "system")
    node = preset.get("node")
    if path.parent != SYSTEMS_DIR and isinstance(node, dict) and isinstance(node.get("processor"), str):
        beside = path.parent / node["processor"]
        if beside.suffix == ".json" and not Path(node["processor"]).is_absolute() and beside.is_file():
            node["processor"] = str(beside.resolve())
    for section in REQUIRED_SECTIONS:
        if section not in preset:
            raise ConfigError(f"system {name_or_path!r} is missing the field {section!r}")
    for item in overrides:
        apply_override(preset, item)
    check_keys(preset)
    return preset


def check_keys(preset: dict) -> None:
    """ConfigError naming the first misspelled or misplaced key of a system preset."""
    from ppt.interconnects.networks.settings import NetworkSettings
    sections = {**SECTION_KEYS, "network": NetworkSettings.keys()}
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
    dimension = dimension_of(key)
    if isinstance(value, str) and dimension and has_unit(raw):
        value = parse_quantity(raw, dimension, f"--set {key}")
    *parents, leaf = key.split(".")
    node = preset
    for part in parents:
        child = node.get(part)
        if not isinstance(child, dict):
            close = difflib.get_close_matches(part, [k for k, v in node.items() if isinstance(v, dict)], n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise ConfigError(f"--set {key}: {part!r} is not a section of this preset{hint}")
        node = child
    if isinstance(node.get(leaf), dict) and node[leaf] and not isinstance(value, dict):
        fields = ", ".join(sorted(node[leaf])[:4])
        raise ConfigError(f"--set {key}={raw}: {key} is a section of this preset, not a value; set one of its "
                          f"fields, e.g. {key}.{sorted(node[leaf])[0]}=... (its fields include {fields})")
    node[leaf] = value

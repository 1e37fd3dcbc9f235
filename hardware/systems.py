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

import json
import os
from pathlib import Path

from ppt.config import closest, preset_names, read_preset, reject_unknown
from ppt.errors import ConfigError
from ppt.hardware.hostpreset import CALIBRATION_PARAMS
from ppt.hardware.presets import NODE_PARAMS
from ppt.mpi.settings import MPI_PARAMS
from ppt.params import REQUIRED, Param, names
from ppt.units import dimension_of, has_unit, parse_quantity

SYSTEMS_DIR = Path(__file__).with_name("systems")
#: The top level of a preset: its name, its sources and its sections.
PRESET_PARAMS = (
    Param("name", "the system's name", str),
    Param("description", "the system in one sentence", str, ""),
    Param("sources", "where the figures come from, one entry per source", list, []),
    Param("topology", "the interconnect's shape and links: a kind and its keys (see 'ppt describe KIND')", dict),
    Param("network", "the network's NICs, packets, routing and buffers (see 'ppt describe network')", dict),
    Param("mpi", "the MPI library's protocol switch and overheads (see 'ppt describe mpi')", dict, {}),
    Param("node", "the nodes' processor and cores (see 'ppt describe node')", dict),
    Param("calibration", "how 'ppt calibrate' measured a generated preset (see 'ppt describe calibration')", dict,
          None))
REQUIRED_SECTIONS = tuple(param.name for param in PRESET_PARAMS if param.default == REQUIRED)


def sections() -> dict[str, tuple[str, tuple[Param, ...]]]:
    """Every section of a preset but the topology (its kind declares its keys): a one-line summary and
    its declared keys, by dotted name (``preset`` for the top level)."""
    from ppt.interconnects.networks.packetizer import PACKET_PARAMS
    from ppt.interconnects.networks.settings import NetworkSettings
    return {"preset": ("a system preset's top level: name, sources and sections", PRESET_PARAMS),
            "network": ("NICs, routing, buffers, failures, rails, classes, congestion",
                        NetworkSettings.params()),
            "network.packet": ("the packet format: header, payload, rounding, responses", PACKET_PARAMS),
            "mpi": ("MPI library: eager limit, software overheads, NCCL-style cuts",
                    MPI_PARAMS),
            "node": ("the nodes: processor model and cores", NODE_PARAMS),
            "calibration": ("how 'ppt calibrate' measured a preset (the model reads none)",
                            CALIBRATION_PARAMS)}


def section_of(preset: dict, name: str):
    """Section ``name`` (dotted; ``preset`` is the top level) of ``preset``, {} where it is absent."""
    section = preset
    for part in name.split(".") if name != "preset" else ():
        section = section.get(part, {}) if isinstance(section, dict) else {}
    return section


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
    """ConfigError naming the first key of a system preset that no component declares (misspelled or
    misplaced), and its section; the topology section's keys are those its kind declares."""
    from ppt.interconnects.topologies.registry import kind_keys
    declared = {name: names(params) for name, (_, params) in sections().items()}
    topology = preset.get("topology")
    kind = topology.get("kind") if isinstance(topology, dict) else None
    keys = kind_keys(kind) if isinstance(kind, str) else None
    if keys is not None:                         # an unknown kind: the topology builder names it
        declared["topology"] = keys
    home = {key: key if name == "preset" else f"{name}.{key}" for name, keys in declared.items() for key in keys}
    for name, keys in declared.items():
        reject_unknown(section_of(preset, name), name, keys, home)


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
            close = closest(part, [k for k, v in node.items() if isinstance(v, dict)])
            hint = f"; did you mean {close[0]}?" if close else ""
            raise ConfigError(f"--set {key}: {part!r} is not a section of this preset{hint}")
        node = child
    if isinstance(node.get(leaf), dict) and node[leaf] and not isinstance(value, dict):
        fields = ", ".join(sorted(node[leaf])[:4])
        raise ConfigError(f"--set {key}={raw}: {key} is a section of this preset, not a value; set one of its "
                          f"fields, e.g. {key}.{sorted(node[leaf])[0]}=... (its fields include {fields})")
    node[leaf] = value

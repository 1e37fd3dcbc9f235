"""Where a result came from: the ``provenance`` object of every ``--json`` result.

Every command's JSON result (and every row of a sweep) carries::

    "provenance": {"version": "0.1.0",          # PPT's version
                   "system": "edison",          # the preset's name (null: the command has no system)
                   "preset_sha256": "...",      # SHA-256 of the preset as the run used it
                   "network": "packet",         # network kind that ran (packet, flow, analytic, ideal)
                   "routing": "min",            # routing asked for (the preset's, --set or --routing)
                   "seed": 0,
                   "command": "ppt run ...",    # the command line (shell-quoted)
                   "wall_s": 1.23}              # wall time from start to result

``preset_sha256`` hashes the preset after ``--set`` and ``--fail-*``, with its
processor preset's content in place of the processor's name, so an edited
preset file or processor file changes it.  ``wall_s`` is the only field that
varies between identical runs: compare two results with :func:`comparable`.
It sits in one object, not among the result's own keys, so it never clashes
with them (``ppt run`` has its own ``network`` statistics, ``ppt sweep`` its
``command``).
"""
from __future__ import annotations

import functools
import hashlib
import json
import shlex
import sys
import time

#: The ``provenance`` fields, in the documented order.
FIELDS = ("version", "system", "preset_sha256", "network", "routing", "seed", "command", "wall_s")

_state: dict = {"started": time.perf_counter(), "command": None, "machine": None}


@functools.lru_cache(maxsize=None)
def version() -> str:
    """PPT's version: the installed distribution's (from setup.cfg), else setup.cfg's in a source tree."""
    from importlib import metadata
    try:
        return metadata.version("ppt-sim")
    except metadata.PackageNotFoundError:
        pass
    import configparser
    from pathlib import Path
    cfg = configparser.ConfigParser()
    cfg.read(Path(__file__).resolve().parent.parent / "setup.cfg")
    return cfg.get("metadata", "version", fallback="0+unknown")


def start(argv) -> None:
    """Mark the start of a command: its wall clock starts now and ``argv`` is its command line."""
    _state.update(started=time.perf_counter(), command=["ppt", *argv], machine=None)


def note_machine(preset: dict, network_kind: str, seed: int, routing: str | None = None) -> None:
    """Record the machine a command built (the last one built is the one that ran): its preset, network
    kind, seed and ``routing`` (by default, the one the preset's network settings name)."""
    if routing is None:
        from ppt.interconnects.networks.settings import NetworkSettings
        routing = NetworkSettings.from_preset(preset).routing
    _state["machine"] = {"preset": preset, "preset_sha256": preset_sha256(preset), "network": network_kind,
                         "seed": seed, "routing": routing}


def forget_machine() -> None:
    """Forget the machines built so far (a sweep checks its points' machines, then runs none itself)."""
    _state["machine"] = None


def preset_sha256(preset: dict) -> str:
    """SHA-256 of ``preset`` as canonical JSON, its processor (a name or file) replaced by its content."""
    resolved = dict(preset)
    node = preset.get("node")
    if isinstance(node, dict) and isinstance(node.get("processor"), str):
        try:
            from ppt.hardware.presets import read_processor_config
            resolved["node"] = {**node, "processor": read_processor_config(node["processor"])}
        except Exception:            # an unreadable processor fails the run itself, in its own words
            pass
    text = json.dumps(resolved, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def provenance(args=None) -> dict:
    """The ``provenance`` object of a result of the command run with ``args``."""
    machine = _state["machine"]
    preset = machine["preset"] if machine else None
    asked = getattr(args, "network", None)
    network = asked if isinstance(asked, str) and asked != "auto" else (machine["network"] if machine else None)
    routing = getattr(args, "routing", None)
    if routing is None and machine is not None:
        routing = machine["routing"]
    seed = machine["seed"] if machine else getattr(args, "seed", None)
    command = _state["command"] if _state["command"] is not None else ["ppt", *sys.argv[1:]]
    return {"version": version(), "system": preset.get("name") if preset else getattr(args, "system", None),
            "preset_sha256": machine["preset_sha256"] if machine else None, "network": network,
            "routing": routing, "seed": seed, "command": shlex.join(map(str, command)),
            "wall_s": time.perf_counter() - _state["started"]}


def comparable(text: str, *drop: str) -> str:
    """A JSON result's text without ``provenance.wall_s`` (and the other provenance fields named in
    ``drop``): two identical runs give equal text."""
    result = json.loads(text)
    for key in ("wall_s", *drop):
        result.get("provenance", {}).pop(key, None)
    return json.dumps(result, sort_keys=True)

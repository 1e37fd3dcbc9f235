"""Every component that declares preset keys, by name, and a preset's values against the declarations.

A component is a topology kind (its ``topology`` section's keys) or a preset
section (``network``, ``mpi``, ...); its keys are the
:class:`~ppt.params.Param` declarations it reads its section with, so what
``ppt describe`` shows is what the model reads.
"""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Component:
    name: str
    #: "topology" (a kind of the topology section) or "section".
    kind: str
    summary: str
    params: tuple
    #: The routings a topology kind registers (empty for a section).
    routings: tuple = ()


def components() -> dict[str, Component]:
    """Every topology kind, then every preset section, by name."""
    from ppt.hardware.systems import sections
    from ppt.interconnects.topologies.registry import TOPOLOGIES, load_all
    load_all()
    found = {kind: Component(kind, "topology", cls.tagline, cls.params, tuple(sorted(cls.routings)))
             for kind, cls in sorted(TOPOLOGIES.items())}
    found.update({name: Component(name, "section", summary, params)
                  for name, (summary, params) in sections().items()})
    return found


def preset_sections(preset: dict, every: dict[str, Component]) -> dict[str, Component]:
    """The components whose keys ``preset`` holds, by section name: its topology kind's and every
    section's but the top level (and calibration where it has none)."""
    kind = preset["topology"].get("kind") if isinstance(preset.get("topology"), dict) else None
    found = {"topology": every[kind]} if kind in every and every[kind].kind == "topology" else {}
    found.update({c.name: c for c in every.values() if c.kind == "section" and c.name != "preset"
                  and (c.name != "calibration" or "calibration" in preset)})
    return found


def compare(preset: dict) -> dict:
    """Each section of ``preset``: every declared key with the preset's value (where it sets one), the
    default and the numbers (1-based) of the preset's ``sources`` that name the key."""
    from ppt.hardware.systems import section_of
    sources = [str(s) for s in preset.get("sources", [])]
    every = components()
    result = {}
    for name, component in preset_sections(preset, every).items():
        section = section_of(preset, name)
        rows = []
        for param in component.params:
            if f"{name}.{param.name}" in every:
                continue                  # a section of its own (network.packet)
            given = param.name in section
            rows.append({"parameter": param.name, "unit": param.unit, "set": given,
                         "value": section[param.name] if given else None, "default": param.default,
                         "sources": citing(param.name, sources) if given else []})
        result[name] = rows
    return result


def citing(key: str, sources: list[str]) -> list[int]:
    """Numbers (1-based) of the ``sources`` that name ``key`` as a word."""
    word = re.compile(rf"(?<![\w.]){re.escape(key)}(?!\w)")
    return [i for i, text in enumerate(sources, 1) if word.search(text)]

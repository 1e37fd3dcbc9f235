"""``ppt systems``: the built-in system presets."""
from __future__ import annotations

from ppt.cli.output import add_json_flag, emit

HELP = "list the built-in system presets"


def add_arguments(parser) -> None:
    add_json_flag(parser)


def run(args) -> int:
    from ppt.hardware.systems import list_systems, load_system
    systems = []
    for name in list_systems():
        preset = load_system(name)
        systems.append({"name": name, "topology": preset["topology"].get("kind"),
                        "processor": preset["node"].get("processor"),
                        "description": preset.get("description", "")})
    rows = [[s["name"], s["topology"], s["processor"], s["description"]] for s in systems]
    emit(args, {"systems": systems}, ["system", "topology", "processor", "description"], rows)
    return 0

"""``ppt topology``: size and shape of a system's interconnect."""
from __future__ import annotations

from ppt.cli.common import add_system_arguments, load_preset
from ppt.cli.output import emit

HELP = "nodes, routers, links, radix and diameter of a system's interconnect"


def add_arguments(parser) -> None:
    add_system_arguments(parser)


def run(args) -> int:
    from ppt.machine import Machine
    machine = Machine(load_preset(args))
    summary = machine.topology.summary()
    emit(args, summary, title=f"{machine.name}: {machine.topology.kind}")
    return 0

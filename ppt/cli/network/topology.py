"""``ppt topology``: size and shape of a system's interconnect, and what link failures leave of it."""
from __future__ import annotations

from ppt.cli.common import add_failure_arguments, add_system_arguments, load_preset
from ppt.cli.output import emit

HELP = ("nodes, routers, links, radix and diameter of a system's interconnect (and its link failures, traffic "
        "classes and congestion control)")


def add_arguments(parser) -> None:
    add_system_arguments(parser)
    add_failure_arguments(parser)


def run(args) -> int:
    from ppt.machine import Machine
    machine = Machine(load_preset(args))
    topology = machine.topology
    summary = topology.summary()
    settings = machine.network_settings
    if settings.failures.active:
        pairs = topology.unroutable_pairs(topology.routing_spec(settings.routing))
        summary.update({"failures": settings.failures.describe(),
                        "links_failed": len(topology.failed_links),
                        "routing": settings.routing,
                        "unroutable_pairs": len(pairs),
                        "unroutable_examples": [[int(x), int(y)] for x, y in pairs[:5]]})
    if settings.classes.on:             # the packet network's traffic classes and congestion control, when set
        summary["traffic_classes"] = settings.classes.describe()
    if settings.congestion.on:
        summary["congestion_control"] = settings.congestion.describe()
    emit(args, summary, title=f"{machine.name}: {topology.kind}")
    return 0

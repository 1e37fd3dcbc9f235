"""``ppt samples``: the sample traces shipped with ppt (op-stream folders, and some as DUMPI sets ``dumpi/NAME``),
which any trace argument takes as ``sample:NAME``."""
from __future__ import annotations

from ppt.cli.output import add_json_flag, emit

HELP = "list the sample traces shipped with ppt (give one to replay, trace-info or convert as sample:NAME)"


def add_arguments(parser) -> None:
    add_json_flag(parser)


def run(args) -> int:
    from ppt.traces import bundled
    from ppt.traces.formats import open_trace
    samples = []
    for name in bundled.names() + bundled.dumpi_names():
        trace = open_trace(bundled.path(name))
        samples.append({"name": bundled.PREFIX + name, "ranks": trace.num_ranks, "calls": sum(trace.calls().values()),
                        "program": str(bundled.program(name)), "folder": str(bundled.path(name))})
    rows = [[s["name"], s["ranks"], s["calls"], s["program"]] for s in samples]
    emit(args, {"samples": samples}, ["sample", "ranks", "calls", "program (recorded with ppt record)"], rows)
    return 0

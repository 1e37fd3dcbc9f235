"""``ppt trace-info TRACE``: what a trace (any format ppt reads) contains, read without simulating."""
from __future__ import annotations

from ppt.cli.common import TRACE_HELP, add_reader_arguments, reader_options
from ppt.cli.output import add_json_flag, emit

HELP = ("summarize a trace (DUMPI, OTF2, GOAL, Chakra or op-stream): ranks, calls by name, message and "
        "collective bytes, span, compute gaps by the wall and the CPU clock")


def add_arguments(parser) -> None:
    parser.add_argument("trace", metavar="TRACE",
                        help=TRACE_HELP)
    add_reader_arguments(parser)
    add_json_flag(parser)


def run(args) -> int:
    from ppt.traces.info import summarize
    from ppt.traces.formats import open_trace
    info = summarize(open_trace(args.trace, **reader_options(args)))
    collective = info["collective_bytes"]
    title = "\n".join([
        f"trace      {info['trace']}",
        f"ranks      {info['ranks']}",
        f"records    {info['records']}"
        + ("" if info["footer_counts_match"] else "  (differs from the trace footer's counts)"),
        f"span       {info['span_s']:.6f} s",
        f"compute    {info['compute_wall_s']:.6f} s wall-clock, "
        + (f"{info['compute_cpu_s']:.6f} s CPU time" if info["compute_cpu_s"] is not None else "no CPU times")
        + " between calls after MPI_Init, all ranks (CPU/wall "
        + (f"{info['cpu_wall_ratio']:.3f})" if info["cpu_wall_ratio"] is not None else "-)"),
        f"p2p        {info['p2p_messages']} messages, {info['p2p_bytes']} bytes sent, "
        f"{info['p2p_recv_posted_bytes']} bytes posted to receive",
        f"collective {sum(collective.values())} bytes",
        "",
    ])
    rows = [[name, count, collective.get(name, "")] for name, count in info["calls"].items()]
    emit(args, info, headers=["call", "count", "collective bytes"], rows=rows, title=title)
    return 0

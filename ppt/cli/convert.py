"""``ppt convert IN OUT``: write a trace (any format ppt reads) as a GOAL text schedule or an op-stream folder.

``OUT`` ending in ``.goal`` (or any other file name) gets GOAL text
(:mod:`ppt.traces.writers.goal`); ``OUT`` ending in ``.opstream``, or an
existing empty folder, gets PPT's op-stream folder form
(:func:`ppt.traces.opstream.save`).  Either is written beside ``OUT`` and
renamed into place, so ``OUT`` is whole or absent.  One line on stderr says
what was written.
"""
from __future__ import annotations

import os
import sys

from ppt.atomicfile import atomic_output
from ppt.cli.common import TRACE_HELP, add_reader_arguments, positive_number, reader_options
from ppt.errors import ConfigError

HELP = ("convert a trace (DUMPI, OTF2, GOAL, Chakra or op-stream) to a GOAL text schedule (LogGOPSim/ATLAHS) or an "
        "op-stream folder")

CLOCKS = ("auto", "wall", "cpu")


def add_arguments(parser) -> None:
    parser.add_argument("input", metavar="IN", help=TRACE_HELP)
    parser.add_argument("output", metavar="OUT",
                        help="GOAL text file to write (e.g. app.goal), or an op-stream folder (a name ending in "
                             ".opstream, or an existing empty folder)")
    parser.add_argument("--compute-clock", choices=CLOCKS, default="auto",
                        help="GOAL: clock the recorded gaps are read on, as 'ppt replay --compute-clock' (default "
                             "auto)")
    parser.add_argument("--compute-scale", type=positive_number, default=1.0, metavar="F",
                        help="GOAL: multiply the recorded gaps by F (default 1)")
    parser.add_argument("--keep-startup", action="store_true",
                        help="GOAL: keep the time before each rank's MPI_Init ended as calc (default: dropped, as "
                             "replay drops it)")
    parser.add_argument("--skip-unsupported", action="store_true",
                        help="leave out calls replay does not support instead of refusing the trace")
    add_reader_arguments(parser)


def _is_folder_output(path: str) -> bool:
    if path.rstrip("/\\").endswith(".opstream"):
        return True
    return os.path.isdir(path) and not os.listdir(path)


def run(args) -> int:
    from ppt.traces.formats import open_trace
    out = args.output
    trace = open_trace(args.input, **reader_options(args))
    if _is_folder_output(out):
        from ppt.traces import opstream
        opstream.save(trace, out)
        print(f"ppt convert: wrote {out} (op-stream folder, {trace.num_ranks} ranks)", file=sys.stderr)
        return 0
    if os.path.isdir(out):
        raise ConfigError(f"{out} is a folder that is not empty: give a file name for GOAL text (e.g. app.goal), "
                          "or a new or empty folder for the op-stream form")
    from ppt.traces.writers import goal as goal_writer
    parent = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(parent):
        raise ConfigError(f"cannot write {out}: folder {parent} does not exist")
    with atomic_output(out, "output") as tmp, open(tmp, "w", encoding="utf-8") as f:
        stats = goal_writer.write(trace, f, args.compute_clock, compute_scale=args.compute_scale,
                                  keep_startup=args.keep_startup, skip_unsupported=args.skip_unsupported)
    dropped = stats["dropped"]
    left = ("; left out (GOAL cannot say them): " + ", ".join(f"{n} x{c}" for n, c in dropped.items())
            if dropped else "")
    print(f"ppt convert: wrote {out} (GOAL text, {stats['ranks']} ranks, {stats['sends']} sends, "
          f"{stats['recvs']} recvs, {stats['calcs']} calcs on the {stats['compute_clock']} clock){left}",
          file=sys.stderr)
    return 0


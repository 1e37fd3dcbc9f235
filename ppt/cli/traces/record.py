"""``ppt record [-n N] [-o OUT] PROGRAM [ARGS...]``: run an MPI program under the real MPI and keep its calls
as an op-stream folder that ``ppt replay`` predicts on any system.

PROGRAM is a dynamically linked C or C++ MPI executable, or an mpi4py ``.py`` file; it runs under the
``mpiexec`` beside this Python (the mpich wheel's) with ppt's recording library preloaded
(:mod:`ppt.record`).  Its output passes through; one line on stderr says what was written.
"""
from __future__ import annotations

import argparse
import os
import sys

from ppt.cli.common import whole_number

HELP = "run an MPI program (C, C++ or mpi4py) under real MPI and record its calls as an op-stream trace"


def add_arguments(parser) -> None:
    parser.add_argument("-n", dest="ranks", type=whole_number, default=4, metavar="N",
                        help="ranks to run (default 4)")
    parser.add_argument("-o", "--out", default=None, metavar="OUT",
                        help="op-stream folder to write (default: PROGRAM's name and the ranks, e.g. cg_n4)")
    parser.add_argument("program", metavar="PROGRAM", help="the MPI executable, or an mpi4py .py file")
    parser.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="the program's arguments")


def run(args) -> int:
    from ppt.record.run import record
    stem = os.path.splitext(os.path.basename(args.program.rstrip("/")))[0]
    out = args.out or f"{stem}_n{args.ranks}"
    trace = record(args.program, args.args, args.ranks, out)
    calls = trace.calls()
    other = {name: calls[name] for name in calls if not trace.translates(name)}
    left = ("; replay refuses (or, with --skip-unsupported, leaves out) calls the op stream cannot express: "
            + ", ".join(f"{name} x{n}" for name, n in sorted(other.items()))) if other else ""
    print(f"ppt record: wrote {out} (op-stream folder, {trace.num_ranks} ranks, {sum(calls.values())} calls)"
          f"{left}", file=sys.stderr)
    return 0

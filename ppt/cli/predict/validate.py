"""``ppt validate PROGRAM.py [ARGS...] -n N``: a program run for real under ``mpiexec`` against ``ppt exec``'s prediction.

The program runs ``--repeats`` times under the real ``mpiexec -n N`` of this
install and as often under ``ppt exec ... --system host`` (by default the
preset ``ppt calibrate`` wrote), alternating (:mod:`ppt.exec.validation.validate`).  The
table gives the real minimum and median, the median prediction, the error of
the prediction against the real minimum, the mean number of other processes
that wanted a core during the fastest real run, and the largest CPU time of a
real rank; a busy host is a one-line warning.  ppt's options may come before
the program or after its arguments; ``--`` ends ppt's options.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ppt.cli.common import count, positive_number, read_system, seconds, whole_number
from ppt.cli.predict.exec import late_options
from ppt.cli.output import add_json_flag, emit, paragraph
from ppt.errors import PPTError

#: Columns of the printed table.
WIDTH = 80

HELP = "run an mpi4py program for real under mpiexec and under 'ppt exec', and compare the times"


def add_options(parser) -> None:
    """ppt's options of ``validate`` (they may also follow the program's arguments)."""
    parser.add_argument("-n", "--ranks", type=whole_number, default=None, metavar="N",
                        help="number of MPI ranks, as mpiexec -n")
    parser.add_argument("--repeats", type=whole_number, default=3, metavar="R",
                        help="real runs and predictions, alternating (default 3)")
    parser.add_argument("--system", default="host", metavar="SYSTEM",
                        help="preset of the predictions (default host, written by 'ppt calibrate')")
    parser.add_argument("--seed", type=count, default=0, help="random seed of the predictions (default 0)")
    parser.add_argument("--timeout", type=positive_number, default=300.0, metavar="S",
                        help="seconds a real run or a prediction may take before it is stopped (default 300)")
    parser.add_argument("--quiet-wait", type=seconds, default=5.0, metavar="S",
                        help="before each real run, wait up to S seconds for other processes to leave the "
                             "run's cores free (default 5; 0: do not wait)")
    add_json_flag(parser)


def add_arguments(parser) -> None:
    add_options(parser)
    parser.add_argument("command", metavar="PROGRAM.py [ARGS...]", nargs=argparse.REMAINDER,
                        help="the mpi4py program and its arguments (ppt's options may follow; '--' ends them)")


def run(args) -> int:
    from ppt import provenance
    from ppt.exec.validation import validate
    from ppt.hardware.mpirun import find_mpiexec
    program_args = late_options(args, add_options, "ppt validate")
    if args.program is None or args.ranks is None:
        raise PPTError("give PROGRAM.py and -n N, e.g. 'ppt validate prog.py -n 2' (see 'ppt validate --help')")
    if not Path(args.program).is_file():
        raise PPTError(f"{args.program}: no such file")
    provenance.note_machine(read_system(args.system), None, args.seed)
    mpiexec = find_mpiexec()
    say = None if os.environ.get("PPT_QUIET") else _say
    row = validate.measure(args.program, program_args, args.ranks, args.repeats, args.system, args.seed,
                           args.timeout, args.quiet_wait, mpiexec, say)
    warnings = validate.warnings(row)
    for text in warnings:
        print(f"validate: warning: {text}", file=sys.stderr)
    result = {"version": provenance.version(), "system": args.system, "seed": args.seed, "command": "validate",
              "mpiexec": mpiexec, "repeats": args.repeats, "warnings": warnings, **row}
    table = [[row["ranks"], row["real_min_s"], row["real_median_s"], row["predicted_median_s"],
              round(row["error_pct"], 1), round(row["other_runnable_of_min"], 2), row["real_cpu_min_s"]]]
    title = paragraph(f"{' '.join([Path(args.program).name, *program_args])}: {args.repeats} real run(s) under "
                      f"'{Path(mpiexec).name} -n {args.ranks}' against 'ppt exec --system {args.system}'", WIDTH)
    emit(args, result, ["ranks", "real_min_s", "real_median_s", "predicted_s", "error_%", "others_running",
                        "real_cpu_s"], table, title=None if args.json else title, width=WIDTH)
    return 0


def _say(text: str) -> None:
    print(f"validate: {text}", file=sys.stderr, flush=True)

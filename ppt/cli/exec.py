"""``ppt exec PROGRAM.py [ARGS...] -n N --system NAME``: run an unmodified mpi4py program on a simulated system.

Every rank runs the program as ``__main__``; ``from mpi4py import MPI`` gets
PPT's simulated MPI (see :mod:`ppt.exec`).  ppt's own options may come
before the program or after its arguments; ``--`` ends ppt's options, and
everything after it goes to the program.  Each line a rank prints appears as
``[R] line`` (as ``mpiexec -prepend-rank``), on stdout, or on stderr with
``--json`` so that stdout holds the JSON alone; ``--output-dir`` keeps each
rank's output in files instead.  Exit status as under mpiexec: a rank that
raises stops every rank (its traceback shows the program's own frames) and
the run exits with 1; ``sys.exit(N)`` and ``MPI_Abort(N)`` exit with N.
"""
from __future__ import annotations

import argparse
import os
import sys

from ppt.cli.common import (add_job_arguments, add_network_argument, add_system_arguments, is_leader,
                            load_preset, report_placement, whole_number)
from ppt.errors import PPTError

HELP = "run an unmodified mpi4py program with N simulated ranks on a simulated system"


def add_options(parser) -> None:
    """ppt's options of ``exec`` (they may also follow the program's arguments, so none is required here)."""
    add_system_arguments(parser, positional=False)
    for action in parser._actions:
        if action.dest == "system":
            action.required = False
    parser.add_argument("-n", "--ranks", type=whole_number, default=None, metavar="N",
                        help="number of MPI ranks, as mpiexec -n")
    add_job_arguments(parser)
    add_network_argument(parser)
    parser.add_argument("--algorithm", action="append", default=[], metavar="COLLECTIVE=NAME",
                        help="collective algorithm, e.g. allreduce=ring (repeatable)")
    parser.add_argument("--compute", default="measured", choices=["measured", "none"],
                        help="compute time between MPI calls: measured (default; the CPU time the rank's own "
                             "code uses on this host, times --compute-scale) or none (only ppt.hint.compute "
                             "annotations)")
    parser.add_argument("--compute-scale", type=float, default=1.0, metavar="F",
                        help="simulated seconds per second of this host's CPU time: this host's speed against "
                             "the target processor's (2: the target is twice as slow; default 1)")
    parser.add_argument("--output-dir", default=None, metavar="DIR",
                        help="write each rank's output to DIR/rank.R.out and DIR/rank.R.err instead of "
                             "tagging its lines")


def add_arguments(parser) -> None:
    add_options(parser)
    parser.add_argument("command", metavar="PROGRAM.py [ARGS...]", nargs=argparse.REMAINDER,
                        help="the mpi4py program and its arguments (ppt's options may follow; '--' ends them)")


def _late_options(args) -> list[str]:
    """Read ppt's options given after PROGRAM.py into ``args`` (and ``args.program``); returns the
    program's own arguments."""
    from ppt.cli.main import _Parser
    tokens = list(args.command)
    if tokens[:1] == ["--"]:
        tokens.pop(0)
    args.program = tokens.pop(0) if tokens else None
    rest: list[str] = []
    if "--" in tokens:
        cut = tokens.index("--")
        tokens, rest = tokens[:cut], tokens[cut + 1:]
    late = _Parser(prog="ppt exec", add_help=False, allow_abbrev=False)
    add_options(late)
    _, program_args = late.parse_known_args(tokens, namespace=args)
    return program_args + rest


def run(args) -> int:
    from ppt.cli.run import algorithms, report
    from ppt.exec.program import ProgramExit, ProgramFailed
    from ppt.exec.runner import ExecOptions, exec_program
    from ppt.machine import Machine
    from ppt.mpi import MPIJob
    from ppt.mpi.errors import AbortCalled
    from ppt.progress import Progress
    program_args = _late_options(args)
    if args.program is None or args.ranks is None or args.system is None:
        raise PPTError("give PROGRAM.py, -n N and --system NAME, e.g. "
                       "'ppt exec prog.py -n 4 --system edison' (see 'ppt exec --help')")
    options = ExecOptions(args.program, tuple(program_args), args.compute, args.compute_scale, args.output_dir,
                          "stderr" if args.json else "stdout")
    machine = Machine(load_preset(args), network_kind=args.network, seed=args.seed)
    job = MPIJob.on_machine(machine, args.ranks, args.ranks_per_node, args.mapping, args.seed,
                            algorithms(args.algorithm))
    progress = Progress(f"exec {args.system}", ranks=True, watch_stalls=True) if is_leader() else None
    try:
        result = exec_program(job, options, progress)
    except ProgramFailed as exc:
        for line in exc.traceback_lines:
            print(f"[{exc.rank}] {line}", file=sys.stderr)
        return _stop(f"ppt: error: {exc}", 1)
    except (ProgramExit, AbortCalled) as exc:
        return _stop(f"ppt: error: {exc}", exc.status if isinstance(exc, ProgramExit) else exc.errorcode)
    except PPTError as exc:
        return _stop(f"ppt: error: {exc}", 2)
    if progress is not None:
        progress.done()
    if not is_leader():
        return 0
    report_placement(job, machine)
    report(args, machine, result, {"program": args.program, "program_args": program_args,
                                   "compute": args.compute, "compute_scale": args.compute_scale})
    return 0


def _stop(message: str, status: int) -> int:
    """End the process as mpiexec ends a failed job: the stopped ranks' code never runs again."""
    print(message, file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)

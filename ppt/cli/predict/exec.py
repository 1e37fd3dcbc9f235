"""``ppt exec PROGRAM.py [ARGS...] -n N --system NAME``: run an unmodified mpi4py program on a simulated system.

Every rank runs the program as ``__main__``; ``from mpi4py import MPI`` gets
PPT's simulated MPI (see :mod:`ppt.exec`).  ppt's own options may come
before the program or after its arguments; ``--`` ends ppt's options, and
everything after it goes to the program.

Output as under ``mpiexec``: what ranks print on stdout comes out on stdout,
on stderr on stderr, unprefixed (``--prepend-rank``: ``[R] `` as MPICH's
``-prepend-rank``), or in files of each rank with ``--output-dir``.  PPT's
summary goes to stderr (``--summary FILE``: to a file), or as JSON to stdout
under ``--json``, the ranks' stdout then going to stderr.  Exit status as
mpiexec's: the bitwise OR of the ranks' statuses (a rank that raises prints
its traceback and exits with 1, ``sys.exit(N)`` with N); ``MPI_Abort(N)``
stops every rank with N.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys

from ppt.cli.common import (add_job_arguments, add_network_argument, add_system_arguments, is_leader,
                            load_preset, placement_notes, whole_number)
from ppt.cli.predict.run import add_algorithm_argument
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
    add_algorithm_argument(parser)
    parser.add_argument("--compute", default="measured", choices=["measured", "none"],
                        help="compute time between MPI calls: measured (default; the CPU time the rank's own "
                             "code uses on this host, times --compute-scale) or none (only ppt.hint.compute "
                             "annotations)")
    parser.add_argument("--compute-scale", type=float, default=1.0, metavar="F",
                        help="simulated seconds per second of this host's CPU time: this host's speed against "
                             "the target processor's (2: the target is twice as slow; default 1)")
    parser.add_argument("--output-dir", default=None, metavar="DIR",
                        help="write each rank's stdout to DIR/rank.R.out and its stderr to DIR/rank.R.err "
                             "(as mpiexec -outfile-pattern DIR/rank.%%r.out -errfile-pattern DIR/rank.%%r.err)")
    parser.add_argument("--prepend-rank", action="store_true",
                        help="prefix each line a rank prints with [R] (as MPICH's mpiexec -prepend-rank)")
    parser.add_argument("--summary", default=None, metavar="FILE",
                        help="write PPT's summary of the run to FILE (default: stderr, or stdout under --json)")


def add_arguments(parser) -> None:
    add_options(parser)
    parser.add_argument("command", metavar="PROGRAM.py [ARGS...]", nargs=argparse.REMAINDER,
                        help="the mpi4py program and its arguments (ppt's options may follow; '--' ends them)")


def late_options(args, add_options, prog: str) -> list[str]:
    """Read the options ``add_options`` declares that follow ``PROGRAM`` in ``args.command`` (a command
    line ``PROGRAM [ARGS...] [OPTIONS]``; ``--`` ends the options) into ``args``, and ``PROGRAM`` into
    ``args.program`` (None if absent); returns the program's own arguments."""
    from ppt.cli.parser import Parser
    tokens = list(args.command)
    if tokens[:1] == ["--"]:
        tokens.pop(0)
    args.program = tokens.pop(0) if tokens else None
    rest: list[str] = []
    if "--" in tokens:
        cut = tokens.index("--")
        tokens, rest = tokens[:cut], tokens[cut + 1:]
    late = Parser(prog=prog, add_help=False, allow_abbrev=False)
    add_options(late)
    _, program_args = late.parse_known_args(tokens, namespace=args)
    return program_args + rest


def _late_options(args) -> list[str]:
    """Read ppt's options given after PROGRAM.py into ``args`` (and ``args.program``); returns the
    program's own arguments."""
    return late_options(args, add_options, "ppt exec")


def run(args) -> int:
    from ppt.cli.output import paragraph
    from ppt.cli.predict.run import algorithms, report
    from ppt.exec.program import ProgramExit
    from ppt.exec.runner import ExecOptions, exec_program
    from ppt.machine import Machine
    from ppt.mpi import MPIJob
    from ppt.mpi.errors import AbortCalled
    from ppt.progress import Progress, closed_on_failure
    program_args = _late_options(args)
    if args.program is None or args.ranks is None or args.system is None:
        raise PPTError("give PROGRAM.py, -n N and --system NAME, e.g. "
                       "'ppt exec prog.py -n 4 --system edison' (see 'ppt exec --help')")
    options = ExecOptions(args.program, tuple(program_args), args.compute, args.compute_scale, args.output_dir,
                          args.prepend_rank, "stderr" if args.json and args.summary is None else "stdout")
    machine = Machine(load_preset(args), network_kind=args.network, seed=args.seed)
    job = MPIJob.on_machine(machine, args.ranks, args.ranks_per_node, args.mapping, args.seed,
                            algorithms(args.algorithm))
    summary = _summary_stream(args) if is_leader() else None
    progress = Progress(f"exec {args.system}", ranks=True, watch_stalls=True) if is_leader() else None
    try:
        with closed_on_failure(progress):
            outcome = exec_program(job, options, progress)
    except ProgramExit as exc:
        return _stop(f"ppt: error: {exc}", exc.status)
    except AbortCalled as exc:
        return _stop(exc.mpich_message(), exc.errorcode)
    except PPTError as exc:
        return _stop(f"ppt: error: {exc}", 2)
    if progress is not None:
        progress.done()
    if summary is None:
        return outcome.status
    extra = {"program": args.program, "program_args": program_args, "compute": args.compute,
             "compute_scale": args.compute_scale, **outcome.summary()}
    with summary as stream, contextlib.redirect_stdout(stream):
        if not args.json:
            for line in placement_notes(job, machine):
                print(paragraph(line))
        report(args, machine, outcome.result, extra)
    return outcome.status


def _summary_stream(args):
    """Where PPT's summary goes: ``--summary FILE`` (checked before the run), stdout under ``--json``, else
    stderr; a stream to close after writing (the standard ones stay open)."""
    if args.summary is not None:
        try:
            return open(args.summary, "w", encoding="utf-8")
        except OSError as exc:
            raise PPTError(f"--summary {args.summary}: cannot write it ({exc.strerror}); "
                           "choose a writable file") from None
    return contextlib.nullcontext(sys.stdout if args.json else sys.stderr)


def _stop(message: str, status: int) -> int:
    """End the process as mpiexec ends a failed job: the stopped ranks' code never runs again."""
    print(message, file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)

"""The ``ppt`` command: one subcommand per module listed in COMMANDS.

Each subcommand module defines ``HELP`` (one line), ``add_arguments(parser)``
and ``run(args) -> int``.  A :class:`~ppt.errors.PPTError` raised anywhere is
printed as one line on stderr with exit status 2, never as a traceback.
"""
from __future__ import annotations

import argparse
import importlib
import os
import re
import sys

#: One simulation runs per process, single-threaded: BLAS threads (numpy's, used while building some
#: topologies) would only spin beside it and beside the other processes of a sweep.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from ppt.engine.parallel import launched_rank
from ppt.cli.common import check_dpi
from ppt.errors import PPTError
from ppt.log import to_stderr

COMMANDS = ["systems", "describe", "topology", "bench", "run", "exec", "pingpong", "latency_survey",
            "traffic", "snap", "app", "replay", "record", "samples", "trace_info", "convert", "sweep", "scale", "plot", "calibrate",
            "validate"]


#: A value that starts with a minus sign: a number (``-1``, ``-1e-6``, ``-inf``), a share (``-5%``) or a
#: list of them (``-0.1,0.5``).
_NUMBER = r"(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?%?"
NEGATIVE_VALUE = re.compile(rf"^-{_NUMBER}(,-?{_NUMBER})*$|^-(inf|nan)$", re.I)


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error instead of usage + error, and negative numbers (``-1``, ``-1e-6``)
    read as values, so an option's own check rejects them in words."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = NEGATIVE_VALUE

    def error(self, message):
        raise PPTError(f"{message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ppt", description="PPT: performance prediction of MPI applications "
                     "on packet-level models of supercomputer interconnects.")
    from ppt.provenance import version
    parser.add_argument("--version", action="version", version=f"ppt {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        module = importlib.import_module(f"ppt.cli.{name}")
        cmd = sub.add_parser(name.replace("_", "-"), help=module.HELP, description=module.HELP)
        module.add_arguments(cmd)
        cmd.set_defaults(_run=module.run)
    return parser


def main(argv=None) -> int:
    if launched_rank() > 0:           # under mpiexec only simulation rank 0 prints
        sys.stdout = open(os.devnull, "w")
        sys.stderr = open(os.devnull, "w")
    to_stderr()                       # the ppt logger's notes and warnings, as bare lines on stderr
    from ppt import provenance
    provenance.start(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(argv)
        if not getattr(args, "_run", None):
            raise PPTError("no command given (see 'ppt --help')")
        check_dpi(args)
        status = args._run(args) or 0
        sys.stdout.flush()             # a reader that went away shows here, not at exit
        return status
    except BrokenPipeError:            # 'ppt ... | head': the reader has what it wanted
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, sys.stdout.fileno())   # nothing left to flush at exit, so no second error
        return 141                     # as a process ended by SIGPIPE
    except PPTError as exc:
        print(f"ppt: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ppt: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

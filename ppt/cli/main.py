"""The ``ppt`` command: its command line parsed (:mod:`ppt.cli.parser`) and the command run.

A :class:`~ppt.errors.PPTError` raised anywhere is printed as one line on
stderr with exit status 2, never as a traceback.
"""
from __future__ import annotations

import os
import sys

#: One simulation runs per process, single-threaded: BLAS threads (numpy's, used while building some
#: topologies) would only spin beside it and beside the other processes of a sweep.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from ppt.engine.parallel import launched_rank
from ppt.cli.common import check_dpi
from ppt.cli.parser import build_parser
from ppt.errors import PPTError
from ppt.log import to_stderr


def main(argv=None) -> int:
    if launched_rank() > 0:           # under mpiexec only simulation rank 0 prints
        sys.stdout = open(os.devnull, "w")
        sys.stderr = open(os.devnull, "w")
    to_stderr()                       # the ppt logger's notes and warnings, as bare lines on stderr
    from ppt import provenance
    line = sys.argv[1:] if argv is None else list(argv)
    provenance.start(line)
    try:
        args = build_parser(line).parse_args(line)
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

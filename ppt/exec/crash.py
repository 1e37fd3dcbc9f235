"""A rank that ends the whole process: ``os._exit`` in a rank, or a crash of the interpreter.

Under ``mpiexec`` such a rank is one process ending; the other ranks' output up to then stays on the
terminal and mpiexec ends the job with the rank's status.  Under ``ppt exec`` every rank is in one process,
so either would end them all without a word.  :func:`watching` makes each ends as it does under mpiexec
and says which rank did it: the relayed output is written through as the ranks print it (so a crash
loses none of it), ``os._exit(status)`` in a rank prints one line naming the rank, its status and the MPI
call it was in or made last, then ends the process with that status, and a fatal signal (a fault in a C
extension a rank called: SIGSEGV, SIGBUS, SIGILL, SIGFPE) prints the same line from the compiled surface's
handler (:func:`ppt.mpi.surface.core.fast.watch_crashes`) before the signal's default action.
"""
from __future__ import annotations

import contextlib
import os

from ppt.mpi.surface.core import fast


def _line_buffered(stream) -> bool | None:
    """Make ``stream`` write each line through; its previous setting, None if it cannot be changed."""
    if not hasattr(stream, "reconfigure") or not hasattr(stream, "line_buffering"):
        return None
    previous = stream.line_buffering
    stream.reconfigure(line_buffering=True)
    return previous


@contextlib.contextmanager
def watching(os_view, out, err):
    """While a program runs: ``os_view._exit`` ends the process as its rank would (a line on ``err`` first),
    fatal signals are reported, and ``out`` and ``err`` (the real streams the ranks' lines go to) are
    line-buffered."""
    def _exit(status: int) -> None:
        rank, call = fast.noted()
        where = f"in or after {call}" if call else "before its first MPI call"
        out.flush()
        err.write(f"ppt exec: rank {rank} ended the process with os._exit({status}) {where}; "
                  "the ranks' output so far is above\n")
        err.flush()
        os._exit(status)

    buffering = [(stream, _line_buffered(stream)) for stream in (out, err)]
    os_view._exit = _exit
    fast.watch_crashes(True)
    try:
        yield
    finally:
        fast.watch_crashes(False)
        for stream, previous in buffering:
            if previous is not None:
                stream.reconfigure(line_buffering=previous)

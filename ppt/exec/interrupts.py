"""Ctrl-C on ``ppt exec`` against a KeyboardInterrupt the program raises.

Python turns SIGINT into a KeyboardInterrupt wherever the process is, which
under ``ppt exec`` is often a rank's code; a program may also raise
KeyboardInterrupt itself.  The first stops PPT; the second ends that rank as
it ends a process under ``mpiexec``.  While a program runs,
:func:`user_interrupts` makes SIGINT raise :class:`UserInterrupt`, which a
rank's run lets through.
"""
from __future__ import annotations

import contextlib
import signal
import threading

#: Exit status MPICH's mpiexec gives a rank that ended by an uncaught KeyboardInterrupt: Python ends its
#: process by SIGINT then, and hydra reports the signal's number.
KEYBOARD_INTERRUPT_STATUS = int(signal.SIGINT)


class UserInterrupt(KeyboardInterrupt):
    """SIGINT received while a program runs: the user stops ``ppt exec``."""


def _raise(_signum, _frame):
    raise UserInterrupt


@contextlib.contextmanager
def user_interrupts():
    """While the block runs, SIGINT raises :class:`UserInterrupt` (if Python's own handler was in place:
    a parallel run's handler, :func:`ppt.engine.parallel.guard_interrupts`, is kept)."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    signal.signal(signal.SIGINT, _raise)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)

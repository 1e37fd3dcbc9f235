"""Which simulated rank of ``ppt exec`` is running: a registry keyed by the rank's greenlet.

Shared by the output streams, the ``__main__`` stand-in that pickle looks
classes up in, and :mod:`ppt.hint`; empty outside ``ppt exec``.
"""
from __future__ import annotations

from greenlet import getcurrent

#: greenlet -> the :class:`~ppt.exec.program.RankRun` running in it.
RUNS: dict = {}


def current_run():
    """The rank run in the calling greenlet, or None outside a rank of ``ppt exec``."""
    return RUNS.get(getcurrent()) if RUNS else None

"""The ``sys`` module as a rank's program sees it: its own ``argv``, ``stdout`` and ``stderr``.

A rank's ``import sys`` (in the program and the modules of its folder) gives
a view whose ``argv`` is a list of the rank's own, and on which assigning
``sys.stdout`` or ``sys.stderr`` redirects that rank's output alone
(:class:`~ppt.exec.streams.RankStream` asks the view); every other name is
the real ``sys``'s.  Modules the program does not own see the real ``sys``:
``contextlib.redirect_stdout`` and argparse's default arguments
(``sys.argv`` as the run began) are the process's.
"""
from __future__ import annotations

import sys
import types

#: The stream attributes a rank may assign on its view, by RankStream.which (0: stdout, 1: stderr).
STREAMS = ("stdout", "stderr")


def sys_view(argv) -> types.ModuleType:
    """A rank's ``sys``: its own copy of ``argv``, the rest read from the real module when asked for."""
    view = types.ModuleType("sys", sys.__doc__)
    view.argv = list(argv)

    def __getattr__(name):
        return getattr(sys, name)
    view.__getattr__ = __getattr__
    return view


def own_stream(view: types.ModuleType, which: int, rank_stream):
    """The stream the rank assigned to its ``sys.stdout`` (``which`` 0) or ``sys.stderr`` (1), or None if it
    assigned none (or gave back ``rank_stream``, the one every rank shares)."""
    own = view.__dict__.get(STREAMS[which])
    return None if own is None or own is rank_stream else own

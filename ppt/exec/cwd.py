"""Each rank's working directory: ``os.chdir`` in a rank moves that rank alone, as in its own process.

A rank's ``import os`` (in the program and the modules of its folder) gives a
view of ``os`` whose ``chdir`` changes the process's directory and records it
as the rank's (:class:`Cwds`).  From a rank's first ``chdir`` on, a greenlet
trace puts the process in the directory of whichever rank runs, and back in
PPT's own between ranks, so relative paths (``open("out.txt")``) resolve
against the running rank's directory.  Until a rank calls ``chdir`` no trace
is set, and switching between ranks costs nothing more.  Directory changes
made by modules the program does not own (``shutil``, other packages calling
``os.chdir`` themselves) are the process's, not the rank's.
"""
from __future__ import annotations

import os
import types

import greenlet

from ppt.exec.current import RUNS


class Cwds:
    """The working directories of one ``ppt exec`` run's ranks (by greenlet); PPT's own is ``base``."""

    def __init__(self):
        self.base = os.getcwd()
        self.current = self.base
        self.of: dict = {}
        self.tracing = False
        self.previous = None

    def chdir(self, path) -> None:
        """A rank's ``os.chdir(path)``: the process moves there now, and whenever the rank runs again."""
        os.chdir(path)
        self.current = os.getcwd()
        self.of[greenlet.getcurrent()] = self.current
        if not self.tracing:
            self.previous = greenlet.settrace(self.switched)
            self.tracing = True

    def switched(self, event: str, args) -> None:
        """greenlet's trace: on a switch, into the directory of the rank switched to (PPT's for any other)."""
        if event in ("switch", "throw"):
            target = args[1]
            wanted = self.of.get(target, self.base) if target in RUNS else self.base
            if wanted != self.current:
                os.chdir(wanted)
                self.current = wanted
        if self.previous is not None:
            self.previous(event, args)

    def close(self) -> None:
        """Stop following the ranks and go back to PPT's directory."""
        if self.tracing:
            greenlet.settrace(self.previous)
            self.tracing = False
        if self.current != self.base:
            os.chdir(self.base)
            self.current = self.base

    def os_view(self) -> types.ModuleType:
        """The ``os`` module as a rank's program sees it: its ``chdir`` is the rank's."""
        view = types.ModuleType("os", os.__doc__)
        view.__dict__.update({k: v for k, v in vars(os).items() if k not in ("__name__", "__doc__")})
        view.chdir = self.chdir
        return view

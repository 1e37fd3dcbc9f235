"""The ``mpi4py`` package a rank of ``ppt exec`` imports: its ``MPI`` is the rank's simulated MPI.

Each rank gets a package object of its own whose ``MPI`` attribute is the
rank's :class:`ppt.mpi.surface.api.MPI`, so ``from mpi4py import MPI``,
``import mpi4py.MPI as MPI`` and ``from mpi4py.MPI import COMM_WORLD`` all
reach it.  ``mpi4py.rc`` takes the usual settings (and ignores them: there is
no library to initialise).  Parts of mpi4py PPT does not model
(``mpi4py.futures``, ``mpi4py.util``, ``mpi4py.run``) fail with one line naming them.
"""
from __future__ import annotations

import types

from ppt.mpi.errors import MPIError

#: The mpi4py release whose API the simulated MPI follows.
VERSION = "4.0.0"

#: Submodules a program may import, by dotted name.
MODULES = ("mpi4py", "mpi4py.MPI")

#: What each unsupported part of mpi4py is, for the error naming it.
UNSUPPORTED = {"futures": "MPIPoolExecutor and friends (dynamic process spawning)",
               "util": "mpi4py.util helpers (pkl5, dtlib, pool, sync)",
               "run": "mpi4py.run", "bench": "mpi4py.bench", "typing": "mpi4py.typing"}


class UnsupportedModule(MPIError, ImportError):
    """A part of mpi4py PPT does not model: one line naming it, and an ImportError to a program that
    tries it (``try: from mpi4py import futures except ImportError: ...``) and goes on without it."""


def unsupported(name: str) -> UnsupportedModule:
    part = name.split(".")[1] if "." in name else name
    what = UNSUPPORTED.get(part, name)
    return UnsupportedModule(f"{name} is not supported by PPT's simulated MPI ({what}); "
                    "ppt exec runs programs that use mpi4py.MPI")


class _Rc(types.SimpleNamespace):
    """``mpi4py.rc``: runtime options, set as attributes or by calling it; only ``initialize`` has an effect
    (False: the program calls ``MPI.Init`` itself)."""

    def __call__(self, **options):
        vars(self).update(options)


def package(mpi) -> types.ModuleType:
    """A rank's ``mpi4py`` package, whose ``MPI`` is ``mpi``."""
    module = types.ModuleType("mpi4py", "PPT's simulated mpi4py")
    module.__version__ = VERSION
    module.__path__ = []
    module.MPI = mpi
    module.rc = _Rc(initialize=True, threads=True, thread_level="multiple", finalize=None,
                    fast_reduce=True, recv_mprobe=True, irecv_bufsz=32768, errors="exception")
    module.get_config = dict
    module.get_include = _no_include

    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported(f"mpi4py.{name}")
    module.__getattr__ = __getattr__
    return module


def _no_include():
    raise MPIError("mpi4py.get_include() is not supported by PPT's simulated MPI: it has no C headers")

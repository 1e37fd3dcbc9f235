"""Copy on write of shared modules: what a rank assigns or deletes on a module every rank shares is its own.

Under ``mpiexec`` each rank is a process, so ``json.dumps = f`` or
``math.pi = 3`` in one rank changes nothing in the others.  Under ``ppt exec``
the standard library and other packages are loaded once for all ranks.  A
module a rank writes to becomes a :class:`CopyOnWrite` module (:func:`adopt`;
``__class__`` assignment, so every reference to it sees the change): its
writes and deletions made while a rank runs are recorded in that rank's
``writes`` (:class:`~ppt.exec.program.RankRun`), and reading an attribute
gives the running rank's own value if it wrote one, the shared value
otherwise.  PPT's own code, wherever it runs, and code outside the ranks read
and write the shared values.  :func:`release` gives the modules back their
class when the run ends.

Modules no rank writes to keep their class, so reading them costs what it
always does; reading a module some rank wrote to costs a Python call.  Not
covered: changes inside an object a module holds
(``json.decoder.__dict__[...]``, ``some_module.some_list.append(x)``), and a
module's own functions, which read their globals from the shared module's
namespace (a rank replacing ``json.decoder.scanstring`` does not change what
``json.decoder``'s own code calls).
"""
from __future__ import annotations

import os
import sys
import types

from greenlet import getcurrent

import ppt
from ppt.exec.current import RUNS

#: PPT's own folder: code of files under it reads and writes the shared values.
_PPT_FOLDER = os.path.dirname(os.path.abspath(ppt.__file__)) + os.sep

_get = types.ModuleType.__getattribute__
_set = types.ModuleType.__setattr__
_delete = types.ModuleType.__delattr__

#: The modules made CopyOnWrite during the run -> their namespace (read directly: quicker than ``_get``).
_ADOPTED: dict = {}


class _Deleted:
    """The value recorded for an attribute a rank deleted."""


DELETED = _Deleted()


def _rank_writing(caller):
    """The rank run whose write this is, None outside the ranks or when ``caller`` (a frame) is PPT's code."""
    if not RUNS or caller.f_code.co_filename.startswith(_PPT_FOLDER):
        return None
    return RUNS.get(getcurrent())


def write(run, module, name, value) -> None:
    """Rank ``run``'s ``setattr(module, name, value)``."""
    if not isinstance(name, str):
        raise TypeError(f"attribute name must be string, not '{type(name).__name__}'")
    run.writes.setdefault(module, {})[name] = value


def delete(run, module, name) -> None:
    """Rank ``run``'s ``delattr(module, name)``: AttributeError if the rank does not see it."""
    if not isinstance(name, str):
        raise TypeError(f"attribute name must be string, not '{type(name).__name__}'")
    own = run.writes.setdefault(module, {})
    if own.get(name, DELETED) is DELETED and (name in own or name not in _get(module, "__dict__")):
        raise AttributeError(f"'module' object has no attribute {name!r}")
    own[name] = DELETED


class CopyOnWrite(types.ModuleType):
    """A shared module some rank wrote to: each rank reads its own writes, the shared value otherwise."""

    def __getattribute__(self, name):
        run = RUNS.get(getcurrent())
        if run is not None:
            own = run.writes.get(self)
            if own and name in own and not sys._getframe(1).f_code.co_filename.startswith(_PPT_FOLDER):
                value = own[name]
                if value is DELETED:
                    raise AttributeError(f"module {_get(self, '__name__')!r} has no attribute {name!r}")
                return value
        try:
            return _ADOPTED[self][name]
        except KeyError:             # not in its namespace: a class attribute, or the module's __getattr__
            return _get(self, name)

    def __setattr__(self, name, value):
        run = _rank_writing(sys._getframe(1))
        if run is None:
            _set(self, name, value)
        else:
            write(run, self, name, value)

    def __delattr__(self, name):
        run = _rank_writing(sys._getframe(1))
        if run is None:
            _delete(self, name)
        else:
            delete(run, self, name)


def adopt(module) -> None:
    """Make ``module`` (a plain module) copy on write until :func:`release`."""
    if type(module) is types.ModuleType:
        _ADOPTED[module] = module.__dict__
        module.__class__ = CopyOnWrite


def release() -> None:
    """Give every adopted module back its plain class (the ranks' writes go with their runs)."""
    for module in _ADOPTED:
        module.__class__ = types.ModuleType
    _ADOPTED.clear()

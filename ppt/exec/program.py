"""An mpi4py program as every simulated rank runs it: its own ``__main__`` and its own local modules.

:class:`Program` reads and compiles the program once.  :class:`RankRun` is
one rank's run of it: a fresh ``__main__`` namespace whose ``__import__``
(through the namespace's own builtins) hands out

* the rank's ``mpi4py`` package (:mod:`ppt.exec.shim`);
* the rank's ``time`` and ``datetime``, whose clocks tell its simulated time
  (:mod:`ppt.exec.clocks`), its ``os``, whose ``chdir`` is its own
  (:mod:`ppt.exec.cwd`), and its ``sys``, whose ``argv``, ``stdout`` and
  ``stderr`` are its own (:mod:`ppt.exec.sysview`);
* modules from the program's folder, loaded once per rank (their code
  compiled once per program), so module-level state stays per rank;
* every other module as Python's import does (shared: numpy and the like
  hold no per-rank state of the program's).
"""
from __future__ import annotations

import ast
import builtins
import os
import traceback
import types
from pathlib import Path

import ppt
from ppt.errors import PPTError
from ppt.exec import clocks, cow, shim, sysview
from ppt.exec.interrupts import KEYBOARD_INTERRUPT_STATUS, UserInterrupt
from ppt.exec.rewrite import HOOK, routed
from ppt.mpi.errors import AfterFinalize

#: Standard modules a rank imports as views of its own (:mod:`ppt.exec.clocks`, :mod:`ppt.exec.cwd`,
#: :mod:`ppt.exec.sysview`).
VIEWS = ("time", "datetime", "os", "sys")

#: PPT's own folder: frames of files under it are left out of a program's tracebacks.
_PPT_FOLDER = os.path.dirname(os.path.abspath(ppt.__file__)) + os.sep


def _is_ppt(filename: str) -> bool:
    return filename.startswith(_PPT_FOLDER)


class ProgramExit(PPTError):
    """A run that cannot end as it would under ``mpiexec``: ranks left blocked after others exited with a
    non-zero ``status`` (mpiexec would wait for them forever)."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


def exit_status(code) -> int:
    """The process exit status of ``sys.exit(code)``: 0 for None, an int's low byte, 1 for anything else."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    return 1


class Program:
    """The program file ``path`` with its arguments ``argv`` (``sys.argv[1:]`` of every rank)."""

    def __init__(self, path: str, argv=()):
        file = Path(path)
        if not file.is_file():
            raise PPTError(f"program {path!r} not found" if not file.exists() else
                           f"program {path!r} is not a file; give the mpi4py program's .py file")
        self.path = Path(os.path.abspath(file))     # as Python names __main__'s file
        self.name = file.name
        self.folder = self.path.parent
        self.argv = [str(path), *argv]
        self.code = self.compile(self.path)
        self._codes: dict[Path, types.CodeType] = {self.path: self.code}
        self._found: dict[str, tuple[Path, bool] | None] = {}

    def compile(self, path: Path) -> types.CodeType:
        """The code of Python file ``path``; a PPTError naming the file and line if it cannot be."""
        shown = self.name if path == getattr(self, "path", path) else str(path.relative_to(self.folder))
        try:
            tree = ast.parse(path.read_bytes(), str(path))
            return compile(routed(tree), str(path), "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as exc:
            if getattr(exc, "lineno", None) is None:      # NUL bytes, undecodable text: not Python source
                raise PPTError(f"{shown} is not a Python program; give the mpi4py program's .py file") from None
            raise PPTError(f"{shown} line {exc.lineno}: syntax error: {exc.msg}") from None
        except OSError as exc:
            raise PPTError(f"cannot read {shown}: {exc.strerror}") from None

    def code_of(self, path: Path) -> types.CodeType:
        code = self._codes.get(path)
        if code is None:
            code = self._codes[path] = self.compile(path)
        return code

    def local_file(self, dotted: str) -> tuple[Path, bool] | None:
        """``(file, is_package)`` of module ``dotted`` in the program's folder, or None if it is not there."""
        if dotted not in self._found:
            self._found[dotted] = self._find(dotted)
        return self._found[dotted]

    def _find(self, dotted: str) -> tuple[Path, bool] | None:
        base = self.folder.joinpath(*dotted.split("."))
        init = base / "__init__.py"
        if init.is_file():
            return init, True
        file = base.with_suffix(".py")
        if file.is_file():
            return file, False
        return None

    def is_own(self, filename: str) -> bool:
        """True for a file of the program (the program or a module of its folder)."""
        path = Path(filename)
        return path == self.path or path.suffix == ".py" and self.folder in path.parents and path.is_file()


class RankRun:
    """One rank's run of ``program`` with simulated MPI ``mpi``; output to ``sinks`` (stdout, stderr); its
    clocks (:mod:`ppt.exec.clocks`) start at the host's wall time ``epoch_s``; ``views``: more standard
    modules it imports as views of its own (``os``, :mod:`ppt.exec.cwd`), by name."""

    __slots__ = ("program", "mpi", "rank", "sinks", "modules", "builtins", "main", "namespace", "stopped",
                 "imported_mpi", "status", "shared", "writes", "interrupted")

    def __init__(self, program: Program, mpi, sinks, epoch_s: float = 0.0, views=None):
        self.program = program
        self.mpi = mpi
        self.rank = mpi.rank
        self.sinks = sinks
        #: The rank's modules: its views of standard modules (``views``, its clocks and ``sys``), then its own.
        self.modules: dict[str, types.ModuleType] = {**(views or {}), **clocks.rank_modules(mpi, epoch_s),
                                                     "sys": sysview.sys_view(program.argv)}
        self.builtins = dict(builtins.__dict__)
        self.builtins.update({"__import__": self.import_module, HOOK: self.writable, "setattr": self.setattr,
                              "delattr": self.delattr})
        #: Modules every rank shares though the rank imports them as its own (``views``), by name.
        self.shared = views or {}
        #: What the rank wrote to shared modules, by module (:mod:`ppt.exec.cow`).
        self.writes: dict = {}
        #: The rank's ``__main__`` module, whose namespace the program runs in.
        self.main = types.ModuleType("__main__")
        self.namespace = self.main.__dict__
        self.namespace.update({"__file__": str(program.path), "__builtins__": self.builtins, "__cached__": None})
        #: True once the run was stopped from outside: its output is dropped.
        self.stopped = False
        #: True once the program imported mpi4py.
        self.imported_mpi = False
        #: The rank's exit status, as its process would exit under mpiexec (1 if it raised).
        self.status = 0
        #: True if the program ended by raising KeyboardInterrupt (Python then kills its process with SIGINT).
        self.interrupted = False

    def run(self) -> None:
        """Run the program as ``__main__`` and set :attr:`status` as a Python process would end: ``sys.exit``'s
        status (its message printed if it is not a number), or 1 with the traceback printed if it raised.
        PPTError (a bad program, an MPI error) goes on up: it stops the run."""
        try:
            exec(self.program.code, self.namespace)
        except SystemExit as exc:
            self.status = exit_status(exc.code)
            if exc.code is not None and not isinstance(exc.code, int):   # sys.exit("message")
                self.sinks[1].write(f"{exc.code}\n")
        except AfterFinalize as exc:          # MPICH's process prints its line and exits with 1
            self.status = 1
            self.sinks[1].write(exc.mpich_message() + "\n")
        except (PPTError, UserInterrupt):
            raise
        except ModuleNotFoundError as exc:
            raise PPTError(f"{self.where(exc)}no module named {exc.name!r}: install it where PPT is installed "
                           f"(pip install ...) or put it beside the program") from None
        except Exception as exc:
            self.status = 1
            self.sinks[1].write(self.traceback(exc))
        except KeyboardInterrupt as exc:       # Python prints it, then ends its process by SIGINT
            self.status = KEYBOARD_INTERRUPT_STATUS
            self.interrupted = True
            self.sinks[1].write(self.traceback(exc))
        finally:
            for sink in self.sinks:
                sink.close()

    # -- errors ------------------------------------------------------------------------
    def user_frames(self, exc: BaseException) -> list:
        return [frame for frame in traceback.extract_tb(exc.__traceback__) if self.program.is_own(frame.filename)]

    def where(self, exc: BaseException) -> str:
        """``NAME line N: `` of the innermost frame of the program's own in ``exc`` ('' if none)."""
        frames = self.user_frames(exc)
        if not frames:
            return ""
        frame = frames[-1]
        name = Path(frame.filename).name
        return f"{name} line {frame.lineno}: "

    @staticmethod
    def traceback(exc: BaseException) -> str:
        """``exc`` as Python prints an uncaught exception, chained ones too, without PPT's own frames."""
        shown = traceback.TracebackException.from_exception(exc)
        seen = set()
        pending = [shown]
        while pending:
            part = pending.pop()
            if id(part) in seen:
                continue
            seen.add(id(part))
            part.stack = traceback.StackSummary.from_list([f for f in part.stack if not _is_ppt(f.filename)])
            pending += [p for p in (part.__cause__, part.__context__) if p is not None]
        return "".join(shown.format())

    # -- writes to modules ------------------------------------------------------------
    def owns(self, module) -> bool:
        """True for a module of this rank alone (its mpi4py, clocks, ``sys`` and the program's modules)."""
        name = getattr(module, "__name__", None)
        return self.modules.get(name) is module and self.shared.get(name) is not module

    def writable(self, target):
        """``target``, made copy on write first if it is a module every rank shares (:mod:`ppt.exec.rewrite`)."""
        if isinstance(target, types.ModuleType) and not self.owns(target):
            cow.adopt(target)
        return target

    def setattr(self, target, name, value) -> None:
        """The rank's ``setattr``: a shared module's attribute is set for this rank alone."""
        if isinstance(self.writable(target), cow.CopyOnWrite):
            cow.write(self, target, name, value)
        else:
            setattr(target, name, value)

    def delattr(self, target, name) -> None:
        """The rank's ``delattr``: a shared module's attribute is deleted for this rank alone."""
        if isinstance(self.writable(target), cow.CopyOnWrite):
            cow.delete(self, target, name)
        else:
            delattr(target, name)

    # -- imports -----------------------------------------------------------------------
    def import_module(self, name, globals=None, locals=None, fromlist=(), level=0):
        """``__import__`` of the rank's code: mpi4py and the program's own modules per rank."""
        if level:
            package = (globals or {}).get("__package__") or ""
            if not package or package.split(".")[0] not in self.modules:
                return builtins.__import__(name, globals, locals, fromlist, level)
            parts = package.split(".")
            if level > len(parts):
                raise ImportError("attempted relative import beyond top-level package")
            base = ".".join(parts[:len(parts) - level + 1])
            name = f"{base}.{name}" if name else base
        top = name.partition(".")[0]
        if top != "mpi4py" and top not in self.modules and self.program.local_file(top) is None:
            return builtins.__import__(name, globals, locals, fromlist, level)
        if name != top and top in VIEWS:              # import os.path: the real submodule, the rank's os
            module = builtins.__import__(name, globals, locals, fromlist, level)
            return module if fromlist else self.modules[top]
        module = self.load(name)
        if name == "mpi4py" and fromlist and "MPI" in fromlist:
            self.load("mpi4py.MPI")
        if not fromlist:
            return self.modules[top]
        if getattr(module, "__path__", None) is not None and top != "mpi4py":
            for item in fromlist:
                if item != "*" and not hasattr(module, item) and self.program.local_file(f"{name}.{item}"):
                    self.load(f"{name}.{item}")
        return module

    def load(self, dotted: str) -> types.ModuleType:
        """This rank's module ``dotted`` (and its parents), loading what is not loaded yet."""
        module = self.modules.get(dotted)
        if module is not None:
            return module
        parent, _, leaf = dotted.rpartition(".")
        if parent:
            self.load(parent)
        if dotted.partition(".")[0] == "mpi4py":
            module = self.mpi4py(dotted)
        else:
            found = self.program.local_file(dotted)
            if found is None:
                raise ModuleNotFoundError(f"No module named {dotted!r}", name=dotted)
            module = self.local_module(dotted, *found)
        if parent:
            setattr(self.modules[parent], leaf, module)
        return module

    def mpi4py(self, dotted: str):
        if dotted not in shim.MODULES:
            raise shim.unsupported(dotted)
        self.imported_mpi = True
        module = self.modules["mpi4py"] = self.modules.get("mpi4py") or shim.package(self.mpi)
        if dotted == "mpi4py.MPI":
            if dotted not in self.modules:            # mpi4py initialises MPI when MPI is first imported
                self.mpi.initialized = bool(module.rc.initialize)
            self.modules[dotted] = self.mpi
            return self.mpi
        return module

    def local_module(self, dotted: str, file: Path, is_package: bool) -> types.ModuleType:
        module = types.ModuleType(dotted)
        module.__file__ = str(file)
        module.__builtins__ = self.builtins
        module.__package__ = dotted if is_package else dotted.rpartition(".")[0]
        if is_package:
            module.__path__ = [str(file.parent)]
        self.modules[dotted] = module
        try:
            exec(self.program.code_of(file), module.__dict__)
        except BaseException:
            del self.modules[dotted]
            raise
        return module

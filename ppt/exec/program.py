"""An mpi4py program as every simulated rank runs it: its own ``__main__`` and its own local modules.

:class:`Program` reads and compiles the program once.  :class:`RankRun` is
one rank's run of it: a fresh ``__main__`` namespace whose ``__import__``
(through the namespace's own builtins) hands out

* the rank's ``mpi4py`` package (:mod:`ppt.exec.shim`);
* modules from the program's folder, loaded once per rank (their code
  compiled once per program), so module-level state stays per rank;
* every other module as Python's import does (shared: numpy and the like
  hold no per-rank state of the program's).
"""
from __future__ import annotations

import builtins
import os
import traceback
import types
from pathlib import Path

from ppt.errors import PPTError
from ppt.exec import shim


class ProgramFailed(PPTError):
    """A rank's program raised: ``rank``, the user's ``traceback_lines`` (their frames only) and a summary."""

    def __init__(self, rank: int, summary: str, traceback_lines: list[str]):
        super().__init__(summary)
        self.rank = rank
        self.traceback_lines = traceback_lines


class ProgramExit(PPTError):
    """A rank called ``sys.exit`` with a non-zero status: every rank stops and the run exits with it."""

    def __init__(self, rank: int, status):
        self.rank = rank
        self.status = status if isinstance(status, int) else 1
        super().__init__(f"rank {rank} exited with status {self.status}; every rank was stopped")


class Program:
    """The program file ``path`` with its arguments ``argv`` (``sys.argv[1:]`` of every rank)."""

    def __init__(self, path: str, argv=()):
        file = Path(path)
        if not file.is_file():
            raise PPTError(f"program {path!r} not found" if not file.exists() else
                           f"program {path!r} is not a file; give the mpi4py program's .py file")
        self.path = file.resolve()
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
            source = path.read_bytes()
            return compile(source, str(path), "exec", dont_inherit=True)
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

    def shown_path(self, filename: str) -> str:
        """``filename`` of the program or one of its modules as the user named the program (its folder as given)."""
        relative = Path(filename).relative_to(self.folder)
        return os.path.join(os.path.dirname(self.argv[0]), relative)

    def is_own(self, filename: str) -> bool:
        """True for a file of the program (the program or a module of its folder)."""
        path = Path(filename)
        return path == self.path or path.suffix == ".py" and self.folder in path.parents and path.is_file()


class RankRun:
    """One rank's run of ``program`` with simulated MPI ``mpi``; output to ``sinks`` (stdout, stderr)."""

    __slots__ = ("program", "mpi", "rank", "sinks", "modules", "builtins", "namespace", "stopped",
                 "imported_mpi")

    def __init__(self, program: Program, mpi, sinks):
        self.program = program
        self.mpi = mpi
        self.rank = mpi.rank
        self.sinks = sinks
        self.modules: dict[str, types.ModuleType] = {}
        self.builtins = dict(builtins.__dict__)
        self.builtins["__import__"] = self.import_module
        self.namespace = {"__name__": "__main__", "__file__": str(program.path), "__builtins__": self.builtins,
                          "__doc__": None, "__package__": None, "__spec__": None}
        #: True once the run was stopped from outside: its output is dropped.
        self.stopped = False
        #: True once the program imported mpi4py.
        self.imported_mpi = False

    def run(self) -> None:
        """Run the program as ``__main__``; raises ProgramFailed / ProgramExit / PPTError as the program ends."""
        try:
            exec(self.program.code, self.namespace)
        except SystemExit as exc:
            if exc.code not in (None, 0):
                if not isinstance(exc.code, int):     # sys.exit("message"): Python prints it, status 1
                    self.sinks[1].write(f"{exc.code}\n")
                raise ProgramExit(self.rank, exc.code) from None
        except PPTError:
            raise
        except ModuleNotFoundError as exc:
            raise PPTError(f"{self.where(exc)}no module named {exc.name!r}: install it where PPT is installed "
                           f"(pip install ...) or put it beside the program") from None
        except Exception as exc:
            raise self.failure(exc) from None
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

    def failure(self, exc: BaseException) -> ProgramFailed:
        frames = self.user_frames(exc)
        for frame in frames:
            frame.line       # read the source line while the frame still names the file by its full path
            frame.filename = self.program.shown_path(frame.filename)
        lines = ["Traceback (most recent call last):\n", *traceback.format_list(frames),
                 *traceback.format_exception_only(type(exc), exc)]
        text = "".join(lines).rstrip("\n").split("\n")
        summary = f"rank {self.rank} raised {type(exc).__name__}"
        if frames:
            summary += f" at {frames[-1].filename} line {frames[-1].lineno}"
        return ProgramFailed(self.rank, f"{summary}; every rank was stopped", text)

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
        module = self.load(name)
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

"""Model scripts: a Python file defining ``main(mpi)``, which every simulated rank runs.

``ppt run`` loads one; a job list (:mod:`ppt.jobs.mix`) loads one per script job.  The loader lives
here, outside the command-line package, so that the job layer does not import a command.
"""
from __future__ import annotations

import contextlib
import importlib.util
import sys
import traceback
from importlib.machinery import SourceFileLoader
from pathlib import Path

from ppt.errors import PPTError
from ppt.textfile import read_text_bytes

#: The function every rank runs.
ENTRY = "main"


def load_main(path: str):
    """The ``main`` function of script ``path``."""
    file = Path(path)
    if read_text_bytes(path, "script", f"not the Python file defining {ENTRY}(mpi)") is None:
        raise PPTError(f"script {path!r} not found")
    # any file name will do (not only .py): the loader is chosen here, not by the suffix
    name = f"ppt_script_{file.stem}"
    spec = importlib.util.spec_from_file_location(name, file, loader=SourceFileLoader(name, str(file)))
    module = importlib.util.module_from_spec(spec)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            spec.loader.exec_module(module)
    except SyntaxError as exc:
        where = f" line {exc.lineno}" if exc.lineno else ""
        raise PPTError(f"script {file.name}{where}: syntax error: {exc.msg}") from None
    except Exception as exc:   # the script's own top level failed (a missing import, ...)
        where = _script_line(exc, file)
        raise PPTError(f"script {file.name}{where} failed while loading: {type(exc).__name__}: {exc}") from None
    main = getattr(module, ENTRY, None)
    if not callable(main):
        raise PPTError(f"script {file.name} defines no {ENTRY}(mpi) function; every rank runs {ENTRY}(mpi)")
    return main


def _script_line(exc: BaseException, file: Path) -> str:
    """`` line N`` of the innermost frame of ``exc`` inside ``file`` ('' if none)."""
    line = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename) == file.resolve() or Path(frame.filename) == file:
            line = f" line {frame.lineno}"
    return line

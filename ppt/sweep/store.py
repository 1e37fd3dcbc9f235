"""A sweep's output folder: one JSON file per finished point, so an interrupted sweep resumes.

Files are written whole or not at all (a temporary file renamed into place),
and each names its point by a hash of the point's command line and inputs
(PPT's version, the preset's content, the content of its script, program or
trace files: :mod:`ppt.sweep.inputs`), so a folder can hold several sweeps, a
changed sweep never picks up another's results and an edited script or preset
is run again.
"""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

from ppt.errors import ConfigError
from ppt.sweep.grid import Point


def check_folder(path: str) -> None:
    """ConfigError (before any run) if the ``--out`` folder cannot be made or written: the folder is
    made now (the store needs it) and a file is made and removed in it, so permissions, read-only
    and pseudo file systems (/proc) are found before the first point runs."""
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"--out {path}: is a file, not a folder; give a folder for the per-point results")
    parent = folder if folder.exists() else next((p for p in folder.parents if p.exists()), Path("."))
    if not parent.is_dir():
        raise ConfigError(f"--out {path}: {parent} is a file, so no folder can be made there; choose another path")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"--out {path}: cannot write in {parent}; choose a writable folder")
    made = [p for p in (folder, *folder.parents) if not p.exists()]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, probe = tempfile.mkstemp(dir=folder, prefix=".probe-")
        os.close(handle)
        os.unlink(probe)
    except OSError as exc:
        for new in made:                        # leave no empty folders behind
            with contextlib.suppress(OSError):
                new.rmdir()
        raise ConfigError(f"--out {path}: cannot write there ({exc.strerror or exc}); "
                          f"choose a writable folder") from None


def write_atomic(path: Path, text: str, option: str = "--out") -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the whole new one, never a part;
    a failed write (a full disk) leaves no temporary file and is a one-line PPTError."""
    from ppt.atomicfile import write_text_atomic
    write_text_atomic(str(path), text, option)


class PointStore:
    """Finished points of a sweep in ``folder`` (``<command>-<key>.json``: argv, params, inputs and result);
    the folder is made if missing (see :func:`check_folder`)."""

    def __init__(self, folder: str):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    def _path(self, point: Point) -> Path:
        return self.folder / f"{point.argv[0]}-{point.key}.json"

    def load(self, point: Point) -> dict | None:
        """The stored result of ``point``, or None if it has not finished."""
        try:
            record = json.loads(self._path(point).read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return None
        same = record.get("argv") == list(point.argv) and record.get("inputs") == json.loads(json.dumps(point.inputs))
        return record["result"] if same else None

    def save(self, point: Point, result: dict) -> None:
        record = {"argv": list(point.argv), "params": point.params, "inputs": point.inputs, "result": result}
        write_atomic(self._path(point), json.dumps(record, sort_keys=True, indent=1) + "\n")

"""A sweep's output folder: one JSON file per finished point, so an interrupted sweep resumes.

Files are written whole or not at all (a temporary file renamed into place),
and each names its point by a hash of the point's command line, so a folder
can hold several sweeps and a changed sweep never picks up another's results.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from ppt.errors import ConfigError
from ppt.sweep.grid import Point


def check_folder(path: str) -> None:
    """ConfigError (before any run) if the ``--out`` folder cannot be written or created."""
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"--out {path}: is a file, not a folder; give a folder for the per-point results")
    parent = folder if folder.exists() else next((p for p in folder.parents if p.exists()), Path("."))
    if not parent.is_dir():
        raise ConfigError(f"--out {path}: {parent} is a file, so no folder can be made there; choose another path")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"--out {path}: cannot write in {parent}; choose a writable folder")


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the whole new one, never a part."""
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class PointStore:
    """Finished points of a sweep in ``folder`` (``<command>-<key>.json``: argv, params and result);
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
        return record["result"] if record.get("argv") == list(point.argv) else None

    def save(self, point: Point, result: dict) -> None:
        record = {"argv": list(point.argv), "params": point.params, "result": result}
        write_atomic(self._path(point), json.dumps(record, sort_keys=True, indent=1) + "\n")

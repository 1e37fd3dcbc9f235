"""Printing results: a JSON object with ``--json``, else an aligned table."""
from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path


def add_json_flag(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")


def emit(args, result: dict, headers=None, rows=None, title=None) -> None:
    """Print ``result`` as JSON (``args.json``) or ``rows`` as a table under ``headers``."""
    if getattr(args, "json", False):
        json.dump(result, sys.stdout, sort_keys=True)
        sys.stdout.write("\n")
        return
    if title:
        print(title)
    if rows is None:
        rows = [[k, v] for k, v in result.items()]
        headers = headers or ["field", "value"]
    print(format_table(headers, rows))


def preload_plotting() -> None:
    """Import matplotlib (Agg backend) in a background thread, for a plot to be drawn later: call it
    while this process waits for worker processes, and the plot no longer waits for the import."""
    threading.Thread(target=_import_plotting, daemon=True).start()


def _import_plotting() -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401


def format_table(headers, rows) -> str:
    cells = [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(str(h)), *(len(r[i]) for r in cells)) if cells else len(str(h))
              for i, h in enumerate(headers)]
    lines = ["  ".join(str(h).rjust(w) for h, w in zip(headers, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in cells]
    return "\n".join(lines)


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def check_writable(path: str, option: str = "--plot") -> None:
    """PPTError now, before a long run, if ``path`` cannot be written."""
    from ppt.errors import PPTError
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise PPTError(f"{option} {path}: is a folder; give a file name such as {target / 'plot.png'}")
    if not folder.is_dir():
        raise PPTError(f"{option} {path}: folder {folder} does not exist; create it or choose another path")
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise PPTError(f"{option} {path}: cannot write there; choose a writable path")

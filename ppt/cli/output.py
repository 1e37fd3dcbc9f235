"""Printing results: a JSON object with ``--json``, else an aligned table."""
from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
import threading
from pathlib import Path


def add_json_flag(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")


def emit(args, result: dict, headers=None, rows=None, title=None) -> None:
    """Print ``result`` as JSON (``args.json``) or ``rows`` as a table under ``headers``.

    The results are flushed here, so a standard output that cannot take them (a full disk) is a
    one-line PPTError; a reader that went away (BrokenPipeError) is left to the command line.
    A JSON result gets its ``provenance`` object (version, preset hash, command line, wall time, ...;
    see :mod:`ppt.provenance`)."""
    try:
        if getattr(args, "json", False):
            from ppt.provenance import provenance
            json.dump({**result, "provenance": provenance(args)}, sys.stdout, sort_keys=True)
            sys.stdout.write("\n")
        else:
            if title:
                print(title)
            if rows is None:
                print(format_result(result))
            else:
                print(format_table(headers, rows))
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        from ppt.errors import PPTError
        with contextlib.suppress(OSError):   # drop what the buffer still holds, so exit does not retry it
            sys.stdout = open(os.devnull, "w")
        raise PPTError(f"cannot write the results to standard output: {exc.strerror or exc}") from None


def preload_plotting() -> None:
    """Import matplotlib (Agg backend) in a background thread, for a plot to be drawn later: call it
    while this process waits for worker processes, and the plot no longer waits for the import."""
    threading.Thread(target=_import_plotting, daemon=True).start()


def _import_plotting() -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401


#: Widest line of a human-readable result (a terminal's, with room to spare).
MAX_WIDTH = 120


def format_table(headers, rows, width: int = MAX_WIDTH) -> str:
    """``rows`` under ``headers``, columns right-aligned, at most ``width`` columns: the widest column's
    cells wrap onto further lines when the table would be wider."""
    import textwrap
    cells = [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(str(h)), *(len(r[i]) for r in cells)) if cells else len(str(h))
              for i, h in enumerate(headers)]
    while sum(widths) + 2 * (len(widths) - 1) > width:
        widest = max(range(len(widths)), key=widths.__getitem__)
        cut = widths[widest] - (sum(widths) + 2 * (len(widths) - 1) - width)
        if cut < 12:                      # no room to wrap into: leave the table wide
            break
        widths[widest] = cut
    lines = ["  ".join(str(h)[:w].rjust(w) for h, w in zip(headers, widths)),
             "  ".join("-" * w for w in widths)]
    for row in cells:
        wrapped = [textwrap.wrap(c, w, break_long_words=True) or [""] if len(c) > w else [c]
                   for c, w in zip(row, widths)]
        for i in range(max(len(part) for part in wrapped)):
            lines.append("  ".join((part[i] if i < len(part) else "").ljust(w) if len(part) > 1  # a paragraph
                                   else (part[i] if i < len(part) else "").rjust(w)
                                   for part, w in zip(wrapped, widths)).rstrip())
    return "\n".join(lines)


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(_fmt_item(v) for v in value)
    return str(value)


def _fmt_item(value) -> str:
    if isinstance(value, (list, tuple)):
        return "(" + " ".join(_fmt_item(v) for v in value) + ")"
    return _fmt(value)


def flatten(value, prefix: str = "") -> dict:
    """A nested dict as ``{"key.subkey": value}`` (lists kept whole), as the sweep CSV names columns."""
    flat = {}
    for key, item in value.items():
        name = f"{prefix}{key}"
        if isinstance(item, dict) and item:
            flat.update(flatten(item, f"{name}."))
        else:
            flat[name] = item
    return flat


def _is_records(value) -> bool:
    """A non-empty list of dicts, or a dict whose values are all dicts: one table of its own."""
    if isinstance(value, list):
        return bool(value) and all(isinstance(v, dict) for v in value)
    return isinstance(value, dict) and bool(value) and all(isinstance(v, dict) for v in value.values())


def format_result(result: dict, width: int = MAX_WIDTH) -> str:
    """A result as readable tables at most ``width`` columns wide: its scalars (nested dicts flattened to
    ``key.subkey`` rows) as field/value rows, then one table per list of records (or dict of records,
    keyed by its first column), the record's fields (flattened) as columns."""
    scalars, tables = {}, {}

    def collect(value: dict, prefix: str) -> None:
        for key, item in value.items():
            name = f"{prefix}{key}"
            if _is_records(item):
                tables[name] = item
            elif isinstance(item, dict) and item:
                collect(item, f"{name}.")
            else:
                scalars[name] = item

    collect(result, "")
    parts = [format_table(["field", "value"], [[k, v] for k, v in scalars.items()], width)] if scalars else []
    for name, records in tables.items():
        if isinstance(records, dict):
            rows = [{name.rsplit(".", 1)[-1]: key, **flatten(record)} for key, record in records.items()]
        else:
            rows = [flatten(record) for record in records]
        columns = list(dict.fromkeys(k for row in rows for k in row))
        parts.append(f"{name}:\n" + format_table(columns, [[row.get(c, "") for c in columns] for row in rows],
                                                  width))
    return "\n\n".join(parts)


def check_writable(path: str, option: str = "--plot") -> None:
    """PPTError now, before a long run, if ``path`` cannot be written: its folder is missing, it is a
    folder or a device, or a file cannot be made in its folder (tried, so permissions, read-only and
    pseudo file systems such as /proc all count).  A full disk shows only when writing; see
    :func:`ppt.atomicfile.atomic_output`."""
    from ppt.errors import PPTError
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise PPTError(f"{option} {path}: is a folder; give a file name such as {target / 'plot.png'}")
    if not folder.is_dir():
        raise PPTError(f"{option} {path}: folder {folder} does not exist; create it or choose another path")
    if target.exists() and not target.is_file():
        raise PPTError(f"{option} {path}: is not a regular file (a device or pipe); give a file name")
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise PPTError(f"{option} {path}: cannot write there; choose a writable path")
    try:
        handle, probe = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".probe")
        os.close(handle)
        os.unlink(probe)
    except OSError as exc:
        raise PPTError(f"{option} {path}: cannot write there ({exc.strerror or exc}); "
                       f"choose a writable path") from None

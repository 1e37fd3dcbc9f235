"""Printing results: a JSON object with ``--json``, else an aligned table."""
from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import tempfile
import textwrap
import threading
from pathlib import Path

from ppt.terminal import terminal_width  # noqa: F401  (the commands' width, here beside the printers)
from ppt.units import format_rate, format_time


def add_json_flag(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")


#: ``--columns all``: every column, in a table as wide as it takes (for a file, or ``less -S``).
ALL_COLUMNS = "all"
#: The width of a table that may not leave columns out.
UNLIMITED = 1 << 30


def add_columns_option(parser, default_help: str, default=None) -> None:
    """``--columns all|C1,C2,...``: the table's columns (``default_help`` says which it shows without)."""
    parser.add_argument("--columns", default=default, metavar="all|C1,C2,...",
                        help=f"the table's columns: 'all' (as wide as it takes) or names; default {default_help}; "
                             f"--json has every column")


def pick_columns(option: str | None, available: list[str], default: list[str]) -> tuple[list[str], int | None]:
    """The columns ``--columns`` asks for out of ``available`` (``default`` without it), and the table's
    width: unlimited for ``all``, else the terminal's.  A name not in ``available`` is a PPTError."""
    if not option:
        return default, None
    if option == ALL_COLUMNS:
        return available, UNLIMITED
    wanted = [name.strip() for name in option.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in available]
    if unknown:
        from ppt.errors import PPTError
        raise PPTError(f"--columns {', '.join(unknown)}: no such column; choose 'all' or among: "
                       f"{', '.join(available)}")
    return wanted, None


def emit(args, result: dict, headers=None, rows=None, title=None, width: int | None = None,
         text: str | None = None) -> None:
    """Print ``result`` as JSON (``args.json``) or ``rows`` as a table under ``headers``, at most
    ``width`` columns wide (default :func:`terminal_width`), or the ``text`` made of it.

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
            if text is not None:
                print(text)
            elif rows is None:
                print(format_result(result, width))
            else:
                print(format_table(headers, rows, width))
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        from ppt.errors import PPTError
        with contextlib.suppress(OSError):   # drop what the buffer still holds, so exit does not retry it
            sys.stdout = open(os.devnull, "w")
        raise PPTError(f"cannot write the results to standard output: {exc.strerror or exc}") from None


def write_plot(path: str, draw) -> None:
    """Draw a figure after the results were printed: ``draw(tmp)`` writes the PNG to a temporary file that
    becomes ``path`` whole (:func:`~ppt.atomicfile.atomic_output`); a failure is one line saying the results
    above are complete, since nothing of them is lost."""
    from ppt.atomicfile import atomic_output
    from ppt.errors import PPTError
    if _preloading:         # two threads importing matplotlib's modules at once can meet one half-made
        _preloading.pop().join()
    try:
        with atomic_output(path, "--plot", suffix=".png") as tmp:
            draw(tmp)
    except PPTError as exc:
        raise PPTError(f"{exc}; the results above are complete") from None


#: The thread :func:`preload_plotting` started, until :func:`write_plot` waits for it.
_preloading: list = []


def preload_plotting() -> None:
    """Import matplotlib (Agg backend) in a background thread, for a plot to be drawn later: call it
    while this process waits for worker processes, and the plot no longer waits for the import
    (:func:`write_plot` waits for the thread before drawing)."""
    thread = threading.Thread(target=_import_plotting, daemon=True)
    thread.start()
    _preloading.append(thread)


def _import_plotting() -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401


def format_table(headers, rows, width: int | None = None) -> str:
    """``rows`` under ``headers`` in at most ``width`` columns (default :func:`terminal_width`).

    Numbers are right-aligned, text left-aligned; times (a header ending ``_s``) and bandwidths
    (``_Bps``) carry their unit.  A table too wide wraps its headers at ``_`` and ``.`` and its text
    at spaces, never inside a word; if it is still too wide, its last columns are left out and a line
    under it names them."""
    width = width or terminal_width()
    headers = [str(h) for h in headers]
    cells = [[cell(value, header) for value, header in zip(row, headers)] for row in rows]
    numeric = [all(_is_number(row[i]) or row[i] is None for row in rows) for i in range(len(headers))]
    least = [max([_longest_word(h, HEADER_BREAKS)] + [_longest_word(r[i], " ") for r in cells])
             for i, h in enumerate(headers)]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    while _total(widths) > width:                  # narrow the widest column that can be narrowed
        narrower = {i: _narrower(headers[i], [r[i] for r in cells], widths[i], least[i]) for i in range(len(widths))}
        candidates = [i for i, w in narrower.items() if w is not None]
        if not candidates:
            break
        widest = max(candidates, key=lambda i: widths[i])
        widths[widest] = narrower[widest]
    shown = len(headers)
    while shown > 1 and _total(widths[:shown]) > width:
        shown -= 1
    lines = _render(headers[:shown], [r[:shown] for r in cells], widths[:shown], numeric[:shown])
    if shown < len(headers):
        left_out = ", ".join(headers[shown:])
        count = len(headers) - shown
        note = f"({count} more column{'s' if count > 1 else ''} not shown at {width} columns: {left_out}; --json has them all)"
        lines += textwrap.wrap(note, width, break_long_words=False, break_on_hyphens=False)
    return "\n".join(lines)


#: Where a header may wrap onto its next line: after an underscore, a dot, a slash or a space.
HEADER_BREAKS = "_./ "


#: A number, which stays on one line with a unit after it (``4.8 µs``, ``10 GB/s``).
_NUMBER = re.compile(r"^[-+]?[\d,.]+(e[-+]?\d+)?$")


def _pieces(text: str, breaks: str) -> list[str]:
    """``text`` cut after each character of ``breaks`` (the cuts a line may wrap at); a piece of one or
    two characters stays with the one before (``latency_s`` keeps its ``s``), a number with a short
    one after (its unit)."""
    pieces = []
    for piece in re.split(f"(?<=[{re.escape(breaks)}])", text):
        suffix = len(piece) <= 2 and not pieces[-1].endswith(" ") if pieces else False     # the s of latency_s
        unit = bool(pieces) and bool(_NUMBER.match(pieces[-1].strip())) and len(piece.strip(" ,;")) <= 4
        if suffix or unit:
            pieces[-1] += piece
        elif piece:
            pieces.append(piece)
    return pieces


def _narrower(header: str, column: list[str], width: int, least: int) -> int | None:
    """The next width below ``width`` (and not below ``least``) that wrapping the header and cells of a
    column gives it, None if there is none."""
    for trial in range(width - 1, least - 1, -1):
        used = max(_used(header, trial, HEADER_BREAKS), *(_used(c, trial, " ") for c in column))
        if used < width:
            return used
    return None


def _used(text: str, width: int, breaks: str) -> int:
    """The longest line of ``text`` wrapped to ``width``."""
    return max(len(line) for line in _wrap(text, width, breaks)) if len(text) > width else len(text)


def _longest_word(text: str, breaks: str) -> int:
    return max((len(piece.rstrip()) for piece in _pieces(text, breaks)), default=0)


def _total(widths) -> int:
    return sum(widths) + 2 * (len(widths) - 1)


def _wrap(text: str, width: int, breaks: str) -> list[str]:
    """``text`` in lines of at most ``width``, cut only after a character of ``breaks`` (a word longer
    than ``width``, possible only in a table wider than the terminal, is cut)."""
    lines, line = [], ""
    for piece in _pieces(text, breaks):
        if line and len((line + piece).rstrip()) > width:
            lines.append(line.rstrip())
            line = ""
        line += piece.lstrip() if not line else piece
        while len(line.rstrip()) > width:
            lines.append(line[:width])
            line = line[width:]
    return lines + [line.rstrip()] if line.strip() or not lines else lines


def _render(headers, cells, widths, numeric) -> list[str]:
    """The lines of a table whose column widths are decided: headers bottom-aligned, then a rule."""
    def line(parts, align) -> list[str]:
        height = max(len(p) for p in parts)
        rows = []
        for k in range(height):
            texts = [(p[k - (height - len(p))] if k >= height - len(p) else "") if align == "bottom"
                     else (p[k] if k < len(p) else "") for p in parts]
            rows.append("  ".join(t.rjust(w) if right else t.ljust(w)
                                  for t, w, right in zip(texts, widths, numeric)).rstrip())
        return rows
    lines = line([_wrap(h, w, HEADER_BREAKS) for h, w in zip(headers, widths)], "bottom")
    lines.append("  ".join("-" * w for w in widths))
    for row in cells:
        lines += line([_wrap(c, w, " ") for c, w in zip(row, widths)], "top")
    return lines


def paragraph(text: str, width: int | None = None) -> str:
    """A line of prose wrapped at spaces to ``width`` (default :func:`terminal_width`), its further
    lines indented by two."""
    return "\n".join(textwrap.wrap(text, width or terminal_width(), subsequent_indent="  ",
                                    break_long_words=False, break_on_hyphens=False)) or text


def format_fields(pairs, width: int | None = None) -> str:
    """``(key, value)`` pairs as ``key  value`` lines, keys left-aligned in one column and values just
    after it, wrapped at spaces under themselves; a key too long for the column has a line of its own."""
    width = width or terminal_width()
    pairs = [(str(k), v) for k, v in pairs]
    column = min(max((len(k) for k, _ in pairs), default=0), width // 2)
    lines = []
    for key, value in pairs:
        text = cell(value, key)
        if len(key) > column or _longest_word(text, " ") > width - column - 2:   # a line of its own, then the value
            lines.append(key)
            lines += [f"  {t}" for t in _wrap(text, width - 2, " ")]
            continue
        first, *rest = _wrap(text, width - column - 2, " ")
        lines.append(f"{key.ljust(column)}  {first}".rstrip())
        lines += [f"{'':{column}}  {t}" for t in rest]
    return "\n".join(lines)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def cell(value, name: str = "") -> str:
    """A value as a table shows it: a time (see :func:`is_time`) or bandwidth (``name`` ends in ``_Bps``)
    with its unit, other floats to 4 significant digits (whole from 1,000 up, with thousands
    separators), None as ``-``, booleans as yes and no, lists comma-separated."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if is_time(name):
            return duration(value)
        if name.endswith("_Bps"):
            return format_rate(value)
        return f"{value:,.0f}" if 1e3 <= abs(value) < 1e15 else f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(_item(v, name) for v in value)
    return str(value)


def is_time(name: str) -> bool:
    """True for a column of seconds: its name, or the part of a dotted name before a statistic, ends in
    ``_s`` (``predicted_s``, ``wall_s.min``), and it is not a rate (``messages_per_s``)."""
    return any(part.endswith("_s") and not part.endswith("_per_s") for part in name.split(".")[-2:])


def duration(seconds: float) -> str:
    """A time in seconds as tables show it (``4.826 µs``)."""
    return format_time(seconds, _MICRO)


def _item(value, name: str) -> str:
    if isinstance(value, (list, tuple)):
        return "(" + " ".join(_item(v, name) for v in value) + ")"
    return cell(value, name)


def _can_print(text: str) -> bool:
    """True if standard output can take ``text`` (a terminal or file whose encoding lacks µ cannot)."""
    try:
        text.encode(getattr(sys.stdout, "encoding", None) or "utf-8")
        return True
    except (UnicodeEncodeError, LookupError):
        return False


#: The microsecond symbol: µs, or us where standard output cannot print µ.
_MICRO = "µs" if _can_print("µ") else "us"


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


def format_result(result: dict, width: int | None = None) -> str:
    """A result as readable text at most ``width`` columns wide (default :func:`terminal_width`): its
    scalars (nested dicts flattened to ``key.subkey``) as ``key  value`` lines, then one table per list
    of records (or dict of records, keyed by its first column), the record's fields (flattened) as columns."""
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
    parts = [format_fields(scalars.items(), width)] if scalars else []
    for name, records in tables.items():
        if isinstance(records, dict):
            rows = [{name.rsplit(".", 1)[-1]: key, **flatten(record)} for key, record in records.items()]
        else:
            rows = [flatten(record) for record in records]
        columns = list(dict.fromkeys(k for row in rows for k in row))
        parts.append(f"{name}:\n" + format_table(columns, [[row.get(c) for c in columns] for row in rows],
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

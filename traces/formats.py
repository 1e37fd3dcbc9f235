"""The front door of trace input: which format a path holds, and the reader that opens it.

Every reader yields the op-stream form (:mod:`ppt.traces.opstream`), so replay,
``trace-info`` and ``convert`` take any format through :func:`open_trace`.
A format is found by its file name first (extension, or a folder holding the
format's index file), then by the first bytes of a file.  :data:`FORMATS` is
the one table of formats: a new reader adds one row, naming its module and
its opener (imported only when a trace of that format is opened, so an
optional reader's dependency is needed only by those who read it).
"""
from __future__ import annotations

import glob
import importlib
import os
from typing import Callable, NamedTuple

from ppt.errors import TraceError
from ppt.traces.bundled import resolve
from ppt.traces.opstream import is_saved


class Format(NamedTuple):
    """A trace format: ``detect(path)`` says whether ``path`` holds it; ``opener`` is
    ``"module:function"`` (module under ``ppt.traces``), called as ``function(path, **options)`` -> an
    OpTrace, ``options`` being the reader options (keyword names) the format takes."""

    name: str
    description: str
    detect: Callable[[str], bool]
    opener: str
    options: tuple[str, ...] = ()


def _has(path: str, pattern: str) -> bool:
    """Whether folder ``path`` holds a file matching ``pattern``."""
    return os.path.isdir(path) and bool(glob.glob(os.path.join(glob.escape(path), pattern)))


def _is_dumpi(path: str) -> bool:
    if _has(path, "*.meta") or path.endswith((".meta", ".bin")):
        return True
    return not os.path.exists(path) and bool(glob.glob(glob.escape(path) + "*.meta"))


FORMATS: tuple[Format, ...] = (
    Format("opstream", "PPT's op-stream folder (opstream.json + rank-NNNN.npz)", is_saved, "opstream:load"),
    Format("dumpi", "SST-DUMPI trace set (.meta + one .bin per rank)", _is_dumpi, "readers.dumpi:TraceSet"),
    Format("otf2", "OTF2 archive, as Score-P writes (the .otf2 anchor file, or its folder)",
           lambda path: path.endswith(".otf2") or _has(path, "*.otf2"), "readers.otf2:read"),
    Format("chakra", "MLCommons Chakra execution trace (<prefix>.<rank>.et per rank)",
           lambda path: importlib.import_module("ppt.traces.readers.chakra").is_chakra(path),
           "readers.chakra:ChakraTrace", ("overlap", "comm_groups")),
    Format("goal", "GOAL text schedule of LogGOPSim/Schedgen/ATLAHS (.goal, or text starting 'num_ranks')",
           lambda path: importlib.import_module("ppt.traces.readers.goal").is_goal(path), "readers.goal:load"),
)


def format_of(path) -> Format:
    """The format ``path`` holds (TraceError, one line, naming the formats read, if none); a
    ``sample:NAME`` is the bundled sample's folder (:mod:`ppt.traces.bundled`)."""
    path = resolve(os.fspath(path))
    for fmt in FORMATS:
        if fmt.detect(path):
            return fmt
    if not os.path.exists(path):
        raise TraceError(f"no trace at {path}: give a trace file or folder")
    raise TraceError(f"{path} is not a trace in a format PPT reads ({', '.join(f.name for f in FORMATS)})")


def open_trace(path, **options):
    """The trace at ``path`` (or the sample ``sample:NAME``) as an :class:`~ppt.traces.opstream.OpTrace`,
    whatever its format; ``options`` go to its reader (those left None or False are not given), and one
    the format does not take is a TraceError naming it as the command line spells it."""
    path = resolve(os.fspath(path))
    fmt = format_of(path)
    given = {name: value for name, value in options.items() if value is not None and value is not False}
    foreign = [name for name in given if name not in fmt.options]
    if foreign:
        takers = [f.name for f in FORMATS if foreign[0] in f.options]
        raise TraceError(f"--{foreign[0].replace('_', '-')} applies to {' and '.join(takers)} traces, and {path} "
                         f"is a {fmt.name} trace: drop it")
    module, function = fmt.opener.split(":")
    return getattr(importlib.import_module(f"ppt.traces.{module}"), function)(path, **given)

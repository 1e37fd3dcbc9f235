"""The sample traces shipped with ppt, named ``sample:NAME`` wherever a trace is taken.

Each is an op-stream folder (``samples/NAME``, e.g. ``cg_n8``: the program ``cg`` on 8 ranks),
recorded with ``ppt record`` from one of the small C MPI programs in ``samples/programs``, whose
source lies beside it; ``samples/programs/record.sh`` records them all again.  Some are also shipped
as SST-DUMPI sets, ``sample:dumpi/NAME`` (``samples/dumpi/NAME``, written by ppt's DUMPI writer;
``samples/programs/dumpi_samples.py`` writes them again, with their MANIFEST.json).
"""
from __future__ import annotations

from pathlib import Path

from ppt.errors import TraceError
from ppt.traces.opstream import META_FILE

SAMPLES = Path(__file__).with_name("samples")
PROGRAMS = SAMPLES / "programs"
#: How a trace argument names a sample.
PREFIX = "sample:"
#: The folder of the DUMPI samples, named ``dumpi/NAME``.
DUMPI = "dumpi"


def names() -> list[str]:
    """The op-stream samples' names, sorted."""
    return sorted(p.name for p in SAMPLES.iterdir() if (p / META_FILE).is_file())


def dumpi_names() -> list[str]:
    """The DUMPI samples' names (``dumpi/NAME``), sorted."""
    folder = SAMPLES / DUMPI
    return sorted(f"{DUMPI}/{p.name}" for p in folder.iterdir() if any(p.glob("*.meta"))) if folder.is_dir() else []


def path(name: str) -> Path:
    """The folder of sample ``name`` (TraceError, one line, naming the samples, if there is none)."""
    known = names() + dumpi_names()
    if name not in known:
        raise TraceError(f"no sample trace {name!r}: the samples are {', '.join(known)} (see 'ppt samples')")
    return SAMPLES / name


def program(name: str) -> Path:
    """The C source of the program sample ``name`` recorded (``cg_n8``, ``dumpi/cg_n8`` -> ``programs/cg.c``)."""
    return PROGRAMS / (name.rpartition("/")[2].rpartition("_n")[0] + ".c")


def resolve(trace: str) -> str:
    """``trace`` with a ``sample:NAME`` replaced by the sample's folder; any other path unchanged."""
    return str(path(trace[len(PREFIX):])) if trace.startswith(PREFIX) else trace

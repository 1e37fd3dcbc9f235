"""The DUMPI trace sets the trace tests read, by name, with what each holds (``MANIFEST[name]``).

Always there: the DUMPI samples shipped with ppt (``traces/samples/dumpi``: the project's recorded samples
written by its DUMPI writer; :data:`SAMPLE_SETS`).  Also, when present: the real traces of third-party
programs kept beside the repository (``../shared/traces``, or the folder ``PPT_SHARED_TRACES`` names;
:data:`REAL_SETS`).  Both folders have a MANIFEST.json of one schema.  A test (or a case) of a fact only
a real trace has carries the ``real_traces`` mark (:data:`needs_real`, :func:`real`): without the real
traces it is not collected, and the session's summary says how many such cases did not run (conftest.py).
"""
import json
import os
from pathlib import Path

import pytest

from ppt.traces import bundled

SAMPLES = bundled.SAMPLES / "dumpi"
SHARED = Path(os.environ.get("PPT_SHARED_TRACES") or Path(__file__).resolve().parents[1].parent / "shared" / "traces")
HAVE_SHARED = (SHARED / "MANIFEST.json").is_file()


def _sets(folder: Path) -> dict:
    return {s["name"]: dict(s, path=folder / s["folder"])
            for s in json.loads((folder / "MANIFEST.json").read_text())["sets"]}


SAMPLE_MANIFEST = _sets(SAMPLES)
REAL_MANIFEST = _sets(SHARED) if HAVE_SHARED else {}
MANIFEST = {**SAMPLE_MANIFEST, **REAL_MANIFEST}
SAMPLE_SETS, REAL_SETS = sorted(SAMPLE_MANIFEST), sorted(REAL_MANIFEST)
#: Every set present: the samples, and the real traces when there.
SETS = sorted(MANIFEST)

#: Marks a test that reads a real trace (conftest.py leaves it out without them).
needs_real = pytest.mark.real_traces


def real(*cases):
    """Test cases (names of real traces, or tuples of parameters naming one), each marked :data:`needs_real`."""
    return [pytest.param(*(case if isinstance(case, tuple) else (case,)), marks=needs_real) for case in cases]


def path(name: str) -> Path:
    """The folder of set ``name``."""
    return MANIFEST[name]["path"]

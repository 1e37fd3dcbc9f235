"""Opening a trace set from a path, whichever form it is in."""
from __future__ import annotations

import os

from ppt.traces.opstream import OpTrace, is_saved, load


def open_trace(path) -> OpTrace:
    """The trace set at ``path``: a folder :func:`ppt.traces.opstream.save` wrote (it holds
    ``opstream.json``), else a DUMPI set (its folder, ``.meta`` file, file prefix or a ``.bin``)."""
    if is_saved(path):
        return load(path)
    from ppt.traces.dumpi import TraceSet        # the DUMPI reader (cffi over libundumpi) only when needed
    return TraceSet(os.fspath(path))

"""Bookkeeping around every top-level MPI call: call counts, time spent, and error naming.

:func:`mpi_call` is compiled (:mod:`ppt.mpi.surface.core.fast`), where the hot point-to-point calls do the same
bookkeeping without a wrapper.
"""
from __future__ import annotations

import functools

from ppt.mpi.surface.core.fast import mpi_call


@functools.lru_cache(maxsize=None)
def as_call(name: str):
    """``call(owner, fn, args)``: ``fn(*args)`` run as the MPI call ``name`` of ``owner`` (see MPI.call_as)."""
    @mpi_call(name)
    def call(owner, fn, args):
        return fn(*args)
    return call

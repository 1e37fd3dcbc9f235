"""Bookkeeping around every top-level MPI call: call counts, time spent, and error naming."""
from __future__ import annotations

import functools


def mpi_call(name: str):
    """Decorate a method of an object with a ``_rank`` attribute as the MPI call ``name``.

    The outermost call of a rank is counted and timed (``RankStats.comm_s``);
    calls made inside it (a collective's point-to-point messages) are not.
    A rank with a CPU meter (``Rank.meter``, see :mod:`ppt.exec.meter`) is
    charged the compute time its code used before the call.
    A call on a freed communicator or group raises an MPIError.
    """
    def decorate(fn):
        @functools.wraps(fn)
        def call(self, *args, **kwargs):
            rank = self._rank
            if rank.call is not None:
                return fn(self, *args, **kwargs)
            if getattr(self, "freed", False):
                raise rank.error(f"{self} was freed; it cannot be used any more", name)
            rank.call = name
            meter = rank.meter
            if meter is not None:              # ppt exec: the program's CPU time since it left MPI is compute
                meter.stop(rank)
            clock_s = rank.clock_s
            start = clock_s()
            stats = rank.stats
            stats.calls[name] += 1
            try:
                return fn(self, *args, **kwargs)
            finally:
                stats.comm_s += clock_s() - start
                rank.call = None
                if meter is not None:
                    meter.start(rank)
        return call
    return decorate


@functools.lru_cache(maxsize=None)
def as_call(name: str):
    """``call(owner, fn, args)``: ``fn(*args)`` run as the MPI call ``name`` of ``owner`` (see MPI.call_as)."""
    @mpi_call(name)
    def call(owner, fn, args):
        return fn(*args)
    return call

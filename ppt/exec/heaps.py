"""A heap of each rank's own for its numpy arrays, as each rank of ``mpiexec`` has one in its own process.

``ppt exec`` runs every rank in one process, so without this the ranks' arrays
would share one glibc heap, grown and fragmented by the simulator and by every
rank.  A real rank in a fresh process maps fresh pages for its large
temporaries and gives them back when freed, paying a page fault per page (or
per huge page) each time; in the shared heap the same temporaries reuse pages
already mapped.  That is 20-40 % of the measured compute of a numpy program
that makes large temporaries in its loop (``benchmarks/real_programs/pi.py``:
40,550 page faults in a fresh process, 2,000 in a warm one).

:func:`own_heap` gives the calling rank (its greenlet's context) numpy's
allocator of :mod:`ppt.exec._rankheap` (``ppt/exec/rankheap.c``): glibc's
rules for its main arena with their default parameters, on an address range of
the rank's own.  On the kernels measured there (``pi``, ``halo2d``,
``compute_pi``) it makes the page faults of a fresh process to within 1 %.
Arrays a rank made keep its heap alive after the rank ends; the range is
released when the last of them is freed.
"""
from __future__ import annotations

from contextlib import contextmanager

from ppt.exec import _rankheap

#: Address range (not memory) a rank's heap may grow over, bytes: 16 GiB, less when many ranks share the
#: process's 128 TiB of addresses; a heap that outgrows it maps each further array on its own.
MOST_B, LEAST_B, ALL_RANKS_B = 16 << 30, 64 << 20, 32 << 40
#: Most ranks given heaps of their own: each takes a few of the kernel's mappings per process (65,530 by
#: default), so beyond this the ranks share the process's heap (and a heap that cannot have its range or a
#: mapping falls back to it too).
MOST_RANKS = 4096


def reserve_B(ranks: int) -> int:
    """Address range for each of ``ranks`` ranks' heaps, bytes."""
    return max(LEAST_B, min(MOST_B, ALL_RANKS_B // max(1, ranks)))


@contextmanager
def own_heap(ranks: int):
    """While inside, numpy's arrays made in the calling greenlet come from a heap of its own (one of
    ``ranks``; none beyond :data:`MOST_RANKS`)."""
    if ranks > MOST_RANKS:
        yield
        return
    previous = _rankheap.install(reserve_B(ranks))
    try:
        yield
    finally:
        _rankheap.restore(previous)

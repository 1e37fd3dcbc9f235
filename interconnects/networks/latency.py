"""Latency distributions: percentiles from the core's histograms (``core/histogram.h``).

A histogram counts values in log-linear buckets of integer picoseconds:
values below 2^SUB_BITS ps are exact, larger ones are resolved to
2^-(SUB_BITS-1) of their value (0.2 %), and the first EXACT values are kept
as they are.  :class:`Latencies` is a snapshot of one; snapshots subtract (a
window of a run) and add (simulation ranks).  Percentiles use the
nearest-rank definition (the smallest value at or below which at least q of
the values lie): exact while every value of the span is kept, else the
middle of that value's bucket, never above the known maximum.
"""
from __future__ import annotations

import math

import numpy as np

from ppt.interconnects.core import ffi, lib

SUB_BITS = lib.PPT_HIST_SUB_BITS
EXACT = lib.PPT_HIST_EXACT
#: Buckets of a histogram, read from its C type (making one to count them would free 0.75 MB at import, which
#: raises glibc's mmap threshold for every later allocation of the process, a ppt exec program's too).
BUCKETS = dict(ffi.typeof("ppt_histogram_t").fields)["count"].type.length
#: The percentiles every run reports, by result-field suffix.
QUANTILES = (("p50", 0.50), ("p99", 0.99), ("p999", 0.999))


def new_histogram():
    """An empty ``ppt_histogram_t`` (fill with ``lib.ppt_hist_add``)."""
    return ffi.new("ppt_histogram_t *")


def bucket_bounds_s(k: int) -> tuple[float, float]:
    """Latencies [lo, hi) in seconds that fall in bucket ``k``."""
    half = 1 << (SUB_BITS - 1)
    if k < 2 * half:
        return k * 1e-12, (k + 1) * 1e-12
    shift = k // half - 1
    mantissa = k - shift * half
    return (mantissa << shift) * 1e-12, ((mantissa + 1) << shift) * 1e-12


class Latencies:
    """Bucket ``counts`` of ``total`` latencies and, when all of them are known, the ``exact`` values (s).

    ``seen``: values the histogram had counted from its start when the snapshot was taken.  Merged
    ranks stay exact only while their ``seen`` add up to at most EXACT, the same rule however the
    network is split over ranks, so serial and parallel runs report the same percentiles.
    """

    __slots__ = ("counts", "total", "exact", "seen")

    def __init__(self, counts: np.ndarray, total: int, exact: np.ndarray | None, seen: int | None = None):
        self.counts, self.total, self.exact = counts, total, exact
        self.seen = total if seen is None else seen

    @classmethod
    def of(cls, histogram) -> "Latencies":
        """A snapshot of a ``ppt_histogram_t`` (exact while it has kept every value)."""
        total = int(histogram.total)
        exact = None
        if total <= EXACT:
            exact = np.frombuffer(ffi.buffer(histogram.first), dtype=np.float64)[:total].copy()
        counts = np.frombuffer(ffi.buffer(histogram.count), dtype=np.int64).copy()
        return cls(counts, total, exact)

    def since(self, earlier: "Latencies") -> "Latencies":
        """The values counted after ``earlier`` (a snapshot of the same histogram)."""
        exact = None if self.exact is None else self.exact[earlier.total:]
        return Latencies(self.counts - earlier.counts, self.total - earlier.total, exact, self.seen)

    def wire(self) -> tuple:
        """A compact picklable form (non-zero buckets only) for gathering over ranks."""
        nz = np.nonzero(self.counts)[0]
        return (nz, self.counts[nz], self.total, self.exact, self.seen)

    @staticmethod
    def merge(parts: list[tuple]) -> "Latencies":
        """The sum of ranks' :meth:`wire` forms."""
        counts = np.zeros(BUCKETS, dtype=np.int64)
        for index, values, *_ in parts:
            counts[index] += values
        seen = sum(p[4] for p in parts)
        exact = None
        if seen <= EXACT:
            exact = np.concatenate([p[3] for p in parts]) if parts else np.zeros(0)
        return Latencies(counts, sum(p[2] for p in parts), exact, seen)

    def percentile_s(self, q: float, max_s: float = math.inf) -> float:
        """Nearest-rank ``q`` quantile (0 < q <= 1), s (0.0 when empty)."""
        if not self.total:
            return 0.0
        rank = max(1, math.ceil(q * self.total))
        if self.exact is not None:
            return float(np.partition(self.exact, rank - 1)[rank - 1])
        k = int(np.searchsorted(np.cumsum(self.counts), rank))
        lo, hi = bucket_bounds_s(k)
        value = lo if hi - lo <= 1e-12 else 0.5 * (lo + hi)
        return min(value, max_s)

    def summary(self, prefix: str, max_s: float = math.inf) -> dict:
        """``{prefix}_p50_s``, ``_p99_s``, ``_p999_s``."""
        return {f"{prefix}_{name}_s": self.percentile_s(q, max_s) for name, q in QUANTILES}

"""Latency distributions: percentiles read from the core's log-linear histograms (``csrc/observe.h``).

A histogram is an array of counts per bucket of integer picoseconds: values
below 2^SUB_BITS ps are exact, larger ones are resolved to 2^-(SUB_BITS-1)
of their value (0.2 %).  Histograms of several ranks or windows add and
subtract as arrays.  Percentiles use the nearest-rank definition (the
smallest value at or below which at least q of the samples lie) and report
the middle of that value's bucket, never more than the known maximum.
"""
from __future__ import annotations

import math

import numpy as np

from ppt.interconnects.packetcore import ffi, lib

SUB_BITS = lib.PPT_HIST_SUB_BITS
BUCKETS = ffi.sizeof("ppt_histogram_t") // 8
#: The percentiles every run reports, by result-field suffix.
QUANTILES = (("p50", 0.50), ("p99", 0.99), ("p999", 0.999))


def counts(histogram) -> np.ndarray:
    """A copy of a ``ppt_histogram_t``'s counts as an int64 array."""
    return np.frombuffer(ffi.buffer(histogram), dtype=np.int64).copy()


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


def percentile_s(hist: np.ndarray, q: float, max_s: float = math.inf) -> float:
    """Nearest-rank ``q`` quantile (0 < q <= 1) of a histogram, in seconds (0.0 when empty)."""
    total = int(hist.sum())
    if not total:
        return 0.0
    rank = max(1, math.ceil(q * total))
    k = int(np.searchsorted(np.cumsum(hist), rank))
    lo, hi = bucket_bounds_s(k)
    value = lo if hi - lo <= 1e-12 else 0.5 * (lo + hi)
    return min(value, max_s)


def summary(hist: np.ndarray, prefix: str, max_s: float = math.inf) -> dict:
    """``{prefix}_p50_s``, ``_p99_s``, ``_p999_s`` of a histogram."""
    return {f"{prefix}_{name}_s": percentile_s(hist, q, max_s) for name, q in QUANTILES}


def to_sparse(hist: np.ndarray) -> dict[int, int]:
    """Non-zero buckets only (for gathering over simulation ranks)."""
    nz = np.nonzero(hist)[0]
    return dict(zip(nz.tolist(), hist[nz].tolist()))


def from_sparse(parts: list[dict[int, int]]) -> np.ndarray:
    """The sum of sparse histograms as a dense array."""
    hist = np.zeros(BUCKETS, dtype=np.int64)
    for part in parts:
        for k, n in part.items():
            hist[k] += n
    return hist

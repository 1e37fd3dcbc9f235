"""Piecewise-linear fit of a ping-pong curve, its segment boundaries found from the data.

As SimGrid calibrates SMPI, a host's point-to-point time is described by
segments of message sizes, each with its own line ``t(n) = latency + n /
bandwidth``: the eager protocol, the rendezvous protocol, and a regime of
large messages that a shared-memory transport pipelines (faster per byte).
:func:`fit_segments` chooses, among the measured sizes, the breakpoints that
minimise the sum of squared *relative* errors of independent lines (each size
counts alike, 8 bytes as much as 8 MiB), for 1 to ``max_segments`` segments
of at least ``min_sizes`` sizes each (dynamic programming over the sorted
sizes).  It keeps the number of segments ``k`` that minimises
``N ln(E_k / N) + SEGMENT_COST k ln N`` (``E_k`` the squared error sum of the
best ``k`` segments over ``N`` sizes): a Bayesian information criterion
whose price per segment is twice its three parameters (latency, slope,
breakpoint), so a segment more must cut the squared error by a factor
``N^(6/N)`` (2.4 on 21 sizes); with the plain criterion, 3 % noise on
synthetic three-segment curves split the flat small-message segment in one
run of three.  Errors below :data:`PRECISION` count as that much, so exact
data does not ask for segments that cannot improve on it.

Each line is a weighted least-squares fit with a latency and a slope of at
least 0 (a flat segment, e.g. small messages whose time does not grow with
their size, has no bandwidth: ``bandwidth_Bps`` None).
"""
from __future__ import annotations

import math

import numpy as np

#: Price of one segment in the information criterion, in units of ln N (see the module docstring).
SEGMENT_COST = 6.0
#: Relative rms error below which a fit counts as exact (timer resolution and rounding of the measurement).
PRECISION = 0.002


def fit_line(sizes, times_s) -> tuple[float, float, float]:
    """``(latency_s, seconds_per_byte, squared relative error sum)`` of the best line with both
    coefficients >= 0 through one-way times ``times_s`` (s) of ``sizes`` (bytes)."""
    n = np.asarray(sizes, dtype=float)
    t = np.asarray(times_s, dtype=float)
    w = 1.0 / t
    candidates = []
    coef, *_ = np.linalg.lstsq(np.column_stack([w, n * w]), np.ones_like(t), rcond=None)
    if coef[0] >= 0 and coef[1] >= 0:
        candidates.append((float(coef[0]), float(coef[1])))
    candidates.append((float(np.sum(w) / np.sum(w * w)), 0.0))                 # flat: latency only
    if np.any(n > 0):
        candidates.append((0.0, float(np.sum(n * w) / np.sum((n * w) ** 2))))  # through the origin
    best = None
    for latency, slope in candidates:
        err = float(np.sum(((latency + slope * n) * w - 1.0) ** 2))
        if best is None or err < best[2]:
            best = (latency, slope, err)
    return best


def fit_segments(sizes, times_s, max_segments: int = 4, min_sizes: int = 3) -> dict:
    """Segments of the curve ``times_s`` (s) over ``sizes`` (bytes), see the module docstring:
    ``{"segments": [{"from_B", "to_B", "sizes", "latency_s", "bandwidth_Bps", "rms_relative_error"}, ...],
    "rms_relative_error": ...}``, the segments in order of size."""
    order = np.argsort(np.asarray(sizes, dtype=float))
    n = np.asarray(sizes, dtype=float)[order]
    t = np.asarray(times_s, dtype=float)[order]
    count = len(n)
    if count < min_sizes or not np.all(t > 0):
        raise ValueError(f"a segment fit needs at least {min_sizes} sizes with positive times")
    cost = np.full((count, count), math.inf)            # cost[i, j]: one line through sizes i..j
    for i in range(count):
        for j in range(i + min_sizes - 1, count):
            cost[i, j] = fit_line(n[i:j + 1], t[i:j + 1])[2]
    # best[k][j]: least error of k + 1 segments covering sizes 0..j; start[k][j]: where the last one starts
    best = [cost[0].copy()]
    start = [np.zeros(count, dtype=int)]
    for k in range(1, min(max_segments, count // min_sizes)):
        row, begin = np.full(count, math.inf), np.zeros(count, dtype=int)
        for j in range(count):
            for i in range(k * min_sizes, j - min_sizes + 2):
                err = best[k - 1][i - 1] + cost[i, j]
                if err < row[j]:
                    row[j], begin[j] = err, i
        best.append(row)
        start.append(begin)
    floor = count * PRECISION ** 2
    score = [count * math.log(max(b[-1], floor) / count) + SEGMENT_COST * (k + 1) * math.log(count)
             for k, b in enumerate(best)]
    k = int(np.argmin(score))
    bounds, j = [], count - 1
    for level in range(k, -1, -1):
        i = int(start[level][j])
        bounds.append((i, j))
        j = i - 1
    segments = []
    for i, j in reversed(bounds):
        latency, slope, err = fit_line(n[i:j + 1], t[i:j + 1])
        segments.append({"from_B": int(n[i]), "to_B": int(n[j]), "sizes": j - i + 1, "latency_s": latency,
                         "bandwidth_Bps": 1.0 / slope if slope > 0 else None,
                         "rms_relative_error": math.sqrt(err / (j - i + 1))})
    return {"segments": segments, "rms_relative_error": math.sqrt(best[k][-1] / count)}


def segment_of(segments: list[dict], nbytes: int) -> int:
    """Index of the segment whose sizes span ``nbytes`` (between two segments: the next one)."""
    for index, segment in enumerate(segments):
        if nbytes <= segment["to_B"]:
            return index
    return len(segments) - 1


def line_time_s(segment: dict, nbytes: int) -> float:
    """One-way time of ``nbytes`` on ``segment``'s line, s."""
    bandwidth = segment["bandwidth_Bps"]
    return segment["latency_s"] + (nbytes / bandwidth if bandwidth else 0.0)

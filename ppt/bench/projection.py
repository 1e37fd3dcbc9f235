"""Speed-up of a parallel run on K simulation ranks of a cluster, projected from a measured run.

The model (docs/parallel.md)::

    T(K) = T0 + W * I(K) / K + N * (c + a * ceil(log2 K) + X(K) / (K * b))

``W``: the serial window loop's time, s; ``N``: windows; ``I(K)``: the largest block's work over the
mean; ``X(K)``: bytes crossing between blocks per window (all ranks); ``c``: one rank's Python cost per
window, s; ``a``: latency of one stage of the window's collective, s; ``b``: bytes/s a rank moves;
``T0``: start-up, s.  Assumed: the work per event does not depend on K (no cache gains), the traffic is
spread evenly over the links so the crossing bytes follow the cut share, and the collective costs one
latency per doubling of K plus its bytes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

#: One stage of a small collective on an HPC interconnect (InfiniBand EDR/HDR, Aries), s.
STAGE_LATENCY_S = 3e-6
#: Bytes/s one rank moves through the interconnect (a 100 Gb/s link, a quarter of it for each rank of a
#: four-rank-per-node layout), B/s.
RANK_BANDWIDTH_BPS = 12.5e9 / 4


@dataclass(frozen=True)
class Workload:
    """A measured run: serial loop ``loop_s``, ``windows``, crossing ``bytes_per_window`` at ``cut_share``
    (the share of links cut where the bytes were measured), one rank's Python ``window_cost_s`` and
    ``startup_s``."""

    loop_s: float
    windows: int
    bytes_per_window: float
    cut_share: float
    window_cost_s: float
    startup_s: float


def parallel_s(w: Workload, ranks: int, imbalance: float, cut_share: float,
               stage_s: float = STAGE_LATENCY_S, bandwidth_Bps: float = RANK_BANDWIDTH_BPS) -> float:
    """Projected wall time, s, on ``ranks`` simulation ranks whose blocks have ``imbalance`` and ``cut_share``."""
    crossing_B = w.bytes_per_window * cut_share / w.cut_share
    per_window = w.window_cost_s + stage_s * math.ceil(math.log2(ranks)) + crossing_B / (ranks * bandwidth_Bps)
    return w.startup_s + w.loop_s * imbalance / ranks + w.windows * per_window


def speedup(w: Workload, ranks: int, imbalance: float, cut_share: float, **network) -> float:
    """Projected serial time over parallel time on ``ranks`` ranks."""
    return (w.startup_s + w.loop_s) / parallel_s(w, ranks, imbalance, cut_share, **network)

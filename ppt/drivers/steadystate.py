"""Is a traffic run saturated, or has its measurement converged?  Decided window by window.

The measurement window of ``ppt traffic`` is split into equal sub-windows.
After each, :class:`WindowMonitor` gets what the window delivered and says
whether to go on:

* **saturated** -- the network cannot carry the offered load: over the last
  ``patience`` windows (the caller makes them outlast a crossing of the idle
  network, so a network still filling its pipeline is not taken for one
  that is full) the deliveries per window stayed level (a network
  still filling after too short a warm-up delivers more each window) while
  either the backlog (packets the sources created but the network has not
  delivered) grew in every window by more than ``growth`` of the packets
  offered in a window, or the window's mean latency rose every window and
  ended above ``latency_factor`` times the first window's.  The latency rule
  needs the first window's latency to be no longer than the warm-up:
  otherwise that window saw a network still filling, whose latency rises
  anyway.  "More than" and
  "level" both allow four standard deviations of a Poisson count of the
  offered size, so small networks are not fooled by chance.
* **converged** (only with ``precision``) -- the batch means of the windows'
  accepted load and mean latency have 95 % confidence half-widths below
  ``precision`` times their means, after at least ``min_windows`` windows.

The sources create packets lazily, so the core does not count arrivals still
waiting at a busy source; the backlog counts the expected arrivals
(``offered_packets`` per window, from the offered load) minus deliveries.
Everything is computed from counters, so the decision is deterministic.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

#: Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom (1.96 beyond).
T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
       2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
       2.045, 2.042)

SATURATED, CONVERGED = "saturated", "converged"


@dataclass
class Window:
    """What one sub-window measured: ``delivered`` packets, their ``mean_latency_s``, and the
    ``accepted_fraction`` of the nodes' injection bandwidth they carried."""

    delivered: int
    mean_latency_s: float
    accepted_fraction: float


def half_width(values: list[float]) -> float:
    """95 % confidence half-width of the mean of ``values`` (independent batch means)."""
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return (T95[n - 2] if n - 1 <= len(T95) else 1.96) * sd / math.sqrt(n)


class WindowMonitor:
    """Reads sub-windows in order; :meth:`add` returns SATURATED, CONVERGED or None (go on)."""

    def __init__(self, offered_packets: float, warmup_s: float, patience: int = 3, growth: float = 0.05,
                 latency_factor: float = 2.0, precision: float | None = None, min_windows: int = 5):
        self.offered_packets = offered_packets
        self.warmup_s = warmup_s
        self.patience = patience
        self.latency_factor = latency_factor
        self.precision = precision
        self.min_windows = max(min_windows, 2)
        #: Backlog growth (packets per window) above which a window counts as piling up.
        self.growth_limit = max(growth * offered_packets, 4.0 * math.sqrt(offered_packets))
        self.windows: list[Window] = []
        self.growing = 0
        self.reason = ""

    def add(self, window: Window) -> str | None:
        self.windows.append(window)
        growth = self.offered_packets - window.delivered
        self.growing = self.growing + 1 if growth > self.growth_limit else 0
        recent = [w.delivered for w in self.windows[-self.patience:]]
        level = len(recent) == self.patience and max(recent) - min(recent) <= self.growth_limit
        if level and self.growing >= self.patience:
            self.reason = (f"the source backlog grew in each of the last {self.patience} windows, by {growth:,.0f} "
                           f"packets in the last (the sources offer {self.offered_packets:,.0f} per window)")
            return SATURATED
        if level and self._latency_runaway():
            latencies = [w.mean_latency_s for w in self.windows]
            self.reason = (f"mean latency rose for {self.patience} windows in a row, to {latencies[-1] * 1e6:.3g} us, "
                           f"over {self.latency_factor:g} x the first window's {latencies[0] * 1e6:.3g} us")
            return SATURATED
        if self.precision is not None and len(self.windows) >= self.min_windows and self._converged():
            self.reason = (f"accepted load and mean latency are known to within {self.precision:.3g} of their means "
                           f"(95 % confidence) after {len(self.windows)} windows")
            return CONVERGED
        return None

    def _latency_runaway(self) -> bool:
        recent = [w.mean_latency_s for w in self.windows[-self.patience - 1:]]
        first = self.windows[0].mean_latency_s
        return (len(recent) == self.patience + 1 and 0.0 < first <= self.warmup_s
                and all(b > a for a, b in zip(recent, recent[1:])) and recent[-1] > self.latency_factor * first)

    def _converged(self) -> bool:
        for values in ([w.accepted_fraction for w in self.windows], [w.mean_latency_s for w in self.windows]):
            mean = sum(values) / len(values)
            if mean <= 0.0 or half_width(values) > self.precision * mean:
                return False
        return True

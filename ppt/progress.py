"""Progress of long runs on stderr: simulated time and events per second."""
from __future__ import annotations

import os
import sys
import time


class Progress:
    """A ``Simulation.progress`` hook printing at most every ``interval_s`` wall seconds.

    Prints nothing when ``PPT_QUIET`` is set or on simulation ranks other than 0.
    """

    def __init__(self, label: str, interval_s: float = 2.0, stream=None):
        self.label = label
        self.interval_s = interval_s
        self.stream = stream or sys.stderr
        self.began = self.last = time.perf_counter()
        self.enabled = not os.environ.get("PPT_QUIET")
        self.shown = False
        self._sim = None

    def __call__(self, sim) -> None:
        wall = time.perf_counter()
        if sim is not self._sim:          # a new simulation (e.g. the next point of a sweep)
            self._sim = sim
            self.began = self.last = wall
            return                        # no rate from an instant: wait for a full interval
        if not self.enabled or sim.rank != 0 or wall - self.last < self.interval_s:
            return
        self.last = wall
        rate = sim.events / max(wall - self.began, 1e-9)
        self.note(f"simulated {sim.now * 1e6:,.1f} us, {sim.events:,} events, {rate:,.0f} events/s")

    def note(self, text: str) -> None:
        """One progress line (overwritten in place on a terminal)."""
        if not self.enabled:
            return
        if self.stream.isatty():
            self.stream.write(f"\r{self.label}: {text}\x1b[K")
        else:
            self.stream.write(f"{self.label}: {text}\n")
        self.stream.flush()
        self.shown = True

    def done(self) -> None:
        if self.shown and self.stream.isatty():
            self.stream.write("\n")


class PointProgress:
    """A bar on stderr counting the finished points of a sweep (silent with ``PPT_QUIET``).

    Points a traffic run found saturated get a line of their own above the bar.
    """

    def __init__(self, label: str = "sweep"):
        self.label = label
        self.bar = None

    def start(self, total: int, done: int = 0) -> None:
        from tqdm import tqdm
        self.bar = tqdm(total=total, initial=done, desc=self.label, unit="point", file=sys.stderr,
                        disable=bool(os.environ.get("PPT_QUIET")), dynamic_ncols=True)

    def advance(self, point, result: dict) -> None:
        if result.get("saturated") and not self.bar.disable:
            self.bar.write(f"{self.label}: {point.label()}: saturated after {result['measured_s'] * 1e6:.3g} us",
                           file=sys.stderr)
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()

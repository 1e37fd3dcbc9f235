"""Progress of long runs: a bar on stderr with a total and an ETA where one is known.

A run shows nothing for its first interval (``PPT_PROGRESS_INTERVAL`` seconds of wall
time, default 0.5), so short runs stay silent; after that the bar is redrawn at most
once per interval.  ``PPT_QUIET`` silences it; under ``mpiexec`` only simulation rank 0
draws.  Progress never goes to stdout, which holds the results.

The bar counts whatever tells how far a run is:

* ``total_s``: simulated time towards a known end (``ppt traffic``: warm-up + window);
* ``ranks=True``: ranks finished out of the ranks started (``ppt run``, ``exec``, ``snap``;
  under ``mpiexec``, those of simulation process 0);
* :meth:`Progress.count`: items done out of a total given by the caller (``ppt replay``:
  trace records over all ranks);
* neither: simulated time, with no total (the bar says so).

The rate (events/s) and the simulated time are in the bar's postfix.
"""
from __future__ import annotations

import math
import os
import sys
import time

#: Wall seconds between redraws unless ``PPT_PROGRESS_INTERVAL`` says otherwise.
DEFAULT_INTERVAL_S = 0.5


def default_interval() -> float:
    """``PPT_PROGRESS_INTERVAL`` (seconds, e.g. 0 in tests) or :data:`DEFAULT_INTERVAL_S`."""
    text = os.environ.get("PPT_PROGRESS_INTERVAL")
    try:
        return max(0.0, float(text)) if text else DEFAULT_INTERVAL_S
    except ValueError:
        return DEFAULT_INTERVAL_S


def quiet() -> bool:
    return bool(os.environ.get("PPT_QUIET"))


def sim_time(seconds: float) -> str:
    """Simulated time in the unit that suits it (ns, us, ms or s)."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if abs(seconds) >= scale:
            return f"{seconds / scale:,.3g} {unit}"
    return f"{seconds * 1e9:,.3g} ns"


class Progress:
    """A ``Simulation.progress`` hook drawing a tqdm bar on stderr at most every ``interval_s`` wall seconds.

    ``total_s``: the simulated time the run ends at (the bar then counts simulated microseconds);
    ``ranks``: count the simulation's processes (MPI ranks) finished instead.  One object may serve
    several simulations in turn (the points of ``ppt snap``): each new one starts a new bar.
    """

    def __init__(self, label: str, interval_s: float | None = None, stream=None, total_s: float | None = None,
                 ranks: bool = False):
        self.label = label
        self.interval_s = default_interval() if interval_s is None else interval_s
        self.stream = stream or sys.stderr     # the real stderr, even when a run redirects sys.stderr
        self.total_s = total_s
        self.ranks = ranks
        self.enabled = not quiet()
        self.began = self.last = time.perf_counter()
        self.bar = None
        self._sim = None
        self._started = 0
        self._events = 0

    # -- the simulation's hook -------------------------------------------------------------
    def __call__(self, sim) -> None:
        wall = time.perf_counter()
        if sim is not self._sim:          # a new simulation (e.g. the next core count of ppt snap)
            self.close()
            self._sim = sim
            self._started = len(sim.processes) if self.ranks else 0
            self._events = sim.events         # the rate counts from here, as the wall time does
            self.began = self.last = wall
            return                        # no rate from an instant: wait for a full interval
        if not self.enabled or sim.rank != 0 or wall - self.last < self.interval_s:
            return
        self.last = wall
        rate = f"{(sim.events - self._events) / max(wall - self.began, 1e-9):,.0f} events/s"
        postfix = f"simulated {sim_time(sim.now)}, {rate}"
        if self.ranks:
            live = len(sim.processes)
            self._started = max(self._started, live)
            whose = " of process 0" if sim.size > 1 else ""
            self.show(self._started - live, self._started, f"ranks finished{whose}", postfix)
        elif self.total_s:
            self.show(sim.now * 1e6, self.total_s * 1e6, "us simulated", postfix, digits=2)
        else:
            self.show(sim.now * 1e6, None, "us simulated", rate, digits=2)

    def count(self, done: float, total: float, now_s: float | None, unit: str = "done", sim=None,
              postfix: str | None = None) -> None:
        """Show ``done`` of ``total`` (``unit``, e.g. records) at simulated time ``now_s`` (or with
        ``postfix``), if an interval has passed since the last redraw; ``sim`` adds the event rate."""
        wall = time.perf_counter()
        if not self.enabled or wall - self.last < self.interval_s or (sim is not None and sim.rank != 0):
            return
        self.last = wall
        postfix = postfix or f"simulated {sim_time(now_s)}"
        if sim is not None:
            postfix += f", {sim.events / max(wall - self.began, 1e-9):,.0f} events/s"
        self.show(done, total, unit, postfix)

    # -- drawing -----------------------------------------------------------------------------
    def show(self, n: float, total: float | None, unit: str, postfix: str, digits: int = 0) -> None:
        """Redraw the bar at ``n`` of ``total`` (None: no total known, said in the bar)."""
        if not self.enabled:
            return
        if self.bar is None:
            from tqdm import tqdm
            number = f"{{n:,.{digits}f}}"
            if total:
                form = (f"{{desc}}: {{percentage:3.0f}}%|{{bar}}| {number}/{{total:,.{digits}f}} {unit} "
                        "[{elapsed}<{remaining}{postfix}]")
            else:
                form = f"{{desc}}: {number} {unit} (no total known) [{{elapsed}}{{postfix}}]"
            self.bar = tqdm(total=total or None, initial=n, desc=self.label, file=self.stream,
                            bar_format=form, dynamic_ncols=True, mininterval=0, miniters=0, leave=True)
            began = time.time() - (time.perf_counter() - self.began)    # tqdm's clock is time.time
            self.bar.start_t = self.bar.last_print_t = began              # elapsed and ETA from the run's start
            self.bar.set_postfix_str(postfix, refresh=True)
            return
        if total and total != self.bar.total:
            self.bar.total = total
        self.bar.set_postfix_str(postfix, refresh=False)
        self.bar.update(n - self.bar.n)

    def note(self, text: str) -> None:
        """A line of its own on stderr, above the bar (silent with ``PPT_QUIET``)."""
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.write(f"{self.label}: {text}", file=self.stream)
        else:
            print(f"{self.label}: {text}", file=self.stream, flush=True)

    def close(self) -> None:
        """End the current bar, if one is drawn (the next report starts a new one)."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def done(self) -> None:
        """End the bar at the state the run ended in (the last redraw may be up to an interval old)."""
        sim = self._sim
        if self.bar is not None and sim is not None and not self.ranks and self.total_s:
            self.bar.update(min(sim.now * 1e6, self.bar.total or math.inf) - self.bar.n)
        elif self.bar is not None and sim is not None and self.ranks:
            self.bar.update(self._started - len(sim.processes) - self.bar.n)
        self.close()


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
                        disable=quiet(), dynamic_ncols=True)

    def advance(self, point, result: dict) -> None:
        if result.get("saturated") and not self.bar.disable:
            self.bar.write(f"{self.label}: {point.label()}: saturated after {result['measured_s'] * 1e6:.3g} us",
                           file=sys.stderr)
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()

"""Progress of long runs on stderr: a bar on a terminal, plain lines in a log.

A run shows nothing for its first interval (``PPT_PROGRESS_INTERVAL`` seconds of wall
time, default 0.5), so short runs stay silent; after that a terminal's bar is redrawn at
most once per interval.  When stderr is not a terminal (a batch job's log, a pipe) there
is no bar and no carriage return: one plain line at most every ``PPT_PROGRESS_LOG_INTERVAL``
seconds (default 10), the first after that long, and a last one when the run ends.
``PPT_QUIET`` silences both; under ``mpiexec`` only simulation rank 0 reports.  Progress
never goes to stdout, which holds the results.

What is counted:

* ``total_s``: simulated time towards a known end (``ppt traffic``: warm-up + window), with an ETA; the
  driver says what time the run has reached and where it ends (:meth:`Progress.reached`), which the last
  event's time lags and an early stop brings forward;
* ``ranks=True`` (``ppt run``, ``exec``, ``snap``): no end is known in advance, so the line gives
  the simulated time, the events executed and their rate, and the ranks finished so far;
  :meth:`Progress.points` adds a bar over several points (``ppt snap``) whose ETA is the
  whole run's, from the points finished (weighted by their rank counts);
* :meth:`Progress.count`: items done out of a total given by the caller (``ppt replay``:
  trace records over all ranks);
* otherwise: the simulated time and the event rate, with no total.

ETAs are the whole run's average rate applied to what is left, not the last interval's.
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
import time

from ppt.terminal import bar_columns, fit_terminal, is_terminal

#: Wall seconds between redraws of a terminal's bar unless ``PPT_PROGRESS_INTERVAL`` says otherwise.
DEFAULT_INTERVAL_S = 0.5
#: Wall seconds between plain lines when stderr is not a terminal unless ``PPT_PROGRESS_LOG_INTERVAL`` says otherwise.
DEFAULT_LOG_INTERVAL_S = 10.0
#: Wall seconds without a call of the hook after which a run of ranks says a rank is running its own code,
#: unless ``PPT_PROGRESS_STALL`` says otherwise.
DEFAULT_STALL_S = 30.0


def _seconds_from(variable: str, default: float) -> float:
    text = os.environ.get(variable)
    try:
        return max(0.0, float(text)) if text else default
    except ValueError:
        return default


def default_interval() -> float:
    """``PPT_PROGRESS_INTERVAL`` (seconds, e.g. 0 in tests) or :data:`DEFAULT_INTERVAL_S`."""
    return _seconds_from("PPT_PROGRESS_INTERVAL", DEFAULT_INTERVAL_S)


def log_interval() -> float:
    """``PPT_PROGRESS_LOG_INTERVAL`` (seconds) or :data:`DEFAULT_LOG_INTERVAL_S`."""
    return _seconds_from("PPT_PROGRESS_LOG_INTERVAL", DEFAULT_LOG_INTERVAL_S)


def stall_interval() -> float:
    """``PPT_PROGRESS_STALL`` (seconds) or :data:`DEFAULT_STALL_S`."""
    return _seconds_from("PPT_PROGRESS_STALL", DEFAULT_STALL_S)


def quiet() -> bool:
    return bool(os.environ.get("PPT_QUIET"))


#: Columns a terminal's bar keeps for itself before its line drops the rates.
LEAST_BAR = 10


def sim_time(seconds: float) -> str:
    """Simulated time in the unit that suits it (ns, us, ms or s), 4 significant digits."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if abs(seconds) >= scale:
            return f"{seconds / scale:,.4g} {unit}"
    return f"{seconds * 1e9:,.4g} ns"


def clock(seconds: float) -> str:
    """Wall seconds as ``m:ss`` or ``h:mm:ss``."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Line:
    """One progress report on a stream: a tqdm bar on a terminal, else a plain line at most every
    :func:`log_interval` seconds (none before the first has passed), timed from ``began``
    (a ``time.perf_counter`` reading)."""

    def __init__(self, label: str, stream, began: float, initial: float = 0):
        self.label = label
        self.initial = initial            # done before ``began`` (points a sweep resumes): not in the rate
        self.stream = stream
        self.began = began
        self.tty = is_terminal(stream)
        self.bar = None
        self.logged = began               # the first plain line after a whole log interval
        self.every = log_interval()
        self.last_text = self.written = None

    def show(self, n: float | None, total: float | None, unit: str, postfix: str, digits: int = 0) -> None:
        """``n`` of ``total`` ``unit`` (with an ETA), or only ``postfix`` when ``n`` is None."""
        if self.tty:
            self._draw(n, total, unit, postfix, digits)
            return
        self.last_text = self._text(n, total, unit, postfix, digits)
        wall = time.perf_counter()
        if wall - self.logged >= self.every:
            self.logged = wall
            self._write(self.last_text)

    def _text(self, n, total, unit, postfix, digits) -> str:
        elapsed = time.perf_counter() - self.began
        if n is None:
            return f"{self.label}: {postfix} [{clock(elapsed)}]"
        done = f"{n:,.{digits}f}"
        if not total:
            return f"{self.label}: {done} {unit}, {postfix} [{clock(elapsed)}]"
        left = f"{clock(elapsed * (total - n) / (n - self.initial))} left" if n > self.initial else "time left unknown"
        return (f"{self.label}: {done}/{total:,.{digits}f} {unit} ({100 * n / total:.0f}%), {postfix} "
                f"[{clock(elapsed)}, {left}]")

    def _write(self, text: str) -> None:
        self.written = text
        print(text, file=self.stream, flush=True)

    def finish(self, n: float | None, total: float | None, unit: str, postfix: str, digits: int = 0) -> None:
        """Report the state the run ended in, if anything was reported before (short runs stay silent)."""
        if self.bar is not None:
            self._draw(n, total, unit, postfix, digits)
        elif not self.tty and self.written is not None:
            self.last_text = self._text(n, total, unit, postfix, digits)

    def _draw(self, n, total, unit, postfix, digits) -> None:
        if self.bar is None:
            from tqdm import tqdm
            number = f"{{n:,.{digits}f}}"
            if n is None:
                form = "{desc} [{elapsed}]"          # the status is the description: no ', ' before it
            elif total:
                form = (f"{{desc}}: {{percentage:3.0f}}%|{{bar}}| {number}/{{total:,.{digits}f}} {unit} "
                        "[{elapsed}<{remaining}{postfix}]")
            else:
                form = f"{{desc}}: {number} {unit} [{{elapsed}}{{postfix}}]"
            self.bar = tqdm(total=total or None, initial=self.initial, desc=self.label, file=self.stream,
                            bar_format=form, dynamic_ncols=True, mininterval=0, miniters=0, leave=True,
                            smoothing=0)     # the ETA from the whole run's rate
            began = time.time() - (time.perf_counter() - self.began)    # tqdm's clock is time.time
            self.bar.start_t = self.bar.last_print_t = began              # elapsed and ETA from the run's start
        if total and total != self.bar.total:
            self.bar.total = total
        if n is None:
            self.bar.set_description_str(self._fitted(f"{self.label}: {postfix}", "prefix"), refresh=False)
        else:
            self.bar.set_postfix_str(self._fitted(postfix, "postfix", n), refresh=False)
        if n is not None and n != self.bar.n:
            self.bar.update(n - self.bar.n)
        else:
            self.bar.refresh()

    def _fitted(self, text: str, field: str, n: float | None = None) -> str:
        """``text`` (the bar's ``field``: its prefix or postfix, parts joined by ", ") as much of it as fits
        the terminal's line with a bar of at least :data:`LEAST_BAR` columns: without its rates ("...
        events/s") first, then without its last parts (tqdm would cut the line at its end, mid-number)."""
        columns = bar_columns(self.stream)
        bar = self.bar
        def width(candidate: str) -> int:
            fields = {**bar.format_dict, field: candidate, "ncols": None}
            if n is not None:
                fields["n"] = n
            return len(bar.format_meter(**fields)) - (10 - LEAST_BAR if "{bar}" in (bar.bar_format or "") else 0)
        if width(text) <= columns:
            return text
        parts = [part for part in text.split(", ") if not part.endswith("/s")]
        keep = 1 if field == "prefix" else 0          # the prefix's first part is the label and status
        while len(parts) > keep and width(", ".join(parts)) > columns:
            parts.pop()                               # then the last parts, until the bar has its room
        return ", ".join(parts)

    def note(self, text: str) -> None:
        """A line of its own, above a terminal's bar (wrapped to the terminal's width)."""
        text = fit_terminal(f"{self.label}: {text}", self.stream)
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            self._write(text)

    def close(self) -> None:
        """End the report: a terminal's bar stays as drawn; a log gets the last state if it had a line."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        elif not self.tty and self.written is not None and self.last_text not in (None, self.written):
            self._write(self.last_text)
        self.last_text = None


class Progress:
    """A ``Simulation.progress`` hook reporting on stderr at most every ``interval_s`` wall seconds.

    ``total_s``: the simulated time the run ends at (the bar then counts simulated microseconds);
    ``ranks``: the simulation's processes (MPI ranks) finished are part of the report; ``watch_stalls``:
    a thread says when the hook has not been called for a while (see :meth:`_watch_stalls`).  One object
    may serve several simulations in turn (the points of ``ppt snap``): its clock runs from its own
    creation, and :meth:`points` says how far the whole run is.
    """

    def __init__(self, label: str, interval_s: float | None = None, stream=None, total_s: float | None = None,
                 ranks: bool = False, watch_stalls: bool = False):
        self.label = label
        self.interval_s = default_interval() if interval_s is None else interval_s
        self.stream = stream or sys.stderr     # the real stderr, even when a run redirects sys.stderr
        self.total_s = total_s
        self.ranks = ranks
        self.enabled = not quiet()
        self.began = self.last = time.perf_counter()
        self.line = Line(label, self.stream, self.began)
        self.across = None
        self._sim = None
        #: Simulated seconds the run has reached as its driver says (:meth:`reached`), which ``sim.now``, the
        #: time of the last event run, may lag by up to a whole window of the packet core's events.
        self.reached_s = 0.0
        self._sim_began = self.began
        self._started = 0
        self._events = 0
        self.beat = self.began            # the hook's last call: the simulation advances between MPI calls
        self._stop = threading.Event()
        if watch_stalls and self.enabled:
            threading.Thread(target=self._watch_stalls, name="ppt-progress-stall", daemon=True).start()

    # -- the simulation's hook -------------------------------------------------------------
    def __call__(self, sim) -> None:
        wall = self.beat = time.perf_counter()
        if sim is not self._sim:          # a new simulation (e.g. the next core count of ppt snap)
            self._sim = sim
            self._started = len(sim.processes) if self.ranks else 0
            self._events = sim.events         # the rate counts from here
            self._sim_began = wall
            return                        # no rate from an instant: wait for a full interval
        if not self.enabled or sim.rank != 0 or wall - self.last < self.interval_s:
            return
        self.last = wall
        self.show(*self._state(sim, wall))

    def _state(self, sim, wall: float) -> tuple:
        """``(n, total, unit, postfix, digits)`` of :meth:`show` for ``sim`` at wall time ``wall``."""
        rate = f"{(sim.events - self._events) / max(wall - self._sim_began, 1e-9):,.0f} events/s"
        if self.total_s:
            now_s = min(max(sim.now, self.reached_s), self.total_s)
            return now_s * 1e6, self.total_s * 1e6, "us simulated", rate, 2
        status = f"{sim_time(sim.now)} simulated, {sim.events:,} events, {rate}"
        if self.across:                   # the point's own state beside the whole run's bar
            return (*self.across, f"this point {status}", 0)
        if self.ranks:
            live = len(sim.processes)
            self._started = max(self._started, live)
            whose = " of process 0" if sim.size > 1 else ""
            status += f", {self._started - live}/{self._started} ranks done{whose}"
        return None, None, "", status, 0

    def _watch_stalls(self) -> None:
        """While the run lasts, say every :func:`stall_interval` seconds that the hook has not been called
        for so long: the engine calls it between events, so a rank is running its own code (a loop that
        never calls MPI holds the simulation until Ctrl-C); a bar cannot move then, but this line does."""
        stall_s = stall_interval()
        seen, due = self.beat, stall_s
        while not self._stop.wait(stall_s / 4 or 0.01):
            if self.beat != seen:                # the hook ran: the count starts again
                seen, due = self.beat, stall_s
            idle = time.perf_counter() - seen
            if idle >= due:
                try:
                    self.note(f"no simulated progress for {idle:.0f} s of host time: a rank is running its own "
                              f"code without an MPI call (one that never calls MPI runs until Ctrl-C)")
                except (OSError, ValueError):    # the stream is gone: so is anyone to tell
                    return
                due += stall_s

    def reached(self, now_s: float, end: bool = False) -> None:
        """The run has simulated every event before ``now_s`` seconds; ``end``: it ends there, which becomes
        its total (a run that stops early ends before the total it was given), so the bar's last state is
        100 %."""
        self.reached_s = now_s
        if end and self.total_s:
            self.total_s = now_s

    def points(self, done: float, total: float, unit: str) -> None:
        """The whole run is ``done`` of ``total`` ``unit`` (e.g. ranks of the points finished): the bar
        and its ETA count these from now on."""
        self.across = (done, total, unit)

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

    # -- reporting ---------------------------------------------------------------------------
    def show(self, n: float | None, total: float | None, unit: str, postfix: str, digits: int = 0) -> None:
        """Report ``n`` of ``total`` ``unit`` (None: no total known; ``n`` None: only ``postfix``)."""
        if self.enabled:
            self.line.show(n, total, unit, postfix, digits)

    def note(self, text: str) -> None:
        """A line of its own on stderr, above the bar (silent with ``PPT_QUIET``)."""
        if self.enabled:
            self.line.note(text)

    def close(self) -> None:
        """End the current report, if one was made (the next starts a new one, on the same clock), and
        the watch for stalls."""
        self._stop.set()
        self.line.close()

    def done(self) -> None:
        """End the report at the state the run ended in (the last redraw may be up to an interval old)."""
        if self.enabled and self.across:
            self.line.finish(*self.across, "all points done")
        elif self.enabled and self._sim is not None:
            self.line.finish(*self._state(self._sim, time.perf_counter()))
        self.close()


@contextlib.contextmanager
def closed_on_failure(progress: Progress | None):
    """Run the block; if it raises, end ``progress`` (None: nothing to end), so that its stall watch does not
    outlive the failed run (on success the caller ends it with :meth:`Progress.done`)."""
    try:
        yield
    except BaseException:
        if progress is not None:
            progress.close()
        raise


class PointProgress:
    """Progress over the points of a sweep: finished points out of all, with the whole run's ETA
    (silent with ``PPT_QUIET``); on a terminal a bar, in a log a plain line at most every
    :func:`log_interval` seconds.  Points a traffic run found saturated get a line of their own."""

    def __init__(self, label: str = "sweep"):
        self.label = label
        self.line = None
        self.done = self.total = 0

    def start(self, total: int, done: int = 0) -> None:
        """``total`` points, ``done`` of them already stored (they count as done, not into the rate)."""
        self.total, self.done = total, done
        if not quiet():
            self.line = Line(self.label, sys.stderr, time.perf_counter(), initial=done)
            if self.line.tty:
                self.line.show(done, total, "points", "")

    def advance(self, point, result: dict) -> None:
        self.done += 1
        if self.line is None:
            return
        if result.get("saturated"):
            self.line.note(f"{point.label()}: saturated after {result['measured_s'] * 1e6:.3g} us")
        self.line.show(self.done, self.total, "points", f"last {point.label()}")

    def close(self) -> None:
        if self.line is not None:
            self.line.close()

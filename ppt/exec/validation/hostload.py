"""How busy this shared host is: processes that want a core, from ``/proc/loadavg``.

The 4th field of ``/proc/loadavg`` counts the processes running or ready to
run right now (the reader itself among them).  :func:`wait_for_quiet` waits,
before a real run, until the other processes leave the run's cores free;
:class:`Contention` samples, during it, how many processes beyond the run's
own ranks wanted a core.
"""
from __future__ import annotations

import os
import statistics
import threading
import time
from pathlib import Path

#: Seconds between two samples of :class:`Contention`.
SAMPLE_S = 0.02


def cores() -> int:
    """Cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def runnable() -> int:
    """Processes running or ready to run on the host right now (0 where Linux does not tell)."""
    try:
        return int(Path("/proc/loadavg").read_text().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return 0


def wait_for_quiet(max_wait_s: float, ranks: int) -> float:
    """Wait until, for a whole second, other processes leave ``ranks`` cores free (at most
    ``max_wait_s``); the seconds waited."""
    started = time.perf_counter()
    allowed = max(0, cores() - ranks)
    while time.perf_counter() - started < max_wait_s:
        samples = []
        for _ in range(10):
            samples.append(runnable() - 1)          # less this process, which is reading /proc/loadavg
            time.sleep(0.1)
        if max(samples) <= allowed:
            break
    return time.perf_counter() - started


class Contention(threading.Thread):
    """Samples, while a real run of ``ranks`` ranks goes on, how many other processes want a core;
    use as a context manager around the run."""

    def __init__(self, ranks: int):
        super().__init__(daemon=True)
        self.ranks, self.samples, self.stop = ranks, [], threading.Event()

    def run(self):
        while not self.stop.wait(SAMPLE_S):
            self.samples.append(max(0, runnable() - 1 - self.ranks))

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.join()

    def mean(self) -> float:
        """Mean number of other processes wanting a core over the samples taken."""
        return statistics.fmean(self.samples) if self.samples else 0.0

"""Measured compute time: the CPU time a rank's own code spends between MPI calls.

Simulated ranks are greenlets of one OS thread, and a rank's greenlet is left
only inside MPI calls (and :func:`ppt.hint.compute`).  So the thread's CPU
clock, read when the rank leaves one MPI call and again when it enters the
next, measures that rank's own Python code alone: neither the simulator's
work nor the other ranks' code falls in between.

Reading the thread's CPU clock is a system call on many hosts (about 1 us on
a virtual machine), and part of each read falls inside the interval it
bounds: a call-heavy program would be charged that for every MPI call.  The
meter measures the apparent time between two back-to-back reads once
(:func:`read_cost_s`) and takes it off every interval.
"""
from __future__ import annotations

from time import thread_time


#: Back-to-back clock reads :func:`read_cost_s` times (its median is the cost).
READ_SAMPLES = 2001


def read_cost_s(samples: int = READ_SAMPLES) -> float:
    """The median apparent CPU time between two back-to-back reads of this thread's CPU clock, s: what an
    interval between two reads measures of the reads themselves."""
    gaps = []
    for _ in range(samples):
        first = thread_time()
        gaps.append(thread_time() - first)
    gaps.sort()
    return gaps[len(gaps) // 2]


class CpuMeter:
    """Charges each rank ``scale`` times the thread CPU time its code used since it last left MPI.

    ``scale`` (> 0): simulated seconds per second of this host's CPU time, i.e.
    how much slower the target processor runs this code than this host (0.5:
    the target is twice as fast).  The charge is compute time of the rank
    (``RankStats.compute_s``) owed to its clock (``Rank.owed_s``), so a send
    that follows leaves after it.  ``read_s``: what each measured interval
    carries of the clock reads (s, default :func:`read_cost_s`), taken off it
    (an interval never charges less than nothing).
    """

    __slots__ = ("scale", "read_s")

    def __init__(self, scale: float = 1.0, read_s: float | None = None):
        self.scale = scale
        self.read_s = read_cost_s() if read_s is None else read_s

    def _used_s(self, now: float, mark: float) -> float:
        """Host CPU seconds of the rank's code between two reads, at the target's speed (s)."""
        return max(0.0, now - mark - self.read_s) * self.scale

    def start(self, rank) -> None:
        """The rank's code runs from now on (it left MPI, or started)."""
        rank.cpu_mark = thread_time()

    def stop(self, rank) -> None:
        """The rank's code stops running (it enters MPI): charge what it used."""
        used_s = self._used_s(thread_time(), rank.cpu_mark)
        rank.owed_s += used_s
        rank.stats.compute_s += used_s

    def lap(self, rank) -> None:
        """Charge what the rank used so far and go on measuring (before its clock is read)."""
        now = thread_time()
        used_s = self._used_s(now, rank.cpu_mark)
        rank.cpu_mark = now
        rank.owed_s += used_s
        rank.stats.compute_s += used_s

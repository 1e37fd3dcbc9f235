"""Measured compute time: the CPU time a rank's own code spends between MPI calls.

Simulated ranks are greenlets of one OS thread, and a rank's greenlet is left
only inside MPI calls (and :func:`ppt.hint.compute`).  So the thread's CPU
clock, read when the rank leaves one MPI call and again when it enters the
next, measures that rank's own Python code alone: neither the simulator's
work nor the other ranks' code falls in between.
"""
from __future__ import annotations

from time import thread_time


class CpuMeter:
    """Charges each rank ``scale`` times the thread CPU time its code used since it last left MPI.

    ``scale`` (> 0): simulated seconds per second of this host's CPU time, i.e.
    how much slower the target processor runs this code than this host (0.5:
    the target is twice as fast).  The charge is compute time of the rank
    (``RankStats.compute_s``) owed to its clock (``Rank.owed_s``), so a send
    that follows leaves after it.
    """

    __slots__ = ("scale",)

    def __init__(self, scale: float = 1.0):
        self.scale = scale

    def start(self, rank) -> None:
        """The rank's code runs from now on (it left MPI, or started)."""
        rank.cpu_mark = thread_time()

    def stop(self, rank) -> None:
        """The rank's code stops running (it enters MPI): charge what it used."""
        used_s = (thread_time() - rank.cpu_mark) * self.scale
        rank.owed_s += used_s
        rank.stats.compute_s += used_s

    def lap(self, rank) -> None:
        """Charge what the rank used so far and go on measuring (before its clock is read)."""
        now = thread_time()
        used_s = (now - rank.cpu_mark) * self.scale
        rank.cpu_mark = now
        rank.owed_s += used_s
        rank.stats.compute_s += used_s

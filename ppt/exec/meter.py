"""Measured compute time: the CPU time a rank's own code spends between MPI calls.

Simulated ranks are greenlets of one OS thread, and a rank's greenlet is left
only inside MPI calls (and :func:`ppt.hint.compute`).  So clocks read as the
last thing the surface does before a call returns to the program and as the
first thing it does when the program enters the next one measure that rank's
own code: neither the simulator's work nor the other ranks' code falls in
between (:class:`~ppt.mpi.surface.core.fast.CpuMeter`: the wall clock for a
short interval, the thread's CPU clock for a long one, which a time slice
given to another process may have interrupted).

What an interval still holds of PPT itself, the clock reads and the surface's
way out of one call and into the next, is measured once per process by
:func:`path_costs`: a 2-rank job on an analytic network whose rank 0 makes the
common MPI calls in loops, reading the wall clock itself just before and just
after each call, so that what lies between its reads and the meter's is the
surface's way in and out of that call.  The meter takes those costs off every
interval.
"""
from __future__ import annotations

import functools
import statistics

from ppt.mpi.surface.core.fast import CpuMeter

#: Rounds of each calibration loop (after WARM_UP unmetered ones).
CALLS, WARM_UP = 100, 10
#: Share of the longest measurements of each call left out of its mean (a garbage collection, an interrupt).
TRIM = 0.01


def _loops(mpi, clock, log):
    """The calibration's loops on ``mpi`` (a rank's MPI): each makes a number of rounds of MPI calls, rank 0
    calling ``clock()`` just before and just after each and appending ``(call, before_s, after_s, mark_s)``
    to ``log`` (``mark_s``: the meter's wall-clock mark as the call returned)."""
    import numpy as np

    comm = mpi.COMM_WORLD
    rank = mpi._rank
    me = comm.Get_rank()
    other = 1 - me
    buf, out, many = np.zeros(1), np.zeros(2), np.zeros(2)

    def timed(name, call, *args):
        before = clock()
        result = call(*args)
        after = clock()
        log((name, before, after, rank.wall_mark))
        return result

    def pingpong(calls):
        for _ in range(calls):
            if me:
                comm.Recv(buf, other, 1)
                comm.Send(buf, other, 1)
                continue
            timed("MPI_Send", comm.Send, buf, other, 1)
            timed("MPI_Recv", comm.Recv, buf, other, 1)

    def nonblocking(calls):
        for _ in range(calls):
            requests = [timed("MPI_Irecv", comm.Irecv, buf, other, 2), timed("MPI_Isend", comm.Isend, buf, other, 2)]
            timed("MPI_Waitall", mpi.Request.Waitall, requests)
            receive, send = comm.Irecv(buf, other, 3), comm.Isend(buf, other, 3)
            timed("MPI_Wait", receive.Wait)
            send.Wait()

    def collectives(calls):
        for _ in range(calls):
            timed("MPI_Barrier", comm.Barrier)
            timed("MPI_Bcast", comm.Bcast, buf, 0)
            timed("MPI_Reduce", comm.Reduce, buf, out[:1], mpi.SUM, 0)
            timed("MPI_Allreduce", comm.Allreduce, mpi.IN_PLACE, buf, mpi.SUM)
            timed("MPI_Gather", comm.Gather, buf, out, 0)
            timed("MPI_Allgather", comm.Allgather, buf, out)
            timed("MPI_Alltoall", comm.Alltoall, out, many)
            timed("MPI_Sendrecv", comm.Sendrecv, buf, other, 4, many[:1], other, 4)

    return pingpong, nonblocking, collectives


def _read_gap_s(clock, samples: int = 2001) -> float:
    """The median apparent time between two back-to-back reads of ``clock``, s: what an interval between two
    reads holds of the reads themselves."""
    gaps = []
    for _ in range(samples):
        first = clock()
        gaps.append(clock() - first)
    gaps.sort()
    return gaps[len(gaps) // 2]


def _trimmed_mean(values: list) -> float:
    values = sorted(values)
    return statistics.fmean(values[:max(1, int(len(values) * (1 - TRIM)))])


@functools.lru_cache(maxsize=None)
def path_costs() -> dict:
    """What PPT's own path adds to the meter's intervals on this host, s: ``read_s`` and ``cpu_read_s`` (the
    reads of the wall and the CPU clock), and by MPI call name ``entry_s`` and ``exit_s``, the surface's way
    into and out of the call (each the trimmed mean over the calibration's calls on the wall clock, less
    ``read_s``), and ``default_s``, the median of those, for a call not measured."""
    from ppt.interconnects.networks.analytic import AnalyticNetwork
    from ppt.mpi.job import MPIJob
    from ppt.mpi.surface.core.fast import thread_cpu, wall

    read_s = _read_gap_s(wall)
    entries: list = []
    calls: list = []
    meter = CpuMeter(1.0, samples=entries)

    def main(mpi):
        rank = mpi._rank
        measured = mpi.COMM_WORLD.Get_rank() == 0
        for loop in _loops(mpi, wall, _ignore):
            loop(WARM_UP)
        if measured:
            rank.meter = meter
            meter.start(rank)
        for loop in _loops(mpi, wall, calls.append if measured else _ignore):
            loop(CALLS)
        rank.meter = None
    MPIJob(AnalyticNetwork(2, 1e-6, 5e9), 2, comm=None).run(main)

    entry_of: dict = {}
    exit_of: dict = {}
    entered = iter(entries)
    for name, before_s, after_s, mark_s in calls:
        entered_s = next(now for called, now, _ in entered if called == name)
        entry_of.setdefault(name, []).append(entered_s - before_s - read_s)
        exit_of.setdefault(name, []).append(after_s - mark_s - read_s)
    entry_s = {name: max(0.0, _trimmed_mean(values)) for name, values in entry_of.items()}
    exit_s = {name: max(0.0, _trimmed_mean(values)) for name, values in exit_of.items()}
    return {"read_s": read_s, "cpu_read_s": _read_gap_s(thread_cpu), "entry_s": entry_s, "exit_s": exit_s,
            "default_s": statistics.median([*entry_s.values(), *exit_s.values()])}


def _ignore(_record) -> None:
    pass


def cpu_meter(scale: float = 1.0) -> CpuMeter:
    """A meter charging ``scale`` times a rank's CPU time, less PPT's own path (:func:`path_costs`)."""
    return CpuMeter(scale, **path_costs())

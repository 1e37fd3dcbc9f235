"""When synthetic traffic beside a job mix's MPI jobs stops: one lookahead after the last MPI rank finished.

The traffic would otherwise run for ever.  So that every simulation process of a parallel run knows the
moment the last MPI rank anywhere finished, each process that sees its own last rank return files a
finish notice a lookahead (the network's smallest link latency, s) later and sends it to the others in
the engine's window exchange, which a cross-process event needs that long to cross
(:class:`FinishNotices`); the traffic stops at the last notice, at the same simulated time everywhere:
the latest finish plus a lookahead, whatever the partition.  The mix also checks at every multiple of
:data:`CHECK_EVERY_S` of simulated time, over all processes, whether its MPI ranks can still move
(:func:`everywhere`); if not, the traffic stops there and the run ends with the deadlock report.
"""
from __future__ import annotations

import math

#: Simulated seconds between two checks that the MPI ranks running beside traffic can still move.
CHECK_EVERY_S = 10e-6
#: Tie-break keys of the finish notices (one per simulation process): above every entity's key (entity
#: ids below 2**22), below the packet core's wake-ups.
NOTICE_KEY = 1 << 62


class FinishNotices:
    """The finish notices of simulation process ``rank`` of ``size``: ``post(at_s, key)`` files one in this
    process's engine, which counts them and stops the traffic at the ``size``-th.

    A process whose last rank returns at ``t`` (:meth:`local_done`; at time 0 if it holds none) files its
    notice at ``t + lookahead_s`` under key ``NOTICE_KEY + rank`` and sends it to every other process in
    the window exchange (as a model of ``ppt.engine.Simulation.add_exchange``); a window never runs past
    a lookahead beyond its start, so the notice arrives before its time.  Every process files every
    notice, so the last to run is the same everywhere.  The notices are bookkeeping, not model events."""

    def __init__(self, rank: int, size: int, lookahead_s: float, post):
        self.rank, self.size, self.lookahead_s, self.post = rank, size, lookahead_s, post
        self.outbox: list[float] = []

    def local_done(self, now_s: float) -> None:
        at_s = now_s + self.lookahead_s
        self.post(at_s, NOTICE_KEY + self.rank)
        if self.size > 1:
            self.outbox.append(at_s)

    # -- the engine's window exchange (parallel runs) ----------------------------------------------
    def outgoing(self) -> list:
        parts = [None if k == self.rank or not self.outbox else (b"", list(self.outbox)) for k in range(self.size)]
        self.outbox = []
        return parts

    def outgoing_min_s(self) -> float:
        return min(self.outbox, default=math.inf)

    def incoming(self, parts: list) -> None:
        for sender, part in enumerate(parts):
            for at_s in () if part is None else part[1]:
                self.post(at_s, NOTICE_KEY + sender)


class Countdown:
    """Calls ``then()`` when the ranks of this simulation process have returned from their main
    functions (at once, from :meth:`start`, if it holds none); ``then`` may be set until then."""

    def __init__(self, then=None):
        self.left = None
        self.then = then or _nothing

    def start(self, count: int) -> None:
        self.left = count
        if not count:
            self.then()

    def wrap(self, main):
        def counted(mpi, *args):
            value = main(mpi, *args)
            self.left -= 1
            if not self.left:
                self.then()
            return value
        return counted


def everywhere(run, flag: bool) -> bool:
    """Whether ``flag`` holds on every simulation process of ``run`` (a run's clock,
    :class:`~ppt.mpi.engine.windows.SampledRun`: its ``size`` and mpi4py ``comm``); every process calls it."""
    if run.size == 1:
        return flag
    from mpi4py import MPI
    return run.comm.allreduce(int(flag), op=MPI.MIN) == 1


def _nothing() -> None:
    pass

"""Annotations for mpi4py programs run by ``ppt exec``; every call is a no-op anywhere else.

    try:
        from ppt import hint
    except ImportError:          # PPT not installed: run without annotations
        hint = None
    ...
    if hint:
        hint.compute(2.5e-3)                       # 2.5 ms of computation on the simulated machine
        hint.compute([("fALU", 4e6), ("iALU", 1e6)])   # a tasklist, timed by the node model

Under real mpi4py (or plain Python) the calls return 0.0 at once.  Under
``ppt exec`` the rank's simulated clock advances by the given seconds, or by
the node model's time for the tasklist; with ``--compute measured`` that
comes on top of the CPU time the code measures, so annotate with
``--compute none`` to model the target's compute time alone.
"""
from __future__ import annotations

from ppt.exec.current import current_run


def compute(work) -> float:
    """Advance this rank's simulated time by ``work`` (seconds, or a tasklist); the seconds spent (0.0 outside ppt exec)."""
    run = current_run()
    if run is None:
        return 0.0
    mpi = run.mpi
    rank = mpi._rank
    meter = rank.meter
    if meter is not None:
        meter.stop(rank)
    try:
        return mpi.compute(work)
    finally:
        if meter is not None:
            meter.start(rank)

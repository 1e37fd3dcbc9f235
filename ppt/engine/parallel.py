"""MPI side of the engine: finding the world, and the synchronous window loop."""
from __future__ import annotations

import math
import os

from ppt.errors import SimulationError

#: Sentinel: use MPI_COMM_WORLD when launched by mpiexec with more than one rank.
AUTO = object()

_SIZE_VARIABLES = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALNRANKS", "PMIX_SIZE")


def launched_ranks() -> int:
    """Number of ranks mpiexec started us with (1 when not under mpiexec)."""
    for var in _SIZE_VARIABLES:
        if os.environ.get(var, "").isdigit():
            return int(os.environ[var])
    return 1


_RANK_VARIABLES = ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK")


def launched_rank() -> int:
    """Our rank as mpiexec started us (0 when not under mpiexec)."""
    for var in _RANK_VARIABLES:
        if os.environ.get(var, "").isdigit():
            return int(os.environ[var])
    return 0


def world():
    """mpi4py's COMM_WORLD under a multi-rank mpiexec, else None (MPI is not even loaded)."""
    if launched_ranks() <= 1:
        return None
    from mpi4py import MPI
    return MPI.COMM_WORLD if MPI.COMM_WORLD.size > 1 else None


def run_windows(sim, end: float) -> None:
    """Run ``sim`` in conservative windows of ``sim.lookahead_s`` until ``end`` or quiescence.

    One all-to-all per window carries the cross-rank events together with each
    rank's earliest pending event time, from which every rank computes the same
    next window start.
    """
    if not sim.lookahead_s > 0.0:
        raise SimulationError("a parallel run needs a positive lookahead (the model's smallest "
                              "delay between entities); run serially or fix the model")
    comm, size = sim.comm, sim.size
    failure = None
    while True:
        local_next = sim.peek()
        for batch in sim._outbox:
            for event in batch:
                if event[0] < local_next:
                    local_next = event[0]
        for model in sim.exchanges:
            local_next = min(local_next, model.outgoing_min_s())
        models = [model.outgoing() for model in sim.exchanges]
        note = None if failure is None else f"simulation rank {sim.rank}: {failure}"
        received = comm.alltoall([(local_next, note, batch, [out[k] for out in models])
                                  for k, batch in enumerate(sim._outbox)])
        sim._outbox = [[] for _ in range(size)]
        if failure is not None:
            raise failure
        notes = [n for _, n, _, _ in received if n is not None]
        if notes:
            raise SimulationError(notes[0])
        sim._deliver(batch for _, _, batch, _ in received)
        for index, model in enumerate(sim.exchanges):
            model.incoming([extra[index] for _, _, _, extra in received])
        start = min(t for t, _, _, _ in received)
        if start >= end:
            return
        sim.window_end = min(start + sim.lookahead_s, end)
        try:
            sim._run_window(sim.window_end)
        except Exception as exc:  # let the other ranks stop too instead of hanging
            failure = exc
        finally:
            sim.window_end = -math.inf


def max_op():
    """MPI.MAX (imports mpi4py only when called)."""
    from mpi4py import MPI
    return MPI.MAX

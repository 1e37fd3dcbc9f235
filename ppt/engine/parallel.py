"""MPI side of the engine: finding the world, and the synchronous window loop.

Stopping together
-----------------
A rank that leaves a parallel run on its own leaves the others waiting for
ever in the next window exchange, so nothing may leave it alone:

* an exception in a rank's window travels as a note in the next exchange and
  every rank raises it (the message names the rank);
* SIGINT (Ctrl-C, ``kill -INT``) on any rank only sets a flag, which the
  next exchange carries the same way; every rank then prints one line on its
  own stderr (file descriptor 2, which the command line leaves open on ranks
  above 0) and raises :class:`Stopped` (exit status 130).  A second SIGINT,
  or one outside the window loop, where there is no exchange to carry it,
  prints the line and aborts the MPI job;
* anything else that escapes the loop on one rank (a batch that cannot be
  pickled, ...) prints the line and aborts the MPI job, whose launcher then
  ends the other ranks;
* an exception that nothing catches, anywhere in a program run by a
  multi-rank mpiexec that imports the engine (a script's own mistake on one
  rank, before MPI starts or after the loop), prints its traceback and
  aborts the MPI job the same way (:func:`abort_on_uncaught`), instead of
  leaving the other ranks waiting.

The flag is read once per window, beside the exchange, and serial runs never
touch it.
"""
from __future__ import annotations

import math
import os
import signal
import threading
import time
from time import perf_counter

import numpy as np

from ppt.engine.exchange import STATS, Exchanger
from ppt.errors import SimulationError

#: Sentinel: use MPI_COMM_WORLD when launched by mpiexec with more than one rank.
AUTO = object()

#: Exit status of a run stopped by SIGINT (the shell's 128 + SIGINT).
INTERRUPTED_STATUS = 128 + signal.SIGINT
#: Seconds a rank waits between saying why it aborts and aborting (MPICH's launcher, under load, could
#: otherwise drop the line it had not yet forwarded).
ABORT_GRACE_S = 0.2

_SIZE_VARIABLES = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALNRANKS", "PMIX_SIZE")


def launched_ranks() -> int:
    """Number of ranks mpiexec started us with (1 when not under mpiexec)."""
    for var in _SIZE_VARIABLES:
        if os.environ.get(var, "").isdigit():
            return int(os.environ[var])
    return 1


_RANK_VARIABLES = ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK")


#: Variables a launcher sets in every process it starts, even one alone (MPICH's Hydra, Open MPI, PMIx).
_LAUNCHER_VARIABLES = (*_SIZE_VARIABLES, "PMI_RANK", "PMI_FD", "PMI_PORT", "HYDI_CONTROL_FD",
                       "OMPI_COMM_WORLD_RANK", "PMIX_RANK")


def launched_by_mpiexec() -> bool:
    """True when a launcher (mpiexec, mpirun, srun with PMI) started this process, even as its only rank:
    its children would inherit the launcher's connection and fail in MPI_Init."""
    return any(os.environ.get(var) for var in _LAUNCHER_VARIABLES)


def launched_rank() -> int:
    """Our rank as mpiexec started us (0 when not under mpiexec)."""
    for var in _RANK_VARIABLES:
        if os.environ.get(var, "").isdigit():
            return int(os.environ[var])
    return 0


def world():
    """mpi4py's COMM_WORLD under a multi-rank mpiexec, else None (MPI is not even loaded).

    Also routes SIGINT through :func:`guard_interrupts` from then on.
    """
    if launched_ranks() <= 1:
        return None
    from mpi4py import MPI
    if MPI.COMM_WORLD.size <= 1:
        return None
    guard_interrupts(MPI.COMM_WORLD)
    return MPI.COMM_WORLD


def abort_on_uncaught(comm=None) -> None:
    """From now on, an exception nothing catches prints its traceback and aborts the MPI job of ``comm``
    (default COMM_WORLD, MPI started then if need be), as ``python -m mpi4py`` does: a rank that ended
    alone would leave the others waiting for ever, in their next exchange or in MPI_Init.  Installed
    once per process, on import of this module under a multi-rank mpiexec."""
    import sys
    previous = sys.excepthook
    if getattr(previous, "_ppt_aborts", False):
        return

    def hook(kind, value, tb):
        previous(kind, value, tb)
        if issubclass(kind, SystemExit):
            return
        target = comm
        if target is None:
            from mpi4py import MPI
            target = MPI.COMM_WORLD
        abort(target, None, f"uncaught {kind.__name__}: {value}")

    hook._ppt_aborts = True
    sys.excepthook = hook


class Stopped(SystemExit):
    """All simulation ranks stopped together (e.g. one was interrupted); each has printed why.

    A SystemExit, so a program under mpiexec ends quietly with ``code``
    (130 after SIGINT) once every rank has said its line.
    """


class _Guard:
    """Turns SIGINT into a flag while a window loop runs, and into an abort outside it."""

    def __init__(self, comm):
        self.comm = comm
        self.interrupted = None   # name of the signal received inside a window loop
        self.sim = None           # the simulation whose window loop runs, if any

    def handle(self, signum, _frame):
        name = signal.Signals(signum).name
        if self.sim is not None and self.interrupted is None:
            self.interrupted = name
            return
        again = " again" if self.sim is not None else " outside the simulation loop"
        abort(self.comm, self.sim, f"interrupted ({name}){again}")


_guard: _Guard | None = None


def guard_interrupts(comm) -> _Guard | None:
    """Install the SIGINT handler of parallel runs (once per process; main thread only)."""
    global _guard
    if _guard is None and threading.current_thread() is threading.main_thread():
        _guard = _Guard(comm)
        signal.signal(signal.SIGINT, _guard.handle)
    return _guard


def say(sim, comm, why: str, at_s: float | None = None) -> None:
    """One line on this process's real stderr: which simulation rank stopped, when, and why."""
    rank = comm.Get_rank() if sim is None else sim.rank
    size = comm.Get_size() if sim is None else sim.size
    when = "" if at_s is None else f" at t={at_s:.9g} s"
    line = f"ppt: simulation rank {rank} of {size} stopped{when}: {why}\n"
    try:
        os.write(2, line.encode())
    except OSError:
        pass


def abort(comm, sim, why: str) -> None:
    """Last resort: say why, then abort the whole MPI job (does not return)."""
    say(sim, comm, f"{why}; aborting all ranks", None if sim is None else sim.now)
    time.sleep(ABORT_GRACE_S)   # the launcher forwards our line before the abort tears its streams down
    comm.Abort(1)
    os._exit(1)   # Abort does not return; should it ever, leave anyway


def run_windows(sim, end: float) -> None:
    """Run ``sim`` in conservative windows of ``sim.lookahead_s`` until ``end`` or quiescence.

    One exchange per window (:class:`ppt.engine.exchange.Exchanger`) carries the
    cross-rank events together with each rank's earliest pending event time,
    from which every rank computes the same next window start (so a window
    with no event anywhere is never run), and any rank's note (a failure or an
    interrupt) that stops all ranks together.
    """
    if not sim.lookahead_s > 0.0:
        raise SimulationError("a parallel run needs a positive lookahead (the model's smallest "
                              "delay between entities); run serially or fix the model")
    guard = guard_interrupts(sim.comm)
    outer = None if guard is None else guard.sim
    if guard is not None:
        guard.sim = sim
    stop = None
    try:
        stop = _windows(sim, end, guard)
    except BaseException as exc:   # this rank alone: the others would wait for ever
        abort(sim.comm, sim, f"{type(exc).__name__}: {exc}")
    finally:
        if guard is not None:
            guard.sim = outer
    if stop is not None:
        raise stop


def _windows(sim, end: float, guard):
    """The window loop; returns None at the end, or the exception every rank raises to stop.

    Anything it raises instead happened on this rank only.
    """
    size, stats = sim.size, STATS
    exchanger = Exchanger(sim.comm, sim.rank, size)
    stats.lookahead_s = sim.lookahead_s
    failure = None
    while True:
        clock = perf_counter()
        local_next = sim.peek()
        for batch in sim._outbox:
            for event in batch:
                if event[0] < local_next:
                    local_next = event[0]
        for model in sim.exchanges:
            local_next = min(local_next, model.outgoing_min_s())
        models = [model.outgoing() for model in sim.exchanges]
        note = None if failure is None else ("failure", sim.rank, str(failure))
        if guard is not None and guard.interrupted and note is None:
            note = ("interrupt", sim.rank, guard.interrupted)
        times, received = exchanger.exchange(local_next, [_frame(note, batch, [out[k] for out in models])
                                                          for k, batch in enumerate(sim._outbox)])
        sim._outbox = [[] for _ in range(size)]
        received = [_unframe(part, len(models)) for part in received]
        start = min(times)
        notes = [n for n, _, _ in received if n is not None]
        if notes:
            return _stop(sim, notes, failure, start)
        try:
            sim._deliver(batch for _, batch, _ in received)
            for index, model in enumerate(sim.exchanges):
                model.incoming([extra[index] for _, _, extra in received])
        except Exception as exc:  # report it with the next exchange, as a window's failure
            failure = exc
            continue
        finally:
            ran = perf_counter()
            stats.exchange_s += ran - clock
        if start >= end:
            return None
        sim.window_end = min(start + sim.lookahead_s, end)
        events = getattr(sim, "events", 0)
        try:
            sim._run_window(sim.window_end)
        except Exception as exc:  # let the other ranks stop too instead of hanging
            failure = exc
        finally:
            sim.window_end = -math.inf
            stats.windows += 1
            stats.events += getattr(sim, "events", 0) - events
            stats.run_s += perf_counter() - ran


def _frame(note, batch: list, models: list):
    """What one rank sends another in a window (an :class:`~ppt.engine.exchange.Exchanger` part): None when
    there is nothing, else the exchange models' raw sections joined (each model's length first when there
    are several) and, when there is any, the note, the Python events and the models' objects."""
    raws = [b"" if part is None else part[0] for part in models]
    objs = [None if part is None else part[1] for part in models]
    python = note is not None or batch or any(obj is not None for obj in objs)
    if not python and not any(raws):
        return None
    raw = raws[0] if len(raws) == 1 else np.array(list(map(len, raws)), np.int64).tobytes() + b"".join(raws)
    return raw, (note, batch, objs) if python else None


def _unframe(part, models: int) -> tuple:
    """``(note, events, model parts)`` from a part :func:`_frame` made (or None), each model's part None
    or ``(raw, obj)`` as its ``outgoing`` gave it."""
    if part is None:
        return None, (), [None] * models
    raw, python = part
    note, batch, objs = (None, (), [None] * models) if python is None else python
    if models == 1:
        raws = [raw]
    else:
        ends = np.cumsum(np.frombuffer(raw[:8 * models], np.int64)) + 8 * models
        raws = [raw[start:end] for start, end in zip([8 * models, *ends[:-1].tolist()], ends.tolist())]
    return note, batch, [None if not r and o is None else (r, o) for r, o in zip(raws, objs)]


def _stop(sim, notes, failure, next_s: float) -> BaseException:
    """The exception that stops this rank, given every rank's note of one exchange."""
    failures = [n for n in notes if n[0] == "failure"]
    if failures:
        if failure is not None:
            return failure
        _, rank, text = failures[0]
        return SimulationError(f"simulation rank {rank}: {text}")
    interrupts = [n for n in notes if n[0] == "interrupt"]
    _, rank, signame = next((n for n in interrupts if n[1] == sim.rank), interrupts[0])
    why = f"interrupted ({signame})" if rank == sim.rank else f"simulation rank {rank} was interrupted ({signame})"
    say(sim, sim.comm, why, next_s)
    return Stopped(INTERRUPTED_STATUS)


def max_op():
    """MPI.MAX (imports mpi4py only when called)."""
    from mpi4py import MPI
    return MPI.MAX


if launched_ranks() > 1:     # under a multi-rank mpiexec from the first import on (see abort_on_uncaught)
    abort_on_uncaught()

"""``exec_program``: run an mpi4py program on every rank of a simulated MPI job."""
from __future__ import annotations

import contextlib
import io
import math
import os
import sys
import threading
import time
import types
from dataclasses import dataclass

from greenlet import getcurrent

from ppt.engine import parallel
from ppt.errors import DeadlockError, PPTError
from ppt.exec import cow
from ppt.exec.crash import watching
from ppt.exec.heaps import own_heap
from ppt.exec.current import RUNS, current_run
from ppt.exec.interrupts import KEYBOARD_INTERRUPT_STATUS, user_interrupts
from ppt.exec.cwd import Cwds
from ppt.exec.meter import cpu_meter
from ppt.exec.program import Program, ProgramExit, RankRun
from ppt.mpi.constants import ANY_SOURCE, ANY_TAG, SELF_ID, WORLD_ID
from ppt.exec.streams import RankStream, sinks

#: How compute time between MPI calls is found: the rank's measured CPU time, or none at all.
COMPUTE_MODES = ("measured", "none")

#: Greenlets of runs stopped by another rank's failure, kept so their program's ``finally`` blocks never run.
_STOPPED: list = []


@dataclass(frozen=True)
class ExecOptions:
    """How to run a program: ``program`` (a .py file) with ``args`` as its ``sys.argv[1:]``.

    ``compute``: ``measured`` (each rank's CPU time between MPI calls, times
    ``compute_scale``) or ``none``.  ``output_dir``: a folder for each rank's
    ``rank.R.out`` / ``rank.R.err``; without it each line a rank prints on its
    stdout goes to ``stdout_to`` (``stdout``, or ``stderr`` to keep stdout for
    PPT's JSON), its stderr to stderr, prefixed ``[R] `` if ``prepend_rank``.
    """

    program: str
    args: tuple = ()
    compute: str = "measured"
    compute_scale: float = 1.0
    output_dir: str | None = None
    prepend_rank: bool = False
    stdout_to: str = "stdout"

    def __post_init__(self):
        if self.compute not in COMPUTE_MODES:
            raise PPTError(f"--compute {self.compute!r}: choose one of {', '.join(COMPUTE_MODES)}")
        scale = self.compute_scale
        if not (isinstance(scale, (int, float)) and math.isfinite(scale) and scale > 0):
            raise PPTError(f"--compute-scale {scale!r} must be a finite number above 0: simulated seconds per "
                           "second of this host's CPU time (1: the target runs the code as fast as this host)")


@dataclass(frozen=True)
class ExecOutcome:
    """A finished run: the job's ``result`` and the ``status`` mpiexec would exit with (the bitwise OR of
    every rank's exit status, as MPICH's hydra combines them, or SIGINT's number if a rank ended by an
    uncaught KeyboardInterrupt, as hydra reports a rank a signal ended), ``exits`` the non-zero ones by rank."""

    result: object
    status: int
    exits: dict

    def summary(self) -> dict:
        """The exit statuses as a summary shows them: ``exit_status`` and the non-zero ``rank_exit_statuses``."""
        return {"exit_status": self.status, "rank_exit_statuses": {str(r): s for r, s in self.exits.items()}}


def exec_program(job, options: ExecOptions, progress=None) -> ExecOutcome:
    """Run ``options.program`` on every rank of ``job`` (an :class:`~ppt.mpi.job.MPIJob`); its outcome.

    A rank that raises or calls ``sys.exit`` ends alone, as its process would
    under mpiexec (its traceback or message on its stderr).  Raises
    :class:`~ppt.exec.program.ProgramExit` when ranks are left blocked after
    such an exit (mpiexec would wait forever), AbortCalled on ``MPI_Abort``,
    and PPTError on a bad program or MPI usage.
    """
    program = Program(options.program, options.args)
    meter = cpu_meter(options.compute_scale) if options.compute == "measured" else None
    if options.output_dir is not None:
        _prepare_output_dir(options.output_dir, job.num_ranks)
    runs: list[RankRun] = []
    comm = parallel.world()
    if comm is None or comm.rank == 0:
        real_out, real_err = sys.stdout, sys.stderr
    else:                          # kept for the leader, which prints every rank's lines
        real_out, real_err = io.StringIO(), io.StringIO()
    program_out = real_err if options.stdout_to == "stderr" else real_out
    epoch_s = time.time() if comm is None else comm.bcast(time.time(), root=0)

    cwds = Cwds()
    views = {"os": cwds.os_view()}

    def main(mpi):
        rank = mpi._rank
        run = RankRun(program, mpi, sinks(mpi.rank, options.output_dir, options.prepend_rank, program_out, real_err),
                      epoch_s, views)
        RUNS[getcurrent()] = run
        runs.append(run)
        if hasattr(rank, "thread"):      # MPI calls from any other thread are refused
            rank.thread = threading.get_ident()
            rank.object_costs = job.settings.object_costs or None   # a real program pays mpi4py's object layer
            rank.call_costs = job.settings.call_costs or None       # and each call's own entry
        if meter is None:
            run.run()
            return
        rank.meter = meter
        with own_heap(job.num_ranks):    # measured compute pays the page faults a rank's own process pays
            meter.start(rank)
            run.run()
        meter.stop(rank)             # the code after the last MPI call
        rank.meter = None

    with _environment(program) as thread_errors, watching(views["os"], real_out, real_err), user_interrupts():
        try:
            result = job.run(main, progress=progress)
            if thread_errors:
                raise thread_errors[0]
        except DeadlockError as exc:
            _stop(runs)
            if thread_errors:          # the ranks waited for what a thread of theirs failed to do
                raise thread_errors[0] from None
            exits = {run.rank: run.status for run in runs if run.status}
            if exits:
                raise ProgramExit(f"{_exits_text(exits)}, then {exc}; mpiexec would wait for them forever",
                                  _combined(exits.values())) from None
            raise
        except BaseException:
            _stop(runs)
            raise
        finally:
            cwds.close()
            RUNS.clear()
            cow.release()
    for line in _unreceived(runs):
        real_err.write(f"ppt: warning: {line}\n")
    for run in runs:
        if run.interrupted:
            real_err.write(f"ppt: note: rank {run.rank} raised KeyboardInterrupt, so its process ends by SIGINT "
                           f"and mpiexec reports status {KEYBOARD_INTERRUPT_STATUS} for it\n")
    exits = {run.rank: run.status for run in runs if run.status}
    interrupted = any(run.interrupted for run in runs)
    if comm is not None:
        _print_other_simulation_ranks(comm, (real_out, real_err))
        runs_mpi = comm.allreduce(any(run.imported_mpi for run in runs), op=_mpi_lor())
        interrupted = comm.allreduce(interrupted, op=_mpi_lor())
        exits = {rank: status for part in comm.allgather(exits) for rank, status in part.items()}
    else:
        runs_mpi = any(run.imported_mpi for run in runs)
    if not runs_mpi:
        raise PPTError(f"{program.name} never imports mpi4py, so no rank called MPI; ppt exec runs mpi4py "
                       "programs (a model defining main(mpi) runs with 'ppt run')")
    status = KEYBOARD_INTERRUPT_STATUS if interrupted else _combined(exits.values())
    return ExecOutcome(result, status, dict(sorted(exits.items())))


def _stop(runs) -> None:
    """Drop the output of runs stopped from outside, and keep their greenlets so their ``finally`` never runs."""
    for run in runs:
        run.stopped = True
    _STOPPED.extend(RUNS)


def _unreceived(runs) -> list[str]:
    """A line for each message sent to a rank of ``runs`` and never received (an Isend nobody matched: MPICH
    drops it silently at MPI_Finalize), by receiving rank; the messages are taken off the finished engine."""
    lines = []
    for run in sorted(runs, key=lambda r: r.rank):
        rank = run.mpi._rank
        for comm_id in range(rank.next_ctx):
            label = {WORLD_ID: "WORLD", SELF_ID: "SELF"}.get(comm_id, f"#{comm_id}")
            while (found := rank._find_unexpected(2 * comm_id, ANY_SOURCE, ANY_TAG, 1)) is not None:
                lines.append(f"rank {found.src}'s send to rank {run.rank} (tag {found.tag}, {found.nbytes} B, "
                             f"communicator {label}) was never received: the program ended with it pending")
    return lines


def _combined(statuses) -> int:
    """The exit status of a job whose ranks exited with ``statuses``: their bitwise OR, as MPICH's hydra gives."""
    status = 0
    for one in statuses:
        status |= one
    return status


def _exits_text(exits: dict) -> str:
    return ", ".join(f"rank {rank} exited with status {status}" for rank, status in sorted(exits.items()))


def _print_other_simulation_ranks(comm, streams) -> None:
    """Under ``mpiexec``, the leader prints the tagged lines the other simulation ranks kept, by simulation rank
    (each rank's own lines stay in order; lines of ranks simulated by different processes do not interleave)."""
    kept = [stream.getvalue() if isinstance(stream, io.StringIO) else "" for stream in streams]
    parts = comm.gather(kept, root=0)
    if comm.rank == 0:
        for part in parts[1:]:
            for stream, text in zip(streams, part):
                stream.write(text)


def _mpi_lor():
    from mpi4py import MPI
    return MPI.LOR


class _MainOfRank(types.ModuleType):
    """``sys.modules['__main__']`` while a program runs: the running rank's own ``__main__`` module (its
    attributes, ``dir()``, ``vars()``), the process's own outside the ranks.

    So what looks ``__main__`` up finds the rank's: pickle the classes a
    program defines (``__module__ == '__main__'``), ``unittest.main()`` and
    ``doctest.testmod()`` its tests, ``inspect`` its functions.
    """

    def __init__(self, real):
        super().__init__("__main__")
        object.__setattr__(self, "_real", real)

    def __getattribute__(self, name):
        return getattr(_main_of(self), name)

    def __setattr__(self, name, value):
        setattr(_main_of(self), name, value)

    def __delattr__(self, name):
        delattr(_main_of(self), name)

    def __dir__(self):
        return dir(_main_of(self))

    def __repr__(self):
        return repr(_main_of(self))


def _main_of(stand_in: _MainOfRank):
    """The ``__main__`` module ``stand_in`` stands for now: the running rank's, else the process's."""
    run = current_run()
    return run.main if run is not None else object.__getattribute__(stand_in, "_real")


@contextlib.contextmanager
def _environment(program: Program):
    """The process as a program expects it: its ``sys.argv``, and ``__main__`` and the standard streams per rank;
    yields the list of MPI errors of threads the program started (a thread calling MPI), kept there instead
    of printed with a traceback."""
    saved = sys.stdout, sys.stderr, sys.argv, sys.modules.get("__main__"), threading.excepthook
    thread_errors: list = []

    def excepthook(args):
        if isinstance(args.exc_value, PPTError):
            thread_errors.append(args.exc_value)
        else:
            saved[4](args)
    sys.stdout, sys.stderr = RankStream(saved[0], 0), RankStream(saved[1], 1)
    sys.argv = list(program.argv)
    sys.modules["__main__"] = _MainOfRank(saved[3])
    threading.excepthook = excepthook
    try:
        yield thread_errors
    finally:
        sys.stdout, sys.stderr, sys.argv = saved[:3]
        sys.modules["__main__"] = saved[3]
        threading.excepthook = saved[4]


def _prepare_output_dir(folder: str, ranks: int) -> None:
    """Create ``folder`` if needed and remove rank files a previous run left there."""
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise PPTError(f"--output-dir {folder}: cannot create it ({exc.strerror}); choose a writable folder") from None
    if not os.access(folder, os.W_OK):
        raise PPTError(f"--output-dir {folder}: cannot write there; choose a writable folder")
    for name in os.listdir(folder):
        if name.startswith("rank.") and name.endswith((".out", ".err")):
            os.remove(os.path.join(folder, name))

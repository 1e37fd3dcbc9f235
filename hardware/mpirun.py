"""Running a real MPI job on this host: find ``mpiexec``, and run a command under a deadline.

:func:`run` starts the command in a process group of its own, so that on a
deadline or Ctrl-C the launcher and every rank it started are stopped
together; whatever goes wrong (no launcher, a failed job, a missed deadline)
is one :class:`~ppt.errors.PPTError` line naming ``what`` ran.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from ppt.errors import PPTError

#: Environment every real rank gets: one BLAS thread, as ``ppt`` itself runs (ranks polling for
#: messages and BLAS thread pools would otherwise fight over the cores).
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def find_mpiexec() -> str:
    """The ``mpiexec`` of the running Python's environment, else the one on PATH (PPTError if none)."""
    beside = Path(sys.executable).with_name("mpiexec")
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("mpiexec")
    if not found:
        raise PPTError("mpiexec not found beside this Python or on PATH: install an MPI "
                       "(e.g. pip install mpich mpi4py)")
    return found


def run(cmd: list[str], deadline_s: float, what: str, env: dict | None = None) -> tuple[str, str]:
    """Stdout and stderr of ``cmd`` run to its end within ``deadline_s`` seconds; PPTError if it cannot
    start, misses the deadline (it is stopped) or exits with a non-zero status (with its last stderr line)."""
    env = dict(os.environ if env is None else env, **ONE_THREAD)
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                start_new_session=True)
    except OSError as exc:
        raise PPTError(f"{what} could not be started ({cmd[0]}): {exc.strerror or exc}") from None
    try:
        out, err = proc.communicate(timeout=deadline_s)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        raise PPTError(f"{what} did not finish within {deadline_s:g} s; stopped it") from None
    except BaseException:           # Ctrl-C: the job has its own process group, out of reach of the terminal
        _kill_group(proc)
        raise
    if proc.returncode != 0:
        raise PPTError(f"{what} failed (exit status {proc.returncode}): {last_line(err)}")
    return out, err


def last_line(text: str) -> str:
    """The last non-blank line of ``text`` (at most 300 characters), or 'no message'."""
    line = next((line.strip() for line in reversed(text.splitlines()) if line.strip()), "no message")
    return line[:300]


def _kill_group(proc) -> None:
    """Stop the process this module started and everything it started (its own process group)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.communicate()

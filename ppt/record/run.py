"""``record``: run an MPI program under the real ``mpiexec`` with the recording library preloaded, and keep
its calls as an op-stream folder.

The program is a dynamically linked executable (C, C++) or a Python file (run by this Python, for
mpi4py programs).  The ranks write their record files into a scratch folder beside the output,
which is converted (:class:`~ppt.record.trace.RecordedTrace`), saved whole
(:func:`ppt.traces.opstream.save`) and removed: a run that fails leaves nothing behind.
"""
from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

from ppt.atomicfile import check_new_folder
from ppt.errors import PPTError
from ppt.record import build
from ppt.record.trace import RecordedTrace
from ppt.traces import opstream

#: Libraries a Fortran MPI program links; the mpich wheel has no Fortran bindings (no mpif90, no libmpifort).
FORTRAN_LIBRARIES = (b"libgfortran.so", b"libmpifort.so", b"libmpi_mpifh.so", b"libifcore")
_LIBMPI = re.compile(rb"libmpi\.so\.\d+")
#: The MPI library of the mpich wheel, which the recording library is built against.
WHEEL_LIBMPI = b"libmpi.so.12"


def command(program: str, args) -> list:
    """The command that runs ``program`` with ``args``; PPTError (one line) for a program that is
    missing, not runnable or one ``ppt record`` cannot record (Fortran, another MPI)."""
    path = program if os.sep in program or os.path.exists(program) else shutil.which(program)
    if path is None or not os.path.exists(path):
        raise PPTError(f"program {program} not found: give the path of an MPI executable or mpi4py .py file")
    if os.path.isdir(path):
        raise PPTError(f"{program} is a folder: give the path of an MPI executable or mpi4py .py file")
    if path.endswith(".py"):
        return [sys.executable, path, *args]
    if path.endswith((".f", ".f90", ".F90", ".c", ".cc", ".cpp")):
        raise PPTError(f"{program} is source code: compile it first (e.g. {build.mpi_tool('mpicc')} -o prog "
                       f"prog.c) and record the program")
    if not os.access(path, os.X_OK):
        raise PPTError(f"{program} is not executable: chmod +x it, or give a .py file for mpi4py")
    _check_binary(program, path)
    return [os.path.abspath(path), *args]


def _check_binary(program: str, path: str) -> None:
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(b"\x7fELF"):
        return                                   # a script: its interpreter is what links MPI
    if any(name in data for name in FORTRAN_LIBRARIES):
        raise PPTError(f"{program} is a Fortran program: the mpich wheel ppt records with has no Fortran "
                       "bindings (no mpif90, no libmpifort), so ppt record takes C and C++ programs and "
                       "mpi4py .py files")
    other = sorted({m.decode() for m in _LIBMPI.findall(data)} - {WHEEL_LIBMPI.decode()})
    if other and WHEEL_LIBMPI not in data:
        raise PPTError(f"{program} is linked against another MPI ({', '.join(other)}): build it with "
                       f"{build.mpi_tool('mpicc')} so it runs on the MPI ppt record preloads into")


def record(program: str, args, ranks: int, out: str) -> opstream.SavedTrace:
    """Run ``program args`` on ``ranks`` ranks under ``mpiexec`` and save its calls as the op-stream folder
    ``out`` (which must not exist or be empty); returns the saved trace.  The program's own output
    passes through."""
    out = os.fspath(out)
    parent = check_new_folder(out, "give a new one with -o")      # before the program runs, not after
    cmd = command(program, args)
    library = build.library()
    mpiexec = build.mpi_tool("mpiexec")
    work = tempfile.mkdtemp(prefix=".record-", dir=parent)
    try:
        preload = ":".join(p for p in (library, os.environ.get("LD_PRELOAD")) if p)
        done = subprocess.run([mpiexec, "-n", str(ranks), "-genv", "PPT_RECORD_DIR", work,
                               "-genv", "LD_PRELOAD", preload, *cmd])
        if done.returncode != 0:
            how = f"signal {-done.returncode}" if done.returncode < 0 else f"status {done.returncode}"
            raise PPTError(f"{program} ended with {how} under mpiexec -n {ranks}; nothing was written")
        if not glob.glob(os.path.join(work, "rank-*.rec")):
            raise PPTError(f"{program} made no MPI call the recording library saw: record an MPI program "
                           f"linked dynamically against the MPI of {mpiexec} (build it with "
                           f"{build.mpi_tool('mpicc')}); nothing was written")
        name = os.path.basename(os.path.abspath(out))
        trace = RecordedTrace(work, ranks, name[:-len(".opstream")] if name.endswith(".opstream") else name)
        opstream.save(trace, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return opstream.load(out)

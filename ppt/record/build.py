"""The recording library: ``pmpi_record.c`` built with the MPI's ``mpicc`` into a per-user cache, once.

The library is built on first use, not at install, so ``pip install`` needs no MPI compiler; it is
kept under ``$PPT_CACHE_DIR`` (default ``$XDG_CACHE_HOME/ppt``, else ``~/.cache/ppt``) in a file
named by a digest of the source and the ``mpicc`` used, so a changed source or another MPI builds
anew.  The MPI tools are the ones beside this Python (the ``mpich`` wheel's), else those on PATH.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ppt.errors import PPTError

SOURCE = Path(__file__).with_name("pmpi_record.c")


def mpi_tool(name: str) -> str:
    """The path of MPI tool ``name`` (``mpicc``, ``mpiexec``): beside this Python, else on PATH."""
    beside = Path(sys.executable).with_name(name)
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which(name)
    if not found:
        raise PPTError(f"{name} not found beside this Python or on PATH: install the mpich wheel "
                       "(pip install mpich), whose MPI ppt record runs programs with")
    return found


def cache_dir() -> Path:
    """Where built libraries are kept (see the module's docstring)."""
    root = os.environ.get("PPT_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "ppt")
    return Path(root) / "record"


def library() -> str:
    """The path of the built recording library, building it first if the cache lacks it."""
    mpicc = mpi_tool("mpicc")
    digest = hashlib.sha256(SOURCE.read_bytes() + os.fsencode(os.path.realpath(mpicc))).hexdigest()[:16]
    target = cache_dir() / f"libpptrecord-{digest}.so"
    if target.is_file():
        return str(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PPTError(f"cannot create the cache folder {target.parent} ({exc.strerror}): set PPT_CACHE_DIR "
                       "to a writable folder") from None
    fd, tmp = tempfile.mkstemp(prefix=".libpptrecord-", suffix=".so", dir=target.parent)
    os.close(fd)
    try:
        done = subprocess.run([mpicc, "-shared", "-fPIC", "-O2", "-o", tmp, str(SOURCE)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
            raise PPTError(f"{mpicc} could not build the recording library: {last}; install a C compiler "
                           "(e.g. apt-get install gcc)")
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return str(target)

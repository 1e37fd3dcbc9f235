"""Builds the packet core: C through cffi's API mode.

Every ``*.h`` in this folder whose name does not start with ``_`` is a public header: declarations
only, read by the C compiler and, without their ``#`` lines, by cffi's cdef -- but for
:data:`C_ONLY`.  Every ``*.c`` is compiled into the extension ``ppt.interconnects.core._packetcore``
by the package's own install (``pip install -e .``, which builds the MPI engine's extension beside
it: ``ppt/mpi/engine/core/build.py``).  Headers whose name starts with ``_`` are private to this
folder's C sources; C built apart from it (the MPI engine) includes the public ones only, and calls
the packet core's functions through the table ``coreapi.h`` declares.
"""
from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
#: Public headers for the C compiler alone: inline code (the event heap), which cffi's cdef cannot read.
C_ONLY = ("heap.h",)
#: cdef order: core.h's types first, the table of calls (which names the other headers' types) last.
HEADERS = sorted((p for p in HERE.glob("*.h") if not p.name.startswith("_") and p.name not in C_ONLY),
                 key=lambda p: (p.name != "core.h", p.name == "coreapi.h", p.name))
SOURCES = sorted(HERE.glob("*.c"))
#: The C compiler's flags, the MPI engine's too.
COMPILE_ARGS = ["-O2", "-std=c11", "-Wall", "-Wno-unused-function"]


def _require_toolchain() -> None:
    """Stop the install with one line when the C compiler or Python's headers are missing."""
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        sys.exit(f"error: PPT's packet core is C and needs a C compiler, but {cc!r} was not found; "
                 f"install one (e.g. 'apt-get install gcc') and run the install again")
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").is_file():
        sys.exit(f"error: PPT's packet core needs the Python development headers (no Python.h in {include}); "
                 f"install them (e.g. 'apt-get install python3-dev') and run the install again")


def cdef(headers) -> str:
    """The declarations of ``headers`` as cffi's cdef reads them: their text without the ``#`` lines."""
    return "\n".join(line for header in headers for line in header.read_text().splitlines()
                     if not line.lstrip().startswith("#"))


_require_toolchain()
ffibuilder = FFI()
ffibuilder.cdef(cdef(HEADERS))
ffibuilder.set_source(
    "ppt.interconnects.core._packetcore",
    "\n".join(f'#include "{header.name}"' for header in HEADERS),
    sources=[os.path.relpath(source, ROOT) for source in SOURCES],
    include_dirs=[os.path.relpath(HERE, ROOT)],
    extra_compile_args=COMPILE_ARGS,
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)

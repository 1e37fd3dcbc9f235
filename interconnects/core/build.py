"""Builds the compiled core: C through cffi's API mode.

Every ``*.h`` in this folder and in the MPI engine's (``ppt/mpi/engine/core``; public
headers: declarations only, read by the C compiler and, without their ``#``
lines, by cffi's cdef, but for :data:`C_ONLY`) and every ``*.c`` of both is compiled into the one
extension ``ppt.interconnects.core._packetcore`` by the package's own install
(``pip install -e .``).  Headers whose name starts with ``_`` are private to the
C sources.  :data:`CALLBACKS` are the C engine's calls into Python.
"""
from __future__ import annotations

import ast
import os
import shutil
import sys
import sysconfig
from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
#: The packet core (here) and the MPI engine.
FOLDERS = (HERE, ROOT / "ppt" / "mpi" / "engine" / "core")
#: Public headers for the C compiler alone: inline code (the event heap), which cffi's cdef cannot read.
C_ONLY = ("heap.h",)
HEADERS = sorted((p for folder in FOLDERS for p in folder.glob("*.h")
                  if not p.name.startswith("_") and p.name not in C_ONLY),
                 key=lambda p: (p.name != "core.h", p.name))
SOURCES = sorted(p for folder in FOLDERS for p in folder.glob("*.c"))
#: Functions C calls in Python (ppt.mpi.engine.replay and ppt.mpi.engine.pynet define them): a node pair's path, a message's
#: wire bytes, a message's route on the flow network; a message handed to a model of one's own, one of its events.
CALLBACKS = """
extern "Python+C" int32_t ppt_mpi_path_cb(void *handle, int32_t src, int32_t dst, double *out);
extern "Python+C" int64_t ppt_mpi_wire_cb(void *handle, int64_t nbytes);
extern "Python+C" int32_t ppt_mpi_route_cb(void *handle, int32_t src, int32_t dst, int64_t nbytes, double now_s,
                                           double *out);
extern "Python+C" int32_t ppt_mpi_send_cb(void *handle, int64_t msg, int32_t src_node, int32_t dst_node,
                                          int64_t nbytes, double delay_s, int32_t on_sent, double now_s);
extern "Python+C" int32_t ppt_mpi_event_cb(void *handle, double t_s, uint64_t key);
"""


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


def op_kinds() -> list[tuple[str, str]]:
    """``(OP_<NAME>, value)`` for every kind of op of the op record (``ppt/oprecord.py``'s ``Op``), read
    from its source, so the MPI engine's C numbers its ops as Python does (the build needs no numpy)."""
    tree = ast.parse((ROOT / "ppt" / "oprecord.py").read_text())
    op = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Op")
    return [(f"OP_{item.targets[0].id}", str(item.value.value)) for item in op.body
            if isinstance(item, ast.Assign) and isinstance(item.value, ast.Constant)]


def _cdef() -> str:
    return "\n".join(line for header in HEADERS for line in header.read_text().splitlines()
                     if not line.lstrip().startswith("#")) + CALLBACKS


_require_toolchain()
ffibuilder = FFI()
ffibuilder.cdef(_cdef())
ffibuilder.set_source(
    "ppt.interconnects.core._packetcore",
    "\n".join(f'#include "{header.name}"' for header in HEADERS),
    sources=[os.path.relpath(source, ROOT) for source in SOURCES],
    include_dirs=[os.path.relpath(folder, ROOT) for folder in FOLDERS],
    define_macros=op_kinds(),
    extra_compile_args=["-O2", "-std=c11", "-Wall", "-Wno-unused-function"],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)

"""Builds the MPI engine: C through cffi's API mode, an extension of its own beside the packet core's.

Every ``*.c`` in this folder is compiled into the extension ``ppt.mpi.engine.core._mpicore`` by the
package's own install (``pip install -e .``).  Its public headers (names not starting with ``_``:
declarations only) are read by the C compiler and, without their ``#`` lines, by cffi's cdef, with
:data:`CALLBACKS`, the engine's calls into Python.  Of the packet core (``interconnects/core``) the
engine sees the public headers only: the types of its network, flow solver and histograms (shared
with the packet core's cffi module through ``ffi.include``, so Python hands the one's pointers to the
other as they are), the event heap (``heap.h``) and the table of the packet core's calls
(``coreapi.h``), which Python hands to the engine at import (``ppt.mpi.engine.core``).  The build
defines ``OP_<NAME>`` for every kind of op (:func:`op_kinds`).
"""
from __future__ import annotations

import ast
import importlib.util
import os
from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
PACKET_CORE = ROOT / "interconnects" / "core"
#: The engine's public headers, mpicore.h (which the others extend) first.
HEADERS = sorted((p for p in HERE.glob("*.h") if not p.name.startswith("_")),
                 key=lambda p: (p.name != "mpicore.h", p.name))
SOURCES = sorted(HERE.glob("*.c"))
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


def _packet_core_build():
    """The packet core's build script (its ffibuilder, cdef reader and compiler flags), loaded from its
    file: at install time neither package can be imported yet."""
    spec = importlib.util.spec_from_file_location("ppt_packet_core_build", PACKET_CORE / "build.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    return build


def op_kinds() -> list[tuple[str, str]]:
    """``(OP_<NAME>, value)`` for every kind of op of the op record (``ppt/oprecord.py``'s ``Op``), read
    from its source, so the engine's C numbers its ops as Python does (the build needs no numpy)."""
    tree = ast.parse((ROOT / "ppt" / "oprecord.py").read_text())
    op = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Op")
    return [(f"OP_{item.targets[0].id}", str(item.value.value)) for item in op.body
            if isinstance(item, ast.Assign) and isinstance(item.value, ast.Constant)]


packet_core = _packet_core_build()
ffibuilder = FFI()
ffibuilder.include(packet_core.ffibuilder)
ffibuilder.cdef(packet_core.cdef(HEADERS) + CALLBACKS)
ffibuilder.set_source(
    "ppt.mpi.engine.core._mpicore",
    # the packet core's types come in through ffi.include, and the generated C needs their declarations
    "\n".join(f'#include "{header.name}"' for header in [*packet_core.HEADERS, *HEADERS]),
    sources=[os.path.relpath(source, ROOT) for source in SOURCES],
    include_dirs=[os.path.relpath(HERE, ROOT), os.path.relpath(PACKET_CORE, ROOT)],
    define_macros=op_kinds(),
    extra_compile_args=packet_core.COMPILE_ARGS,
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)

"""The compiled MPI engine (C through cffi, this folder's ``*.c``): ``ffi`` and ``lib`` of its extension,
bound to the packet core, with a one-line error if it is missing.

The engine is an extension of its own (``build.py``), built against the packet core's public headers
only.  It calls the packet core's functions through the table the packet core fills
(``interconnects/core/coreapi.h``), handed to it here, once, before anything else can call it.  Its
``ffi`` includes the packet core's types, so a pointer of either extension (a network's core, a flow
solver, a histogram) passes to the other's functions as it is.
"""
from __future__ import annotations

from ppt.errors import ConfigError
from ppt.interconnects import core as packet_core

try:
    from ppt.mpi.engine.core._mpicore import ffi, lib
except ImportError as exc:  # pragma: no cover - only on a broken install
    raise ConfigError(f"PPT's compiled MPI engine is not built ({exc}); reinstall with 'pip install -e .' "
                      f"on a machine with a C compiler") from None

lib.ppt_mpi_bind_core(packet_core.lib.ppt_core_api())

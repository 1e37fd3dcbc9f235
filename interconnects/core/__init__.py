"""The compiled core (C through cffi): ``ffi`` and ``lib`` of the extension, with a one-line error if it is missing.

Why C through cffi's API mode (and not Cython): the hot path is a few plain C
files a network researcher can read beside the papers (one routing function
per topology and algorithm), cffi was already a dependency, and API mode
compiles them at install time with no generated code to review.
"""
from __future__ import annotations

from ppt.errors import ConfigError

try:
    from ppt.interconnects.core._packetcore import ffi, lib
except ImportError as exc:  # pragma: no cover - only on a broken install
    raise ConfigError(f"PPT's compiled packet core is not built ({exc}); reinstall with 'pip install -e .' "
                      f"on a machine with a C compiler") from None


def array(ctype: str, values):
    """A C array of ``ctype`` owning a copy of the numpy array ``values``."""
    import numpy as np
    dtype = {"int32_t": np.int32, "int64_t": np.int64, "uint64_t": np.uint64, "double": np.float64,
             "int8_t": np.int8, "uint8_t": np.uint8}[ctype]
    data = np.ascontiguousarray(values, dtype=dtype)
    buf = ffi.new(f"{ctype}[]", max(1, data.size))
    ffi.memmove(buf, ffi.from_buffer(data), data.nbytes)
    return buf


def fields(struct) -> dict:
    """The fields of a C struct (or of the struct a pointer points to) by name, in declaration order."""
    ctype = ffi.typeof(struct)
    if ctype.kind == "pointer":
        ctype = ctype.item
    return {name: getattr(struct, name) for name, _ in ctype.fields}

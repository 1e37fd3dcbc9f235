"""MPI datatypes as mpi4py names them, each with the numpy dtype its elements have.

A datatype here is ``count`` contiguous elements of one numpy dtype:
mpi4py's predefined types (``MPI.DOUBLE``: one float64) and the contiguous
types made from them (``MPI.INT.Create_contiguous(3)``).  Sizes are those of
MPICH on x86-64 Linux (``long`` and ``long long`` 8 bytes, ``long double``
16).  :func:`of_array` gives the type mpi4py infers for a buffer given
without one (from its numpy dtype, or ``B`` for bytes and bytearrays).
"""
from __future__ import annotations

import numpy as np

from ppt.mpi.unsupported import Refusing, refuse


class Datatype(metaclass=Refusing):
    """An MPI datatype: ``count`` elements of numpy dtype ``dtype``; ``size`` and ``extent`` in bytes."""

    __slots__ = ("name", "dtype", "count", "typechar")

    def __init__(self, name: str, dtype, count: int = 1, typechar: str | None = None):
        self.name = name
        self.dtype = np.dtype(dtype)
        self.count = count
        self.typechar = typechar or self.dtype.char

    @property
    def size(self) -> int:
        """Bytes of data in one item of this type."""
        return self.dtype.itemsize * self.count

    extent = size
    lb = 0

    @property
    def ub(self) -> int:
        return self.size

    @property
    def typestr(self) -> str:
        """numpy's type string of one element (``'f8'``)."""
        return self.dtype.str[1:] if self.typechar != "c" else "S1"

    @property
    def is_predefined(self) -> bool:
        return self.count == 1

    def Get_size(self) -> int:
        return self.size

    def Get_extent(self) -> tuple[int, int]:
        """``(lower bound, extent)`` in bytes."""
        return 0, self.size

    Get_true_extent = Get_extent

    def Get_name(self) -> str:
        return self.name

    def Set_name(self, name: str) -> None:
        self.name = str(name)

    def Create_contiguous(self, count: int) -> "Datatype":
        """``count`` items of this type in a row."""
        return Datatype("", self.dtype, self.count * int(count), self.typechar)

    def Dup(self) -> "Datatype":
        return Datatype(self.name, self.dtype, self.count, self.typechar)

    Create_dup = Dup

    def Commit(self) -> "Datatype":
        return self

    def Free(self) -> None:
        pass

    def tocode(self) -> str:
        return self.typechar

    def __eq__(self, other):
        return isinstance(other, Datatype) and (other.dtype, other.count) == (self.dtype, self.count)

    def __hash__(self):
        return hash((self.dtype, self.count))

    def __repr__(self):
        return f"<mpi4py.MPI.Datatype {self.name or 'derived'}>"

    def __getattr__(self, name):
        return refuse("Datatype", name, None)


#: MPICH's names of aliases (MPI.LONG_LONG.name is 'MPI_LONG_LONG_INT') and mpi4py's type characters
#: that are not the numpy dtype's own.
_NAMES = {"SIGNED_SHORT": "SHORT", "SIGNED_LONG": "LONG", "LONG_LONG": "LONG_LONG_INT",
          "SIGNED_LONG_LONG": "LONG_LONG_INT", "FLOAT32_T": "FLOAT", "FLOAT64_T": "DOUBLE",
          "C_FLOAT_COMPLEX": "C_COMPLEX"}
_CHARS = {"AINT": "p", "OFFSET": "p", "COUNT": "p", "WCHAR": "U", "CHAR": "c", "CHARACTER": "c"}


def _table():
    types = {}
    for names, dtype in [
            ("BYTE PACKED UNSIGNED_CHAR UINT8_T", "B"), ("CHAR CHARACTER", "S1"), ("SIGNED_CHAR INT8_T", "b"),
            ("SHORT SIGNED_SHORT INT16_T", "h"), ("UNSIGNED_SHORT UINT16_T", "H"),
            ("INT SIGNED_INT INT32_T INTEGER LOGICAL", "i"), ("UNSIGNED UNSIGNED_INT UINT32_T", "I"),
            ("LONG SIGNED_LONG INT64_T AINT OFFSET COUNT", "l"), ("UNSIGNED_LONG UINT64_T", "L"),
            ("LONG_LONG SIGNED_LONG_LONG", "q"), ("UNSIGNED_LONG_LONG", "Q"), ("WCHAR", "u4"),
            ("FLOAT REAL FLOAT32_T", "f"), ("DOUBLE DOUBLE_PRECISION FLOAT64_T", "d"), ("LONG_DOUBLE", "g"),
            ("C_BOOL BOOL CXX_BOOL", "?"), ("C_FLOAT_COMPLEX C_COMPLEX COMPLEX CXX_FLOAT_COMPLEX", "F"),
            ("C_DOUBLE_COMPLEX DOUBLE_COMPLEX CXX_DOUBLE_COMPLEX", "D"),
            ("C_LONG_DOUBLE_COMPLEX CXX_LONG_DOUBLE_COMPLEX", "G")]:
        for name in names.split():
            types[name] = Datatype(f"MPI_{_NAMES.get(name, name)}", dtype, 1, _CHARS.get(name))
    # aliases that are the very same handle in mpi4py (MPI.BOOL is MPI.C_BOOL)
    types["BOOL"], types["SIGNED_INT"], types["UNSIGNED_INT"] = types["C_BOOL"], types["INT"], types["UNSIGNED"]
    return types


#: mpi4py's predefined datatypes, by attribute name (``DOUBLE``, ``INT64_T``, ...).
DATATYPES = _table()

#: The type mpi4py infers for a buffer, by numpy type character (mpi4py's ``MPI._typedict``).
TYPEDICT = {t.typechar: t for t in (DATATYPES[n] for n in (
    "C_BOOL", "SIGNED_CHAR", "UNSIGNED_CHAR", "SHORT", "UNSIGNED_SHORT", "INT", "UNSIGNED", "LONG",
    "UNSIGNED_LONG", "LONG_LONG", "UNSIGNED_LONG_LONG", "FLOAT", "DOUBLE", "LONG_DOUBLE", "C_FLOAT_COMPLEX",
    "C_DOUBLE_COMPLEX", "C_LONG_DOUBLE_COMPLEX", "CHAR"))}


def of_array(array: np.ndarray) -> Datatype | None:
    """The datatype mpi4py infers for numpy array ``array``, or None if it has none."""
    char = array.dtype.char
    if char == "S" and array.dtype.itemsize == 1:
        char = "c"
    return TYPEDICT.get(char)


def lookup(spec) -> Datatype | None:
    """``spec`` (a Datatype or a numpy type character such as ``'d'``) as a Datatype; None if unknown."""
    if isinstance(spec, Datatype):
        return spec
    if isinstance(spec, str):
        return TYPEDICT.get(spec) or TYPEDICT.get(np.dtype(spec).char if _is_dtype(spec) else "")
    return None


def _is_dtype(spec: str) -> bool:
    try:
        np.dtype(spec)
    except TypeError:
        return False
    return True

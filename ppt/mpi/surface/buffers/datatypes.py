"""MPI datatypes as mpi4py names them, each with the numpy dtype its elements have.

A datatype here is a typemap of one numpy element type: ``offsets``, the
element positions of one item (in elements from the item's start, which
is ``lb`` plus a multiple of the extent), and ``extent``, the elements
from one item to the next.  mpi4py's predefined types are one element
(``MPI.DOUBLE``: one float64); ``Create_contiguous``, ``Create_vector``,
``Create_hvector``, ``Create_indexed``, ``Create_indexed_block``,
``Create_subarray`` and ``Create_resized`` build others from them.  Types
mixing element types (``Create_struct``) are not modelled.  Sizes are those
of MPICH on x86-64 Linux (``long`` and ``long long`` 8 bytes, ``long
double`` 16).  :func:`of_array` gives the type mpi4py infers for a buffer
given without one (from its numpy dtype, or ``B`` for bytes and bytearrays).
"""
from __future__ import annotations

import numpy as np

from ppt.mpi.errors import MPIError
from ppt.mpi.unsupported import Refusing, refuse

#: MPI_ORDER_C and MPI_ORDER_FORTRAN (MPICH's values) for Create_subarray.
ORDER_C, ORDER_FORTRAN = 56, 57


class Datatype(metaclass=Refusing):
    """An MPI datatype: elements of numpy dtype ``dtype`` at ``offsets`` (in elements) of each item,
    items ``extent_elems`` elements apart; ``size``, ``extent``, ``lb`` and ``ub`` in bytes.  Equal
    only to itself, as handles are (the aliases mpi4py shares, such as BOOL and C_BOOL, are one object)."""

    __slots__ = ("name", "dtype", "offsets", "extent_elems", "lb_elems", "typechar", "contiguous", "freed",
                 "reach_elems")

    def __init__(self, name: str | None = None, dtype="B", count: int = 1, typechar: str | None = None,
                 offsets=None, extent_elems: int | None = None, lb_elems: int | None = None):
        """Without a name, mpi4py's ``MPI.Datatype()``: a null datatype, equal to ``MPI.DATATYPE_NULL``."""
        if name is None:
            name, count = "DATATYPE_NULL", 0
        self.name = name
        self.dtype = np.dtype(dtype)
        self.offsets = np.arange(count) if offsets is None else np.asarray(offsets, dtype=np.int64)
        self.extent_elems = len(self.offsets) if extent_elems is None else int(extent_elems)
        #: Lower bound in elements: the lowest offset unless set (a subarray's is 0).
        self.lb_elems = (int(self.offsets.min()) if len(self.offsets) else 0) if lb_elems is None else lb_elems
        self.typechar = typechar or self.dtype.char
        #: Freed by Free (derived types only): equal to MPI.DATATYPE_NULL from then on.
        self.freed = name == "DATATYPE_NULL"
        n = len(self.offsets)
        #: Elements from an item's start to past its last element (0 for an empty type).
        self.reach_elems = int(self.offsets.max()) + 1 if n else 0
        #: One run of elements from the item's start, items back to back: buffers slice, not gather.
        self.contiguous = n == self.extent_elems and (n == 0 or self.offsets[0] == 0 and
                                                      bool(np.all(np.diff(self.offsets) == 1)))

    def __bool__(self):
        """False for a null or freed datatype, as mpi4py's handles."""
        return not self.freed

    @property
    def count(self) -> int:
        """Elements in one item."""
        return len(self.offsets)

    @property
    def size(self) -> int:
        """Bytes of data in one item of this type."""
        return self.dtype.itemsize * len(self.offsets)

    @property
    def extent(self) -> int:
        """Bytes from one item to the next."""
        return self.dtype.itemsize * self.extent_elems

    @property
    def lb(self) -> int:
        return self.dtype.itemsize * self.lb_elems

    @property
    def ub(self) -> int:
        return self.lb + self.extent

    @property
    def true_lb(self) -> int:
        """Bytes from the item's start to its first element."""
        return self.dtype.itemsize * int(self.offsets.min()) if len(self.offsets) else 0

    @property
    def true_extent(self) -> int:
        return self.dtype.itemsize * self.reach_elems - self.true_lb if len(self.offsets) else 0

    @property
    def true_ub(self) -> int:
        return self.true_lb + self.true_extent

    @property
    def typestr(self) -> str:
        """numpy's type string of one element (``'f8'``)."""
        return self.dtype.str[1:] if self.typechar != "c" else "S1"

    @property
    def is_predefined(self) -> bool:
        return bool(self.name) and self.count == 1

    is_named = is_predefined

    def elements(self, items: int) -> np.ndarray:
        """Element indices of ``items`` consecutive items, from the first item's start."""
        return (np.arange(items)[:, None] * self.extent_elems + self.offsets[None, :]).ravel()

    def span(self, items: int) -> int:
        """Elements a buffer needs to hold ``items`` items."""
        return (items - 1) * self.extent_elems + self.reach_elems if items and self.reach_elems else 0

    def Get_size(self) -> int:
        return self.size

    def Get_extent(self) -> tuple[int, int]:
        """``(lower bound, extent)`` in bytes."""
        return self.lb, self.extent

    def Get_true_extent(self) -> tuple[int, int]:
        return self.true_lb, self.true_extent

    def Get_name(self) -> str:
        return self.name

    def Set_name(self, name: str) -> None:
        self.name = str(name)

    def _derived(self, offsets, extent_elems: int, lb_elems: int | None = None) -> "Datatype":
        return Datatype("", self.dtype, typechar=self.typechar, offsets=offsets, extent_elems=extent_elems,
                        lb_elems=lb_elems)

    def _items(self, starts) -> np.ndarray:
        """Elements of items of this type starting at item positions ``starts`` (in extents)."""
        starts = np.asarray(starts, dtype=np.int64).reshape(-1)
        return (starts[:, None] * self.extent_elems + self.offsets[None, :]).ravel()

    def Create_contiguous(self, count: int) -> "Datatype":
        """``count`` items of this type in a row."""
        return self._derived(self._items(range(int(count))), int(count) * self.extent_elems)

    def Create_vector(self, count: int, blocklength: int, stride: int) -> "Datatype":
        """``count`` blocks of ``blocklength`` items, block starts ``stride`` items apart."""
        starts = [i * stride + j for i in range(count) for j in range(blocklength)]
        extent = ((count - 1) * stride + blocklength) * self.extent_elems if count else 0
        return self._derived(self._items(starts), extent)

    def Create_hvector(self, count: int, blocklength: int, stride: int) -> "Datatype":
        """As Create_vector with ``stride`` in bytes (a whole number of elements here)."""
        step = self._bytes_stride(stride)
        blocks = [self._items(range(blocklength)) + i * step for i in range(count)]
        extent = (count - 1) * step + blocklength * self.extent_elems if count else 0
        return self._derived(np.concatenate(blocks) if blocks else [], extent)

    def _bytes_stride(self, nbytes: int) -> int:
        elems, rest = divmod(int(nbytes), self.dtype.itemsize)
        if rest:
            raise refuse_value(f"a byte stride of {nbytes} is not a whole number of {self.dtype} elements")
        return elems

    def Create_indexed(self, blocklengths, displacements) -> "Datatype":
        """Blocks of ``blocklengths[i]`` items at ``displacements[i]`` (in items)."""
        starts = [d + j for n, d in zip(blocklengths, displacements) for j in range(n)]
        return self._from_starts(starts)

    def Create_indexed_block(self, blocklength: int, displacements) -> "Datatype":
        return self.Create_indexed([blocklength] * len(displacements), displacements)

    def Create_subarray(self, sizes, subsizes, starts, order: int = ORDER_C) -> "Datatype":
        """The ``subsizes`` block at ``starts`` of an array of ``sizes`` items (C or Fortran order)."""
        index = np.indices(subsizes).reshape(len(subsizes), -1) + np.asarray(starts)[:, None]
        flat = np.ravel_multi_index(tuple(index), tuple(sizes), order="F" if order == ORDER_FORTRAN else "C")
        return self._derived(self._items(np.sort(flat) if order == ORDER_C else flat),
                             int(np.prod(sizes)) * self.extent_elems, 0)

    def Create_resized(self, lb: int, extent: int) -> "Datatype":
        """This type with ``extent`` bytes from one item to the next (``lb`` must be its own)."""
        if lb != self.lb:
            raise refuse_value(f"Create_resized to lower bound {lb}: only the type's own ({self.lb}) is modelled")
        return self._derived(self.offsets, self._bytes_stride(extent), self.lb_elems)

    Resized = Create_resized

    def _from_starts(self, starts) -> "Datatype":
        if not starts:
            return self._derived([], 0)
        items = self._items(starts)
        lowest = min(starts) * self.extent_elems
        return self._derived(items, (max(starts) + 1) * self.extent_elems - lowest)

    def Dup(self) -> "Datatype":
        return Datatype(self.name, self.dtype, typechar=self.typechar, offsets=self.offsets,
                        extent_elems=self.extent_elems, lb_elems=self.lb_elems)

    Create_dup = Dup

    def Commit(self) -> "Datatype":
        return self

    def Free(self) -> None:
        if not self.name:
            self.freed = True

    def tocode(self) -> str:
        return self.typechar

    def __repr__(self):
        return f"<mpi4py.MPI.Datatype {self.name or 'derived'}>"

    def __getattr__(self, name):
        return refuse("Datatype", name, None)


def refuse_value(text: str):
    return MPIError(f"MPI datatype: {text}")


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

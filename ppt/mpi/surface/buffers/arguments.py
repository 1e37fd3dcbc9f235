"""mpi4py's buffer arguments, parsed into typed views of the caller's memory.

mpi4py's uppercase calls take a *message*: a buffer (numpy array, bytes,
bytearray, memoryview, array.array) or a list/tuple of it with a count, a
displacement and a datatype:

* ``buf``, ``[buf, datatype]``, ``[buf, count]``, ``[buf, count, datatype]``,
  ``[buf, (count, displ), datatype]``, ``[buf, count, displ, datatype]``;
* v-variants (``Scatterv``, ``Gatherv``, ``Allgatherv``, ``Alltoallv``) take
  per-rank ``counts`` and ``displs`` in place of count and displacement:
  ``[buf, counts, displs, datatype]``, ``[buf, (counts, displs), datatype]``,
  ``[buf, counts, datatype]`` (displacements: running sums of counts) or a
  bare buffer (split evenly);
* ``Alltoallw`` and ``Neighbor_alltoallw`` take, per block, a count, a displacement in bytes and a
  datatype: ``[buf, counts, displs, datatypes]`` or ``[buf, (counts, displs), datatypes]`` (one datatype
  for all blocks may stand for the list).

Without a datatype, mpi4py infers it from the buffer (a numpy array's
dtype, ``MPI.UNSIGNED_CHAR`` for bytes), as :func:`ppt.mpi.surface.buffers.datatypes.of_array`
does.  Counts and displacements are in items of the datatype.  A ``None``
buffer with a count and datatype sends that many bytes with no data (a
size-only simulation).

A message is a :class:`Buf`: ``blocks(i)`` copies block ``i`` out (a numpy
array of the datatype's elements: MPI copies a send buffer), ``put(i, value)``
copies received data into it, byte for byte as MPI does, so a receive type
differing from the send type reinterprets the bytes; a message longer than
the receive block is an error (MPI_ERR_TRUNCATE).
"""
from __future__ import annotations

from numbers import Integral

import numpy as np

from ppt.mpi.collectives.payload import snapshot
from ppt.mpi.surface.buffers.datatypes import DATATYPES, Datatype, lookup, of_array
from ppt.mpi.errors import MPIError

_BYTE = DATATYPES["UNSIGNED_CHAR"]


class Marker:
    """A named constant of mpi4py with no value of its own (``MPI.IN_PLACE``, ``MPI.BOTTOM``)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return self.name


#: ``MPI.IN_PLACE``: the receive buffer holds this rank's contribution.
IN_PLACE = Marker("IN_PLACE")
#: ``MPI.BOTTOM``: address zero as a buffer (a window made over it has no memory).
BOTTOM = Marker("BOTTOM")


class _Local:
    """Stands for the rank in the parsing of a local call's buffers (``Op.Reduce_local``): errors name no rank."""

    @staticmethod
    def error(text: str, call: str | None = None) -> MPIError:
        return MPIError(f"{call or 'MPI_Reduce_local'}: {text}")


LOCAL = _Local()


class Buf:
    """A parsed message: ``array`` (typed elements of the caller's memory, or None: sizes only),
    ``datatype``, and per block ``counts`` and ``displs`` in items of the datatype."""

    __slots__ = ("array", "datatype", "counts", "displs")

    def __init__(self, array, datatype: Datatype, counts: list[int], displs: list[int]):
        self.array = array
        self.datatype = datatype
        self.counts = counts
        self.displs = displs

    def nbytes(self, i: int = 0) -> int:
        """Bytes of block ``i``."""
        return self.counts[i] * self.datatype.size

    def _region(self, i: int):
        """Block ``i``: a view of its elements (a contiguous datatype), else their indices."""
        datatype = self.datatype
        start = self.displs[i] * datatype.extent_elems
        if datatype.contiguous:
            return self.array[start:start + self.counts[i] * datatype.count]
        return start + datatype.elements(self.counts[i])

    def block(self, i: int = 0):
        """A copy of block ``i`` (numpy elements), or None for a size-only message."""
        elements = self.elements(i)
        return snapshot(elements) if elements is not None and self.datatype.contiguous else elements

    def elements(self, i: int = 0):
        """Block ``i``'s numpy elements, a view where the datatype is contiguous (else a copy), or None for a
        size-only message: for a send whose point-to-point layer snapshots the payload itself."""
        if self.array is None:
            return None
        region = self._region(i)
        return region if self.datatype.contiguous else self.array[region]

    def put(self, rank, i: int, value) -> None:
        """Copy received ``value`` into block ``i`` (raw bytes; None: nothing to copy)."""
        if self.array is None or value is None:
            return
        region = self._region(i)
        dtype = self.array.dtype
        raw = raw_bytes(value, dtype)
        room = region.size * dtype.itemsize
        if raw.size > room:
            raise truncated(rank, raw.size, room)
        if self.datatype.contiguous:
            region.view(np.uint8)[:raw.size] = raw
        else:                                   # a scattered datatype: whole elements to their places
            values = raw[:raw.size - raw.size % dtype.itemsize].view(dtype)
            self.array[region[:values.size]] = values


def raw_bytes(value, dtype) -> np.ndarray:
    """Received ``value`` as the bytes a receive copies, byte for byte (an object that is not an array read
    as elements of ``dtype``, the receive buffer's)."""
    if not isinstance(value, np.ndarray):
        value = np.asarray(value, dtype=dtype)
    return np.ascontiguousarray(value).reshape(-1).view(np.uint8)


def truncated(rank, arrived_B: int, room_B: int) -> MPIError:
    """The error of a message of ``arrived_B`` bytes for a receive buffer of ``room_B``."""
    return rank.error(f"message truncated: {arrived_B} bytes arrived for a receive buffer of {room_B} bytes "
                      "(MPI_ERR_TRUNCATE)")


def _memory(rank, obj, what: str, msg=None):
    """``(bytes view, inferred datatype)`` of buffer ``obj`` (of message ``msg``); raises for an object
    with no buffer."""
    if isinstance(obj, np.ndarray):
        if not (obj.flags.c_contiguous or obj.flags.f_contiguous):
            raise rank.error(f"the {what} buffer is not contiguous; pass a contiguous array (np.ascontiguousarray)")
        return obj.ravel(order="K").view(np.uint8), of_array(obj)     # memory order, as mpi4py reads it
    try:
        view = memoryview(obj)
    except TypeError:
        shown = type(obj if msg is None else msg).__name__
        verb = {"receive": "receive into", "send": "send from"}.get(what, what)
        raise rank.error(f"cannot {verb} a {shown}: give a numpy array, bytes, bytearray or "
                         "[buffer, datatype]") from None
    if not view.c_contiguous:
        raise rank.error(f"the {what} buffer is not contiguous")
    return np.frombuffer(view.cast("B") if view.format != "B" or view.ndim != 1 else view, np.uint8), \
        lookup(view.format[-1:]) or _BYTE


def writable_bytes(rank, obj, what: str) -> np.ndarray:
    """The bytes of buffer ``obj``: a writable numpy view of its memory (an RMA window's)."""
    raw = _memory(rank, obj, what)[0]
    if not raw.flags.writeable:
        raise rank.error(f"the {what} buffer is read-only; give a writable one (a numpy array, a bytearray)")
    return raw


def address_of(rank, obj) -> int:
    """The address of buffer ``obj``'s first byte in the rank's memory (MPI_Get_address)."""
    return _memory(rank, obj, "location")[0].ctypes.data


def _typed(rank, raw, datatype):
    if raw is None:
        return None
    itemsize = datatype.dtype.itemsize
    usable = raw.size - raw.size % itemsize
    return raw[:usable].view(datatype.dtype)


def _datatype(rank, spec):
    datatype = lookup(spec)
    if datatype is None:
        raise rank.error(f"{spec!r} is not a datatype: give one such as MPI.DOUBLE")
    return datatype


def _is_type(spec) -> bool:
    return isinstance(spec, (Datatype, str))


def _split(rank, msg, vector: bool):
    """``(buffer object, count(s), displ(s), datatype or None)`` of message ``msg``."""
    if not isinstance(msg, (list, tuple)):
        return msg, None, None, None
    parts = list(msg)
    datatype = parts.pop() if len(parts) >= 2 and _is_type(parts[-1]) else None
    if not parts or len(parts) > 3:
        raise rank.error(f"cannot read a message from a {type(msg).__name__} of {len(msg)} items: give "
                         "[buf, datatype], [buf, count, datatype] or [buf, count, displ, datatype]")
    buf, counts, displs = (parts + [None, None])[:3]
    if displs is None and isinstance(counts, (list, tuple)) and len(counts) == 2 and \
            (not vector or not isinstance(counts[0], Integral)):
        counts, displs = counts
    return buf, counts, displs, datatype


def whole_array(msg):
    """The array of a message in the form most calls give, ``[array, datatype]`` with a C-contiguous numpy
    array whose elements are the predefined datatype's, the whole array; else None (the general reading of
    :func:`message` reads it the same way, slower)."""
    if type(msg) is not list and type(msg) is not tuple or len(msg) != 2:
        return None
    array, datatype = msg
    if type(array) is not np.ndarray or type(datatype) is not Datatype or datatype.reach_elems != 1 or \
            datatype.extent_elems != 1 or array.dtype != datatype.dtype or not array.flags.c_contiguous:
        return None
    return array


def _whole(msg):
    """The :class:`Buf` of one block of a message in the form :func:`whole_array` reads; else None."""
    array = whole_array(msg)
    return None if array is None else Buf(array.reshape(-1), msg[1], [array.size], [0])


def message(rank, msg, blocks: int = 1, what: str = "send"):
    """``msg`` as a :class:`Buf` of ``blocks`` equal blocks (mpi4py's simple message)."""
    if blocks == 1:
        whole = _whole(msg)
        if whole is not None:
            return whole
    buf, count, displ, spec = _split(rank, msg, False)
    if buf is None:
        datatype = _datatype(rank, spec) if spec is not None else _BYTE
        return Buf(None, datatype, [int(count or 0)] * blocks, [0] * blocks)
    raw, inferred = _memory(rank, buf, what, msg)
    datatype = _datatype(rank, spec) if spec is not None else inferred
    if datatype is None:
        raise rank.error(f"cannot infer a datatype for a {buf.dtype} buffer; give [buf, datatype]")
    array = _typed(rank, raw, datatype)
    displ = int(displ or 0)
    if count is None:
        items = _items_in(array.size, datatype) - displ
        if items % blocks:
            raise rank.error(f"message: cannot split {items} items of the {what} buffer into {blocks} "
                             "equal blocks; give the count")
        count = items // blocks
    count = int(count)
    if datatype.span(displ + count * blocks) > array.size:
        raise rank.error(f"the {what} buffer holds {_items_in(array.size, datatype)} items, fewer than "
                         f"the {count * blocks} the call needs")
    return Buf(array, datatype, [count] * blocks, [displ + i * count for i in range(blocks)])


def vector(rank, msg, blocks: int, what: str = "send", counts=None):
    """``msg`` as a :class:`Buf` of ``blocks`` blocks with their own counts and displacements
    (``counts``: given by the call, as Reduce_scatter's ``recvcounts``; ``msg`` then names none)."""
    if counts is None:
        buf, counts, displs, spec = _split(rank, msg, True)
    else:
        buf, _, displs, spec = _split(rank, msg, False)
    if buf is None:
        datatype = _datatype(rank, spec) if spec is not None else _BYTE
        counts = _per_block(rank, counts or 0, blocks, "counts")
        return Buf(None, datatype, counts, _per_block(rank, displs, blocks, "displs", counts))
    raw, inferred = _memory(rank, buf, what, msg)
    datatype = _datatype(rank, spec) if spec is not None else inferred
    if datatype is None:
        raise rank.error(f"cannot infer a datatype for a {buf.dtype} buffer; give [buf, counts, displs, datatype]")
    array = _typed(rank, raw, datatype)
    if counts is None:
        items = _items_in(array.size, datatype)
        if items % blocks:
            raise rank.error(f"message: cannot split {items} items of the {what} buffer into {blocks} "
                             "equal blocks; give the counts")
        counts = items // blocks
    counts = _per_block(rank, counts, blocks, "counts")
    displs = _per_block(rank, displs, blocks, "displs", counts)
    end = max((d + c for d, c in zip(displs, counts) if c), default=0)
    if datatype.span(end) > array.size:
        raise rank.error(f"the {what} buffer holds {_items_in(array.size, datatype)} items; counts {counts} at "
                         f"displacements {displs} need {end}")
    return Buf(array, datatype, counts, displs)


class Parts:
    """A message whose blocks are :class:`Buf` s of their own (Alltoallw's: each block its datatype);
    ``block``, ``nbytes`` and ``put`` as a Buf's."""

    __slots__ = ("parts",)

    def __init__(self, parts: list):
        self.parts = parts

    def nbytes(self, i: int = 0) -> int:
        return self.parts[i].nbytes(0)

    def block(self, i: int = 0):
        return self.parts[i].block(0)

    def put(self, rank, i: int, value) -> None:
        self.parts[i].put(rank, 0, value)


def wvector(rank, msg, blocks: int, what: str = "send") -> Parts:
    """``msg``, ``[buf, counts, displs, datatypes]`` or ``[buf, (counts, displs), datatypes]``, as
    ``blocks`` blocks: block i is ``counts[i]`` items of ``datatypes[i]`` from byte ``displs[i]`` of ``buf``
    (None: sizes only)."""
    if not isinstance(msg, (list, tuple)) or len(msg) not in (3, 4) or len(msg) == 3 and \
            not (isinstance(msg[1], (list, tuple)) and len(msg[1]) == 2):
        raise rank.error("give the message as [buf, counts, displs, datatypes] or "
                         "[buf, (counts, displs), datatypes]")
    buf, counts, displs, types = (msg[0], *msg[1], msg[2]) if len(msg) == 3 else msg
    if counts is None or displs is None:
        raise rank.error("give the counts and the displacements (bytes) of every block")
    counts = _per_block(rank, counts, blocks, "counts")
    displs = _per_block(rank, displs, blocks, "displs (bytes)")
    types = [types] * blocks if _is_type(types) else list(types)
    if len(types) != blocks:
        raise rank.error(f"give {blocks} datatypes, got {len(types)}")
    raw = None if buf is None else _memory(rank, buf, what, msg)[0]
    parts = []
    for count, displ, spec in zip(counts, displs, types):
        datatype = _datatype(rank, spec)
        array = None if raw is None else _typed(rank, raw[displ:], datatype)
        if array is not None and datatype.span(count) > array.size:
            raise rank.error(f"the {what} buffer holds {raw.size} bytes; {count} items of {datatype.name} at byte "
                             f"{displ} do not fit")
        parts.append(Buf(array, datatype, [count], [0]))
    return Parts(parts)


def _items_in(elements: int, datatype) -> int:
    """Items of ``datatype`` a buffer of ``elements`` elements holds (mpi4py: its size over the extent)."""
    return elements // datatype.extent_elems if datatype.extent_elems else 0


def _per_block(rank, values, blocks: int, what: str, counts=None) -> list[int]:
    if values is None:                                   # displacements: running sums of the counts
        return [sum(counts[:i]) for i in range(blocks)]
    if isinstance(values, Integral):
        return [int(values)] * blocks if counts is None else [int(values) * i for i in range(blocks)]
    values = [int(v) for v in values]
    if len(values) != blocks or min(values, default=0) < 0:
        raise rank.error(f"give {blocks} {what} (integers >= 0), got {values}")
    return values


def outgoing(rank, msg):
    """``(payload, nbytes)`` to send for message ``msg``: its data, which the point-to-point send snapshots
    (``Comm._isend``: MPI copies a send buffer, and simulated ranks share memory), or, for an object with
    no buffer, the object itself (nbytes None)."""
    if msg is not None and not isinstance(msg, (list, tuple)) and not _has_buffer(msg):
        return msg, None
    buf = message(rank, msg)
    return buf.elements(0), buf.nbytes(0)


def _has_buffer(obj) -> bool:
    if isinstance(obj, np.ndarray):
        return True
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


def fill(rank, buf, value) -> None:
    """Copy received ``value`` into receive buffer ``buf`` (a :class:`Buf` or an mpi4py message)."""
    if buf is None:
        return
    if not isinstance(buf, Buf):
        buf = message(rank, buf, 1, "receive")
    buf.put(rank, 0, value)

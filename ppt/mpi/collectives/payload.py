"""Real payloads carried by simulated messages: their size in bytes and how to cut them in chunks."""
from __future__ import annotations

import pickle
import sys

import numpy as np

#: Bytes of a Python scalar (a 64-bit number).
SCALAR_B = 8


def size_of(obj) -> int:
    """Bytes a message carrying ``obj`` occupies: buffer size for arrays/bytes, 8 for numbers, else its pickle."""
    if obj is None:
        return 0
    if isinstance(obj, np.ndarray):
        return int(obj.nbytes)
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return len(obj)
    if isinstance(obj, np.generic):
        return int(obj.itemsize)
    if isinstance(obj, complex):
        return 2 * SCALAR_B
    if isinstance(obj, (bool, int, float)):
        return SCALAR_B
    if isinstance(obj, str):
        return len(obj.encode())
    return len(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


#: Payload types no receiver can change: sent as they are.
IMMUTABLE = frozenset({type(None), bool, int, float, complex, str, bytes})


def sized_copy(obj) -> tuple:
    """``(copy, nbytes)`` of a lowercase (pickled) message's payload, as MPI would deliver it.

    Ranks share one address space, so a message must be a snapshot: a sender
    that changes the object after sending, or a receiver that changes what it
    got, must not change anyone else's copy.  Immutable objects go as they are,
    numpy arrays are copied, anything else makes a pickle round trip (whose
    size it reports, as :func:`size_of` would).
    """
    kind = type(obj)
    if kind in IMMUTABLE or kind is tuple and all(type(item) in IMMUTABLE for item in obj):
        return obj, size_of(obj)
    if kind is np.ndarray:
        return snapshot(obj), int(obj.nbytes)
    if isinstance(obj, np.generic):
        return obj, int(obj.itemsize)
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return pickle.loads(data), (len(data) if not isinstance(obj, (bytearray, memoryview)) else len(obj))


def split_sizes(nbytes: int, parts: int) -> list[int]:
    """``nbytes`` cut into ``parts`` near-equal integer pieces (the first ones one byte larger)."""
    base, extra = divmod(nbytes, parts)
    return [base + (i < extra) for i in range(parts)]


def split(obj, parts: int) -> list:
    """``obj`` cut into ``parts`` chunks: numpy arrays along axis 0; any other object whole in chunk 0."""
    if isinstance(obj, np.ndarray) and obj.ndim:
        return np.array_split(obj, parts)
    return [obj] + [None] * (parts - 1)


def join(chunks: list):
    """Inverse of :func:`split`."""
    if isinstance(chunks[0], np.ndarray) and chunks[0].ndim:
        return np.concatenate(chunks)
    return chunks[0]


#: Snapshots of arrays of at least this many bytes are made in recycled buffers (:class:`SnapshotBuffers`).
RECYCLED_B = 1 << 16


class SnapshotBuffers:
    """Recycled memory for large message snapshots.

    A send's payload is copied at the send (ranks share one process); a program streaming large messages
    would otherwise ask the C heap for a fresh block per message and give it back at delivery, which glibc
    serves with fresh pages from the kernel, each zeroed on first touch (seconds of system time for an
    OSU-style bandwidth sweep).  Here a snapshot is a view of a buffer this keeps, by power-of-two size,
    and a buffer is used again once no snapshot of it is alive (nothing but this refers to it).  The
    buffers kept hold ``limit_B`` bytes at most (beyond: plain copies); the program's own heap is not
    touched, so its allocations cost what they cost in its own process.
    """

    def __init__(self, limit_B: int = 512 << 20):
        self.limit_B = limit_B
        self.kept_B = 0
        self.by_size: dict[int, list] = {}

    def copy(self, array: np.ndarray) -> np.ndarray:
        """A C-ordered copy of ``array`` in a recycled buffer."""
        size = 1 << (int(array.nbytes) - 1).bit_length()
        buffers = self.by_size.setdefault(size, [])
        for buffer in buffers:
            if sys.getrefcount(buffer) == 3:        # the list, this loop and the call: no snapshot alive
                break
        else:
            if self.kept_B + size > self.limit_B:
                return array.copy()
            buffer = np.empty(size, dtype=np.uint8)
            buffers.append(buffer)
            self.kept_B += size
        out = buffer[:array.nbytes].view(array.dtype).reshape(array.shape)
        np.copyto(out, array)
        return out


_BUFFERS = SnapshotBuffers()


def snapshot(array: np.ndarray) -> np.ndarray:
    """A copy of ``array`` that nothing else changes, as an MPI library's copy of a send buffer is."""
    if array.nbytes < RECYCLED_B or array.dtype.hasobject:
        return array.copy()
    return _BUFFERS.copy(array)

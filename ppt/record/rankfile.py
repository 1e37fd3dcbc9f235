"""One rank's record files, as ``pmpi_record.c`` writes them: ``rank-NNNNNN.rec`` and ``rank-NNNNNN.aux``.

``.rec``: a header (the magic ``PPTREC``, then int32 version, rank, size and the number of call
names, then the names, each ending in a NUL, padded to 8 bytes), one :data:`RECORD` per call, and
an end record (call -1) that ``MPI_Finalize`` writes.  ``.aux``: the records' int64 values, each
record owning the next ``naux``.  Times are int64 nanoseconds (wall: ``CLOCK_REALTIME``; CPU: the
calling thread's clock); the other fields are already the op stream's (docs/op-stream.md).
"""
from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np

from ppt.errors import TraceError

MAGIC = b"PPTREC\0\0"
#: The layout version; ``RECORD_VERSION`` in pmpi_record.c.
VERSION = 1
#: One call's record: the C ``record_t`` (80 bytes, no padding).
RECORD = np.dtype([("call", "<i4"), ("comm", "<i4"), ("peer", "<i4"), ("tag", "<i4"), ("root", "<i4"),
                   ("op", "<i4"), ("flag", "<i4"), ("naux", "<i4"), ("wall0_ns", "<i8"), ("wall1_ns", "<i8"),
                   ("cpu0_ns", "<i8"), ("cpu1_ns", "<i8"), ("nbytes", "<i8"), ("request", "<i8")])
assert RECORD.itemsize == 80
END = -1


class RankRecord(NamedTuple):
    """A rank's calls: ``names`` (the call table ``records["call"]`` indexes), ``records`` (of
    :data:`RECORD`, the end record removed) and ``aux`` (int64)."""

    rank: int
    size: int
    names: tuple
    records: np.ndarray
    aux: np.ndarray


def path(folder, rank: int, ext: str) -> str:
    return os.path.join(os.fspath(folder), f"rank-{rank:06d}.{ext}")


def read(folder, rank: int) -> RankRecord:
    """Rank ``rank``'s records in ``folder``, checked whole (TraceError, one line, if not)."""
    rec = path(folder, rank, "rec")
    try:
        data = np.fromfile(rec, dtype=np.uint8)
        aux = np.fromfile(path(folder, rank, "aux"), dtype="<i8")
    except OSError:
        raise TraceError(f"rank {rank} wrote no record ({rec} is missing): did it call MPI_Init?") from None
    if data[:8].tobytes() != MAGIC or len(data) < 24:
        raise TraceError(f"{rec} is not a record file of ppt record")
    version, rank_in, size, ncalls = np.frombuffer(data[8:24].tobytes(), dtype="<i4").tolist()
    if version != VERSION:
        raise TraceError(f"{rec} has record layout {version}; this ppt reads {VERSION}: record the program again")
    if rank_in != rank:
        raise TraceError(f"{rec} holds rank {rank_in}'s record, not rank {rank}'s: the file was renamed")
    blob = data[24:24 + 64 * ncalls].tobytes().split(b"\0")[:ncalls]      # a name is under 64 bytes
    names = tuple(name.decode("ascii") for name in blob)
    offset = 24 + sum(len(name) + 1 for name in blob)
    offset += -offset % 8
    body = data[offset:]
    if len(body) % RECORD.itemsize:
        raise TraceError(f"{rec} ends inside a record: the run was cut short; record it again")
    records = body.view(RECORD)
    if not len(records) or records["call"][-1] != END:
        raise TraceError(f"rank {rank}'s record has no end: the program did not reach MPI_Finalize")
    records = records[:-1]
    if len(records) and (records["call"].min() < 0 or records["call"].max() >= ncalls):
        raise TraceError(f"{rec} names a call outside its call table: the file is damaged")
    if int(records["naux"].sum()) != len(aux):
        raise TraceError(f"{path(folder, rank, 'aux')} holds {len(aux)} values where the records own "
                         f"{int(records['naux'].sum())}: the file is damaged")
    return RankRecord(rank, size, names, records, aux)

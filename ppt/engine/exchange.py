"""One window's exchange between simulation ranks, and what the windows cost.

Each rank sends every other rank one part (its cross-rank events, its exchange models' data and its
stop note, pickled once per destination; its own part never leaves it) and one fixed-size header of
``size + 1`` float64: its earliest pending event time, then the bytes of its part for each rank.  The
headers go round in one ``Allgather`` of a numpy array, so every rank knows the window's start (the
least earliest time) and how many bytes come its way before any part moves; the parts then travel
point to point (``Isend``/``Irecv`` of raw bytes, no size round and no pickled lists of lists).

:class:`WindowStats` counts, per rank, windows, events, bytes sent and the wall time spent running
windows versus exchanging (waiting for the slowest rank included).  Setting ``PPT_WINDOW_STATS`` to a
path prefix makes every rank write its totals as JSON to ``<prefix>.<rank>`` when the process ends
(``ppt bench parallel`` reads them).
"""
from __future__ import annotations

import atexit
import json
import os
import pickle
import time

import numpy as np

#: Environment variable: path prefix of the per-rank window statistics files.
STATS_VARIABLE = "PPT_WINDOW_STATS"


class WindowStats:
    """Totals of one rank's parallel windows (seconds are wall time)."""

    __slots__ = ("windows", "events", "bytes_sent", "parts_sent", "run_s", "exchange_s", "wait_s", "lookahead_s")

    def __init__(self):
        self.windows = self.events = self.bytes_sent = self.parts_sent = 0
        #: Running windows; exchanging (packing, moving, unpacking, delivering); of which waiting in the
        #: header round for the other ranks to finish their windows.
        self.run_s = self.exchange_s = self.wait_s = 0.0
        #: Window length of the last run, s.
        self.lookahead_s = 0.0

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in self.__slots__}

    def write(self, path: str) -> None:
        with open(path, "w") as out:
            json.dump(self.as_dict(), out, sort_keys=True)


#: This process's totals over every window loop it ran.
STATS = WindowStats()


def _write_stats_at_exit(rank: int) -> None:
    prefix = os.environ.get(STATS_VARIABLE)
    if prefix and not getattr(_write_stats_at_exit, "armed", False):
        _write_stats_at_exit.armed = True
        atexit.register(lambda: STATS.write(f"{prefix}.{rank}"))


def exchange(comm, rank: int, size: int, local_next_s: float, parts: list) -> tuple[np.ndarray, list]:
    """Send ``parts[k]`` to rank k (k != rank) with this rank's earliest time ``local_next_s``.

    Returns every rank's earliest time (array of ``size``, s) and the parts received, by source (this
    rank's own part as it was given, never pickled).
    """
    from mpi4py import MPI
    _write_stats_at_exit(rank)
    blobs = [b"" if k == rank else pickle.dumps(part, pickle.HIGHEST_PROTOCOL) for k, part in enumerate(parts)]
    header = np.empty(size + 1, dtype=np.float64)
    header[0] = local_next_s
    header[1:] = [len(blob) for blob in blobs]
    headers = np.empty((size, size + 1), dtype=np.float64)
    clock = time.perf_counter()
    comm.Allgather(header, headers)
    STATS.wait_s += time.perf_counter() - clock
    inbound = headers[:, 1 + rank].astype(np.int64)
    buffers = [bytearray(int(n)) for n in inbound]
    requests = [comm.Irecv(buffers[k], source=k, tag=0) for k in range(size) if inbound[k]]
    requests += [comm.Isend(blob, dest=k, tag=0) for k, blob in enumerate(blobs) if blob]
    MPI.Request.Waitall(requests)
    STATS.bytes_sent += sum(map(len, blobs))
    STATS.parts_sent += sum(1 for blob in blobs if blob)
    received = [parts[k] if k == rank else pickle.loads(buffers[k]) for k in range(size)]
    return headers[:, 0], received

"""One window's exchange between simulation ranks, and what the windows cost.

Each rank sends every other rank one part (its cross-rank events, its exchange models' data and its
stop note, pickled once per destination; its own part never leaves it) with its earliest pending event
time, in one ``Alltoall`` of fixed-size slots per window (:class:`Exchanger`), so every rank learns the
window's start (the least earliest time) in the same collective that moves the parts.

:class:`WindowStats` counts, per rank, windows, events, bytes sent and the wall time spent running
windows versus exchanging (waiting for the slowest rank included).  Setting the environment variable
that :data:`STATS_VARIABLE` names to a path prefix makes every rank write its totals as JSON to
``<prefix>.<rank>`` when the process ends (``ppt bench parallel`` reads them).
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


#: Ranks whose statistics file is written at exit (one per process).
_WRITES: set = set()


def _write_stats_at_exit(rank: int) -> None:
    """Write :data:`STATS` to ``<prefix>.<rank>`` when the process ends, the prefix being the value of the
    environment variable :data:`STATS_VARIABLE` names, if it is set."""
    prefix = os.environ.get(STATS_VARIABLE)
    if prefix and not _WRITES:
        _WRITES.add(rank)
        atexit.register(STATS.write, f"{prefix}.{rank}")


#: Bytes of a part that travel in the window's one collective at first (more come point to point).
FIRST_SLOT_B = 4096
#: Fields of a slot's header (float64): the sender's earliest time, its part's bytes, its largest part's bytes.
HEADER = 3
#: Windows whose largest part is below a quarter of the slot before the slot halves.
SHRINK_AFTER = 64


class Exchanger:
    """The window exchanges of one window loop: one ``Alltoall`` of fixed slots per window.

    Each rank sends every rank a slot of :data:`HEADER` float64 (its earliest pending event time, the
    bytes of its pickled part for that rank and of its largest part) and the first ``slot_B`` bytes
    of that part; a part longer than the slot sends the rest point to point (the receiver knows from the
    header), and every rank, seeing every rank's largest part, grows the slot for the next window to
    fit it (and halves it after :data:`SHRINK_AFTER` windows of small parts), the same everywhere.
    So a window costs one collective when the parts fit, with no pickled lists and no size round.
    """

    def __init__(self, comm, rank: int, size: int):
        from mpi4py import MPI      # here, not per window: an import statement costs tens of us each time
        self.waitall = MPI.Request.Waitall
        self.comm, self.rank, self.size = comm, rank, size
        self.slot_B = FIRST_SLOT_B
        self.small = 0
        _write_stats_at_exit(rank)

    def exchange(self, local_next_s: float, parts: list) -> tuple[np.ndarray, list]:
        """Send ``parts[k]`` to rank k (k != rank) with this rank's earliest time ``local_next_s``.

        Returns every rank's earliest time (array of ``size``, s) and the parts received, by source
        (this rank's own part as it was given, never pickled).  A part None (nothing for that rank) sends
        no bytes and arrives as None.
        """
        comm, rank, size, slot_B = self.comm, self.rank, self.size, self.slot_B
        blobs = [b"" if k == rank or part is None else pickle.dumps(part, pickle.HIGHEST_PROTOCOL)
                 for k, part in enumerate(parts)]
        largest = max(map(len, blobs))
        width = HEADER * 8 + slot_B
        out = np.zeros((size, width), dtype=np.uint8)
        head = out[:, :HEADER * 8].view(np.float64)
        head[:, 0], head[:, 2] = local_next_s, largest
        for k, blob in enumerate(blobs):
            head[k, 1] = len(blob)
            first = blob[:slot_B]
            out[k, HEADER * 8:HEADER * 8 + len(first)] = np.frombuffer(first, dtype=np.uint8)
        got = np.empty_like(out)
        clock = time.perf_counter()
        comm.Alltoall(out, got)
        STATS.wait_s += time.perf_counter() - clock
        heads = got[:, :HEADER * 8].view(np.float64)
        lengths = heads[:, 1].astype(np.int64)
        rests = {k: bytearray(int(lengths[k]) - slot_B) for k in range(size) if lengths[k] > slot_B}
        requests = [comm.Irecv(rest, source=k, tag=1) for k, rest in rests.items()]
        requests += [comm.Isend(blob[slot_B:], dest=k, tag=1) for k, blob in enumerate(blobs) if len(blob) > slot_B]
        if requests:
            self.waitall(requests)
        received = []
        for k in range(size):
            if k == rank:
                received.append(parts[k])
                continue
            if not lengths[k]:
                received.append(None)
                continue
            data = got[k, HEADER * 8:HEADER * 8 + min(int(lengths[k]), slot_B)].tobytes()
            received.append(pickle.loads(data + rests[k] if k in rests else data))
        self._resize(int(heads[:, 2].max()))
        STATS.bytes_sent += sum(map(len, blobs))
        STATS.parts_sent += sum(1 for blob in blobs if blob)
        return heads[:, 0].copy(), received

    def _resize(self, largest_B: int) -> None:
        """The next window's slot, from every rank's largest part of this one (so the same everywhere)."""
        if largest_B > self.slot_B:
            self.slot_B = 1 << (largest_B - 1).bit_length()
            self.small = 0
        elif 4 * largest_B < self.slot_B and self.slot_B > FIRST_SLOT_B:
            self.small += 1
            if self.small >= SHRINK_AFTER:
                self.slot_B //= 2
                self.small = 0
        else:
            self.small = 0

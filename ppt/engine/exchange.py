"""One window's exchange between simulation ranks, and what the windows cost.

Each rank sends every other rank one part with its earliest pending event time, in one ``Alltoall`` of
fixed-size slots per window (:class:`Exchanger`), so every rank learns the window's start (the least
earliest time) in the same collective that moves the parts.  A part is a pair: raw bytes (fixed C
records, which the compiled cores pack and unpack themselves and which travel as they are) and a Python
object (a stop note, Python events, a model's objects), pickled only when there is one.  A rank's own
part never leaves it.

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
import struct
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


#: Bytes of a part that the first message of a window carries at first, past its header (more come in a
#: second message); grown to fit the largest part any rank sent.
FIRST_SLOT_B = 4096
#: Fields of a message's header (float64): the sender's earliest time, the bytes of its part's raw section
#: and of its pickled object for this rank, and the bytes of its largest part for any rank.
HEADER = 4
_HEADER = struct.Struct(f"{HEADER}d")
pack_header, unpack_header = _HEADER.pack_into, _HEADER.unpack_from
#: Message tags: a window's first message, and the rest of a part longer than the slot.
FIRST_TAG, REST_TAG = 7, 8


class Exchanger:
    """The window exchanges of one window loop: one message to and from every other rank per window.

    Each rank sends every other rank one message: a header of :data:`HEADER` float64 (its earliest
    pending event time, the bytes of its part's two sections for that rank and of its largest part) and
    the first ``slot_B`` bytes of the part (raw section, then the pickled object), no more than the part
    has, into a receive buffer of ``slot_B`` past the header.  A part longer than the slot sends its
    rest in a second message (the receiver knows from the header), and every rank, seeing every rank's
    largest part, grows the slot for the next window to fit it, the same everywhere.  So a window costs
    one message each way per pair of ranks, each of the bytes the part has (an ``Alltoall`` of fixed
    slots moved the whole slot, three times slower on shared memory for the 6 to 36 kB parts of
    typical windows), and nothing is pickled when the parts are raw records only.
    """

    def __init__(self, comm, rank: int, size: int):
        from mpi4py import MPI      # here, not per window: an import statement costs tens of us each time
        self.waitall = MPI.Request.Waitall
        self.comm, self.rank, self.size = comm, rank, size
        self.peers = [k for k in range(size) if k != rank]
        self._resize_slot(FIRST_SLOT_B)
        _write_stats_at_exit(rank)

    def _resize_slot(self, slot_B: int) -> None:
        """Slots of ``slot_B`` bytes past the header: a send and a receive buffer per rank."""
        self.slot_B = slot_B
        self.width = HEADER * 8 + slot_B
        self.out = [bytearray(self.width) for _ in range(self.size)]
        self.got = [bytearray(self.width) for _ in range(self.size)]

    def exchange(self, local_next_s: float, parts: list) -> tuple[list, list]:
        """Send ``parts[k]`` to rank k (k != rank) with this rank's earliest time ``local_next_s``.

        A part is None (nothing for that rank: only the header travels) or a pair ``(raw, obj)``: ``raw``
        a bytes-like object sent as it is (``b""`` for none), ``obj`` any picklable object (None for
        none, pickling nothing).  Returns every rank's earliest time (list of ``size``, s) and the parts
        received, by source: None, or ``(raw, obj)`` with ``raw`` a read-only bytes-like object that
        holds until the next exchange (a view of the receive buffer: tens of MB a window on a million
        nodes, not copied), this rank's own part as it was given.
        """
        comm, rank, slot_B, peers = self.comm, self.rank, self.slot_B, self.peers
        dumps, first_B = pickle.dumps, HEADER * 8
        datas, raw_B = [b""] * self.size, [0] * self.size
        for k in peers:
            part = parts[k]
            if part is not None:
                raw, obj = part
                datas[k] = raw if obj is None else bytes(raw) + dumps(obj, pickle.HIGHEST_PROTOCOL)
                raw_B[k] = len(raw)
        largest = max(map(len, datas))
        clock = time.perf_counter()
        requests = [comm.Irecv(self.got[k], source=k, tag=FIRST_TAG) for k in peers]
        for k in peers:
            out, data = self.out[k], datas[k]
            pack_header(out, 0, local_next_s, raw_B[k], len(data) - raw_B[k], largest)
            n = min(len(data), slot_B)
            out[first_B:first_B + n] = memoryview(data)[:n]
            requests.append(comm.Isend(memoryview(out)[:first_B + n], dest=k, tag=FIRST_TAG))
        self.waitall(requests)
        STATS.wait_s += time.perf_counter() - clock
        heads = [(local_next_s, 0.0, 0.0, largest) if k == rank else unpack_header(self.got[k], 0)
                 for k in range(self.size)]
        rests = {k: bytearray(int(heads[k][1] + heads[k][2]) - slot_B) for k in peers
                 if heads[k][1] + heads[k][2] > slot_B}
        if rests or largest > slot_B:
            requests = [comm.Irecv(rest, source=k, tag=REST_TAG) for k, rest in rests.items()]
            requests += [comm.Isend(datas[k][slot_B:], dest=k, tag=REST_TAG) for k in peers
                         if len(datas[k]) > slot_B]
            self.waitall(requests)
        received = [parts[k] if k == rank else None for k in range(self.size)]
        for k in peers:
            raw_n, obj_n = int(heads[k][1]), int(heads[k][2])
            if not raw_n + obj_n:
                continue
            data = memoryview(self.got[k])[first_B:first_B + min(raw_n + obj_n, slot_B)].toreadonly()
            if k in rests:
                data = bytes(data) + rests[k]
            received[k] = (data[:raw_n], pickle.loads(data[raw_n:])) if obj_n else (data, None)
        largest_B = int(max(head[3] for head in heads))
        if largest_B > slot_B:
            self._resize_slot(1 << (largest_B - 1).bit_length())
        STATS.bytes_sent += sum(map(len, datas))
        STATS.parts_sent += sum(1 for data in datas if data)
        return [head[0] for head in heads], received

"""A recorded run as an op-stream trace: :class:`RecordedTrace` reads the rank files of ``ppt record``.

Each record becomes one op (docs/op-stream.md): its kind from the call's name
(:func:`ppt.traces.callkinds.kind_of`: the DUMPI reader's mapping, and the calls DUMPI lacks; a name
neither lists is OTHER), the other
fields as the C library resolved them.  Times: ``start_s`` counts from the trace's start (the
earliest first call of any rank); ``gap_wall_s`` is a call's start minus the previous call's end
(the first op's: from the trace's start), ``gap_cpu_s`` the same on the rank's CPU clock (the
first op's: its wall gap), ``call_s`` its end minus its start.  Seconds throughout.
"""
from __future__ import annotations

import os
from collections import Counter

import numpy as np

from ppt.errors import TraceError
from ppt.oprecord import OP_DTYPE, Op
from ppt.record import rankfile
from ppt.traces.opstream import CHUNK_OPS, OpChunk, OpTrace
from ppt.traces.callkinds import kind_of

_COPIED = ("comm", "peer", "tag", "root", "op", "flag", "nbytes", "request")

def ops_of(record: rankfile.RankRecord, origin_ns: int) -> tuple:
    """(ops of :data:`OP_DTYPE`, aux, call names) of one rank; times count from ``origin_ns`` (wall ns)."""
    r = record.records
    used, call = np.unique(r["call"], return_inverse=True)
    names = [record.names[i] for i in used]
    ops = np.zeros(len(r), OP_DTYPE)
    ops["kind"] = np.array([kind_of(name) for name in names], dtype=np.int16)[call]
    ops["call"] = call
    for field in _COPIED:
        ops[field] = r[field]
    ops["aux_len"] = r["naux"]
    ops["aux_start"] = np.cumsum(r["naux"]) - r["naux"]
    if len(r):
        wall0, wall1, cpu0, cpu1 = (r[f] for f in ("wall0_ns", "wall1_ns", "cpu0_ns", "cpu1_ns"))
        ops["start_s"] = (wall0 - origin_ns) * 1e-9
        ops["call_s"] = (wall1 - wall0) * 1e-9
        ops["gap_wall_s"] = (wall0 - np.concatenate(([origin_ns], wall1[:-1]))) * 1e-9
        ops["gap_cpu_s"][1:] = (cpu0[1:] - cpu1[:-1]) * 1e-9
        ops["gap_cpu_s"][0] = ops["gap_wall_s"][0]
    return ops, record.aux, names


def _summarize(record: rankfile.RankRecord) -> dict:
    """What the trace tells of a rank without its stream: its calls, the OTHER ones, whether it has
    MPI_Init, its span (first start, last end; wall-clock ns) and its positive gaps after MPI_Init
    (else after its first call) on each clock, s."""
    r = record.records
    ops, _, names = ops_of(record, int(r["wall0_ns"][0]) if len(r) else 0)
    kinds = ops["kind"]
    inits = np.flatnonzero(kinds == Op.INIT)
    after = inits[0] + 1 if len(inits) else 1
    counts = np.bincount(ops["call"], minlength=len(names))
    return {"calls": Counter(dict(zip(names, counts.tolist()))),
            "has_init": bool(len(inits)),
            "span_ns": (int(r["wall0_ns"][0]), int(r["wall1_ns"].max())) if len(r) else None,
            "gaps": (float(np.clip(ops["gap_wall_s"][after:], 0, None).sum()),
                     float(np.clip(ops["gap_cpu_s"][after:], 0, None).sum()))}


class RecordedTrace(OpTrace):
    """The op-stream trace of the rank files ``ppt record`` left in ``folder`` (``num_ranks`` of them),
    labelled ``name``.

    Every rank file is read and checked once here (TraceError, one line, for a missing or unfinished
    rank) to learn the summary; ``stream(rank)`` reads the rank again.
    """

    def __init__(self, folder, num_ranks: int, name: str):
        self.folder = os.fspath(folder)
        self.num_ranks = num_ranks
        self.meta_path = self.folder
        self._name = name
        self._summary = []
        for rank in range(num_ranks):
            record = rankfile.read(self.folder, rank)
            if record.size != num_ranks:
                raise TraceError(f"rank {rank} ran in a job of {record.size} ranks, not {num_ranks}: "
                                 "the folder holds the record of another run")
            self._summary.append(_summarize(record))
        spans = [s["span_ns"] for s in self._summary if s["span_ns"] is not None]
        #: The trace's start: the earliest first call of any rank, wall-clock ns.
        self.origin_ns = min(a for a, _ in spans) if spans else 0
        self._span = (0.0, (max(b for _, b in spans) - self.origin_ns) * 1e-9) if spans else (0.0, 0.0)

    @property
    def name(self) -> str:
        return self._name

    def stream(self, rank: int, chunk_ops: int = CHUNK_OPS):
        ops, aux, names = ops_of(rankfile.read(self.folder, rank), self.origin_ns)
        for lo in range(0, len(ops), chunk_ops):
            part = ops[lo:lo + chunk_ops].copy()
            first = int(part["aux_start"][0])
            last = int((part["aux_start"] + part["aux_len"]).max())
            part["aux_start"] -= first
            yield OpChunk(part, aux[first:last], names)

    def calls(self) -> Counter:
        return sum((s["calls"] for s in self._summary), Counter())

    def translates(self, call: str) -> bool:
        return kind_of(call) != Op.OTHER

    def has_init(self, rank: int) -> bool:
        return self._summary[rank]["has_init"]

    def span(self) -> tuple:
        return self._span

    def compute_gaps(self) -> list:
        return [s["gaps"] for s in self._summary]

"""The op-stream form: what every trace reader yields and the replay engine runs.

A trace is a set of ranks; each rank is a stream of *ops*, one per recorded
MPI call, in the order the rank made them.  An op is one fixed-size record
(:data:`OP_DTYPE`, 88 bytes, natural alignment, no padding) whose ``kind``
(:class:`Op`) says what the call does, with everything the replay needs already
resolved: bytes (not counts and datatypes), peers and roots as ranks of the
call's communicator, and communicators, groups and ops as handles of the
stream's own numbering.  Variable-length arguments (request lists, per-peer
byte counts, group rank lists, Cartesian shapes, ...) sit in the chunk's int64
``aux`` array, which an op addresses by ``aux_start`` and ``aux_len``.

A rank's stream arrives in :class:`OpChunk` s of up to :data:`CHUNK_OPS` ops;
readers make them with an :class:`OpStreamBuilder`.  A trace is an
:class:`OpTrace`.  :func:`save` and :func:`load` keep a trace as a folder of
one ``rank-NNNN.npz`` per rank plus ``opstream.json``.  docs/op-stream.md
describes every kind and field; the table of fields is :data:`FIELDS`.

Units: seconds and bytes throughout.
"""
from __future__ import annotations

import abc
import json
import os
import zipfile
from collections import Counter

import numpy as np

from ppt.atomicfile import atomic_folder
from ppt.errors import ConfigError, TraceError
from ppt.hostmemory import check_fits
from ppt.oprecord import COMM_WORLD, FIELDS, KIND, OP_DTYPE, Op, PEER, PROC_NULL


_INIT, _OTHER = int(Op.INIT), int(Op.OTHER)

#: Ops per chunk a builder makes.
CHUNK_OPS = 4096

#: Version of the folder form :func:`save` writes and :func:`load` reads.
FORMAT_VERSION = 1
META_FILE = "opstream.json"
FORMAT_NAME = "ppt-opstream"


class OpChunk:
    """Up to :data:`CHUNK_OPS` consecutive ops of one rank.

    ``ops``: structured array of :data:`OP_DTYPE`; ``aux``: int64 array the ops' ``aux_start``/``aux_len``
    index; ``calls``: the call-name table ``call`` indexes.  Either form of the ops (array, or list
    of row tuples in field order) is made from the other on first use.
    """

    __slots__ = ("_ops", "_rows", "_aux", "_aux_list", "calls")

    def __init__(self, ops=None, aux=None, calls=(), rows=None, aux_list=None):
        self._ops, self._rows, self._aux, self._aux_list = ops, rows, aux, aux_list
        self.calls = tuple(calls)

    def __len__(self):
        return len(self._rows) if self._rows is not None else len(self._ops)

    @property
    def ops(self) -> np.ndarray:
        if self._ops is None:
            self._ops = np.array(self._rows, dtype=OP_DTYPE)
        return self._ops

    @property
    def aux(self) -> np.ndarray:
        if self._aux is None:
            self._aux = np.array(self._aux_list, dtype=np.int64)
        return self._aux

    def rows(self) -> list:
        """The ops as tuples of Python values, fields in :data:`FIELDS` order (index them by KIND, PEER, ...)."""
        if self._rows is None:
            self._rows = self._ops.tolist()
        return self._rows

    def aux_list(self) -> list:
        """``aux`` as a list of ints."""
        if self._aux_list is None:
            self._aux_list = self._aux.tolist()
        return self._aux_list


class OpStreamBuilder:
    """Makes one rank's stream: :meth:`add` one op per call, in order; chunks of ``chunk_ops`` ops.

    :meth:`add` returns the chunk it completed (else None) and :meth:`finish` the last one, so a reader
    yields them as they fill; with ``keep`` the builder also keeps them in ``chunks``.  With
    ``summary`` (the default) the builder records what a trace tells about the rank without reading
    it again: ``calls`` (Counter of call names), ``other`` (names added as Op.OTHER), ``has_init``,
    ``ops``, ``first_start_s`` and ``last_stop_s`` (trace seconds), and ``compute_wall_s``/
    ``compute_cpu_s`` (the positive gaps between calls after the INIT op, or after the first op
    without one, s); a reader whose format tells those otherwise (DUMPI's footers) passes
    ``summary=False`` and saves the work.
    """

    def __init__(self, chunk_ops: int = CHUNK_OPS, keep: bool = False, summary: bool = True):
        if chunk_ops < 1:
            raise ConfigError(f"ops per chunk {chunk_ops} must be at least 1")
        self.chunk_ops = chunk_ops
        self.keep = keep
        self.summary = summary
        self.chunks = []
        self._names = {}
        self._rows, self._aux = [], []
        self.calls, self.other = Counter(), set()
        self.has_init = False
        self.ops = 0
        self.first_start_s = self.last_stop_s = None
        self._gaps = [0.0, 0.0, 0.0, 0.0]    # wall, cpu after init; wall, cpu after the first op

    def call_index(self, name: str) -> int:
        """The index of call name ``name`` in the stream's call table (added on first use)."""
        index = self._names.get(name)
        if index is None:
            index = self._names[name] = len(self._names)
            if index > np.iinfo(np.int16).max:
                raise TraceError(f"a rank's stream names more than {index} distinct calls")
        return index

    def add(self, kind: int, call: str, gap_wall_s: float = 0.0, gap_cpu_s: float | None = None,
            call_s: float = 0.0, start_s: float = 0.0, comm: int = COMM_WORLD, peer: int = PROC_NULL,
            tag: int = 0, root: int = 0, nbytes: int = 0, request: int = 0, op: int = 0, flag: int = 0,
            aux=()) -> OpChunk | None:
        """Append one op (fields as :data:`FIELDS` documents; ``gap_cpu_s`` defaults to ``gap_wall_s``);
        returns the chunk it completed, else None."""
        if gap_cpu_s is None:
            gap_cpu_s = gap_wall_s
        index = self._names.get(call)
        if index is None:
            index = self.call_index(call)
        rows, values = self._rows, self._aux
        aux_start = len(values)
        if aux:
            values.extend(aux)
        rows.append((kind, index, comm, peer, tag, root, op, flag, len(values) - aux_start,
                     gap_wall_s, gap_cpu_s, call_s, start_s, nbytes, request, aux_start))
        if self.summary:
            self._note(kind, call, gap_wall_s, gap_cpu_s, start_s, start_s + call_s)
        if len(rows) >= self.chunk_ops:
            return self._cut()
        return None

    def finish(self) -> OpChunk | None:
        """The last, partial chunk (None if empty)."""
        return self._cut() if self._rows else None

    def _note(self, kind, call, gap_wall_s, gap_cpu_s, start_s, stop_s):
        self.calls[call] += 1
        gaps = self._gaps
        if self.ops:
            wall = gap_wall_s if gap_wall_s > 0.0 else 0.0
            cpu = gap_cpu_s if gap_cpu_s > 0.0 else 0.0
            gaps[2] += wall
            gaps[3] += cpu
            if self.has_init:
                gaps[0] += wall
                gaps[1] += cpu
        else:
            self.first_start_s = start_s
        if kind == _INIT:
            self.has_init = True
        elif kind == _OTHER:
            self.other.add(call)
        if self.last_stop_s is None or stop_s > self.last_stop_s:
            self.last_stop_s = stop_s
        self.ops += 1

    @property
    def compute_wall_s(self) -> float:
        return self._gaps[0] if self.has_init else self._gaps[2]

    @property
    def compute_cpu_s(self) -> float:
        return self._gaps[1] if self.has_init else self._gaps[3]

    def _cut(self) -> OpChunk:
        chunk = OpChunk(calls=self._names, rows=self._rows, aux_list=self._aux)
        self._rows, self._aux = [], []
        if self.keep:
            self.chunks.append(chunk)
        return chunk


class OpTrace(abc.ABC):
    """A trace set in op-stream form, as replay and the trace tools read it.

    ``num_ranks``; ``name`` (a short label) and ``meta_path`` (the file that describes the set, which
    results name).  Times are the trace's wall-clock seconds.
    """

    num_ranks: int
    meta_path: str

    @property
    def name(self) -> str:
        return os.path.basename(os.path.dirname(os.fspath(self.meta_path))) or os.fspath(self.meta_path)

    @abc.abstractmethod
    def stream(self, rank: int):
        """Iterator over rank ``rank``'s :class:`OpChunk` s in call order; gaps count from the trace's
        start (the earliest first call of any rank)."""

    @abc.abstractmethod
    def calls(self) -> Counter:
        """Calls by name over all ranks, without reading the streams where the trace can tell."""

    @abc.abstractmethod
    def translates(self, call: str) -> bool:
        """Whether the reader expresses call ``call`` as an op other than Op.OTHER."""

    @abc.abstractmethod
    def has_init(self, rank: int) -> bool:
        """Whether rank ``rank`` calls MPI_Init (its start-up then ends with its INIT op)."""

    @abc.abstractmethod
    def span(self) -> tuple:
        """(first call start, last call stop) over all ranks, trace seconds."""

    @abc.abstractmethod
    def compute_gaps(self) -> list:
        """Per rank ``(wall s, cpu s)``: its positive gaps between calls after its MPI_Init ended (after
        its first call without one) on each clock; cpu None if the trace has no CPU times."""


#: Memory of one rank of a trace before its first op, bytes: its op-stream builder (830 B measured with
#: tracemalloc over 100,000 ranks), rounded up.
BYTES_PER_RANK = 1024


class MemoryTrace(OpTrace):
    """An op-stream trace built in memory, one :class:`OpStreamBuilder` per rank (``builder(rank)``),
    e.g. a synthetic workload; ``cpu_times``: whether the gaps' CPU clock was measured."""

    def __init__(self, name: str, num_ranks: int, cpu_times: bool = True, chunk_ops: int = CHUNK_OPS):
        if num_ranks < 1:
            raise ConfigError(f"a trace needs at least 1 rank, not {num_ranks}")
        check_fits(num_ranks * BYTES_PER_RANK, f"{name}: a trace of {num_ranks:,} ranks",
                   "check the rank count it declares", TraceError)
        self.num_ranks = num_ranks
        self.meta_path = name
        self.cpu_times = cpu_times
        self.builders = [OpStreamBuilder(chunk_ops, keep=True) for _ in range(num_ranks)]

    @property
    def name(self) -> str:
        return self.meta_path

    def builder(self, rank: int) -> OpStreamBuilder:
        return self.builders[rank]

    def stream(self, rank):
        builder = self.builders[rank]
        builder.finish()
        return iter(list(builder.chunks))

    def calls(self):
        return sum((b.calls for b in self.builders), Counter())

    def translates(self, call):
        return not any(call in b.other for b in self.builders)

    def has_init(self, rank):
        return self.builders[rank].has_init

    def span(self):
        ranks = [b for b in self.builders if b.ops]
        if not ranks:
            return (0.0, 0.0)
        return (min(b.first_start_s for b in ranks), max(b.last_stop_s for b in ranks))

    def compute_gaps(self):
        return [(b.compute_wall_s, b.compute_cpu_s if self.cpu_times else None) for b in self.builders]


# -- the folder form -------------------------------------------------------------------------
def is_saved(path) -> bool:
    """Whether ``path`` is a folder :func:`save` wrote (it holds ``opstream.json``)."""
    return os.path.isfile(os.path.join(os.fspath(path), META_FILE))


def _rank_file(rank: int) -> str:
    return f"rank-{rank:04d}.npz"


def save(trace: OpTrace, folder) -> str:
    """Write ``trace`` as a folder: ``rank-NNNN.npz`` per rank (arrays ``ops``, ``aux``, ``calls``) and
    ``opstream.json`` (format, version, ranks, calls, span, compute gaps, start-up).  The folder must
    not exist or be empty; it is written beside and renamed into place, so it is whole or absent.
    Returns the folder."""
    folder = os.fspath(folder)
    os.makedirs(os.path.dirname(os.path.abspath(folder)), exist_ok=True)
    with atomic_folder(folder, ".opstream-") as tmp:
        ranks, other = [], {name for name in trace.calls() if not trace.translates(name)}
        for rank in range(trace.num_ranks):
            ops, aux, calls = _concatenate(trace.stream(rank))
            other.update(calls[i] for i in np.unique(ops["call"][ops["kind"] == Op.OTHER]))
            np.savez(os.path.join(tmp, _rank_file(rank)), ops=ops, aux=aux, calls=np.array(calls, dtype=str))
            ranks.append({"ops": len(ops), "aux": len(aux), "has_init": trace.has_init(rank)})
        start, stop = trace.span()
        meta = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "name": trace.name,
                "num_ranks": trace.num_ranks, "span_s": [start, stop],
                "compute_gaps_s": [list(g) for g in trace.compute_gaps()],
                "calls": dict(trace.calls().most_common()), "other_calls": sorted(other), "ranks": ranks}
        with open(os.path.join(tmp, META_FILE), "w", encoding="utf-8") as f:
            json.dump(meta, f, indent=1)
    return folder


def _concatenate(chunks) -> tuple:
    """One rank's chunks as one (ops, aux, call names): call indices into one table, aux_start into one aux."""
    names, parts, auxes, base = {}, [], [], 0
    for chunk in chunks:
        ops = chunk.ops.copy()
        if len(ops):
            remap = np.array([names.setdefault(n, len(names)) for n in chunk.calls], dtype=np.int16)
            ops["call"] = remap[ops["call"]]
            ops["aux_start"] += base
        aux = chunk.aux
        base += len(aux)
        parts.append(ops)
        auxes.append(aux)
    ops = np.concatenate(parts) if parts else np.zeros(0, OP_DTYPE)
    aux = np.concatenate(auxes) if auxes else np.zeros(0, np.int64)
    return ops, aux.astype(np.int64, copy=False), list(names)


def load(folder) -> "SavedTrace":
    """The op-stream trace :func:`save` wrote to ``folder`` (TraceError, one line, if it is not whole)."""
    return SavedTrace(folder)


class SavedTrace(OpTrace):
    """A trace in the folder form (:func:`save`); each rank's file is read when its stream is."""

    def __init__(self, folder):
        folder = os.fspath(folder)
        self.folder = folder
        self.meta_path = os.path.join(folder, META_FILE)
        try:
            with open(self.meta_path, encoding="utf-8") as f:
                meta = json.load(f)
        except FileNotFoundError:
            raise TraceError(f"no op-stream trace at {folder}: it has no {META_FILE}") from None
        except (OSError, ValueError) as exc:
            raise TraceError(f"{self.meta_path} is not readable JSON ({exc}): save the trace again") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
            raise TraceError(f"{self.meta_path} does not describe an op-stream trace (format "
                             f"{meta.get('format') if isinstance(meta, dict) else None!r})")
        if meta.get("version") != FORMAT_VERSION:
            raise TraceError(f"{self.meta_path} has op-stream format version {meta.get('version')!r}; this ppt "
                             f"reads version {FORMAT_VERSION}: save the trace again with this ppt")
        try:
            self.num_ranks = int(meta["num_ranks"])
            self._ranks = [(int(r["ops"]), int(r["aux"]), bool(r["has_init"])) for r in meta["ranks"]]
            self._calls = Counter({str(k): int(v) for k, v in meta["calls"].items()})
            self._other = frozenset(meta["other_calls"])
            self._span = tuple(float(t) for t in meta["span_s"])
            self._gaps = [(float(w), None if c is None else float(c)) for w, c in meta["compute_gaps_s"]]
            self._name = str(meta["name"])
        except (KeyError, TypeError, ValueError):
            raise TraceError(f"{self.meta_path} lacks a field or has a malformed one: save the trace again") from None
        if not self.num_ranks == len(self._ranks) == len(self._gaps) >= 1 or len(self._span) != 2:
            raise TraceError(f"{self.meta_path} names {self.num_ranks} ranks but describes {len(self._ranks)}: "
                             "save the trace again")
        for rank in range(self.num_ranks):
            path = os.path.join(folder, _rank_file(rank))
            if not os.path.isfile(path):
                raise TraceError(f"{self.meta_path} names {self.num_ranks} ranks but {_rank_file(rank)} is "
                                 "missing: copy the whole folder")
            try:
                with zipfile.ZipFile(path) as z:
                    bad = z.testzip()
                    members = set(z.namelist())
            except (OSError, zipfile.BadZipFile, EOFError):
                raise self._damaged(rank, "truncated or not an npz file") from None
            if bad is not None or not {"ops.npy", "aux.npy", "calls.npy"} <= members:
                raise self._damaged(rank, f"damaged member {bad}" if bad else "lacks ops, aux or calls")

    @property
    def name(self) -> str:
        return self._name

    def _damaged(self, rank, what) -> TraceError:
        return TraceError(f"{os.path.join(self.folder, _rank_file(rank))}: {what}; the op-stream trace is "
                          "damaged (save it again)")

    def read_rank(self, rank: int) -> tuple:
        """Rank ``rank``'s (ops, aux, call names), checked against the meta file and itself."""
        n_ops, n_aux, _ = self._ranks[rank]
        try:
            with np.load(os.path.join(self.folder, _rank_file(rank)), allow_pickle=False) as z:
                ops, aux, calls = z["ops"], z["aux"], z["calls"].tolist()
        except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile) as exc:
            raise self._damaged(rank, f"unreadable ({exc})") from None
        if ops.dtype != OP_DTYPE or aux.dtype != np.int64 or ops.ndim != 1 or aux.ndim != 1:
            raise self._damaged(rank, f"ops of type {ops.dtype} (expected the op-stream record of this version)")
        if (len(ops), len(aux)) != (n_ops, n_aux):
            raise self._damaged(rank, f"{len(ops)} ops and {len(aux)} aux values where the meta file says "
                                      f"{n_ops} and {n_aux}")
        if len(ops):
            kinds, call = ops["kind"], ops["call"]
            start, length = ops["aux_start"], ops["aux_len"]
            unknown = kinds[(kinds < 0) | (kinds > max(Op))]
            if len(unknown):
                raise self._damaged(rank, f"an op has kind {int(unknown[0])}, which this version does not define")
            if call.min() < 0 or call.max() >= len(calls):
                raise self._damaged(rank, "an op names a call outside its call table")
            if length.min() < 0 or start.min() < 0 or (start + length).max() > len(aux):
                raise self._damaged(rank, "an op's aux values lie outside the aux array")
        return ops, aux, calls

    def stream(self, rank, chunk_ops: int = CHUNK_OPS):
        ops, aux, calls = self.read_rank(rank)
        for lo in range(0, len(ops), chunk_ops):
            part = ops[lo:lo + chunk_ops].copy()
            first = int(part["aux_start"].min()) if len(part) else 0
            last = int((part["aux_start"] + part["aux_len"]).max()) if len(part) else 0
            part["aux_start"] -= first
            yield OpChunk(part, aux[first:max(first, last)], calls)

    def calls(self):
        return Counter(self._calls)

    def translates(self, call):
        return call not in self._other

    def has_init(self, rank):
        return self._ranks[rank][2]

    def span(self):
        return self._span

    def compute_gaps(self):
        return list(self._gaps)

"""Any op-stream trace written as an SST-DUMPI trace set: ``dumpi.meta`` and one ``dumpi-NNNN.bin`` per rank.

Each op becomes one record of the call it records (``MPI_Isend``, ``MPI_Gatherv``, ...; a call DUMPI's
reader would not give that op kind, such as ``MPI_Alltoallw``, is written as the kind's plain call and
counted in ``renamed``), with its arguments as DUMPI keeps them and the byte layout of
:mod:`ppt.traces.writers.dumpi_layout`, so that reading the set back
(:class:`ppt.traces.readers.dumpi.TraceSet`) gives the same ops:

* bytes are a count of ``MPI_BYTE`` (of a contiguous type of the rank's own past 2^31 - 1 bytes);
* times: the call's wall-clock start and stop (``start_s``, ``start_s + call_s``), and a CPU clock
  that advances by the op's CPU gap before the call and the call's duration in it (a trace recorded
  without CPU times gets none), all to the nanosecond, DUMPI's resolution;
* peers, tags, roots, requests, reduction ops and flags as recorded; communicators and groups keep
  their numbers, moved up as one where a stream numbers its own from below DUMPI's first user handle
  (the recorder numbers communicators from 2: they become 4 on);
* what DUMPI records but an op does not keep is found from the other ranks' streams
  (:mod:`ppt.traces.writers.dumpi_comms`): a rank's place and the size of the communicator of a
  rooted or v-collective, the counts other members send it;
* a call without communication keeps its name and times; its arguments, which the op stream drops,
  are written as neutral values (COMM_WORLD, the rank's own rank and size, empty arrays, PROC_NULL).

Calls DUMPI's layouts here do not cover (Op.OTHER, such as MPI-IO; rarer local calls) are refused,
or left out and counted with ``skip_unsupported``: their time then counts as the next call's gap.  So are
nonblocking collectives (MPI-3), which DUMPI's format has no records for (a completion of one left out
then names a request no op started, which replay passes over).
"""
from __future__ import annotations

import math
import os
from collections import Counter

from ppt.atomicfile import atomic_folder
from ppt.errors import TraceError
from ppt.oprecord import (ANY_SOURCE, CALL_S, COMM, COMM_NULL, COMM_SELF, COMM_WORLD, FLAG, GAP_CPU_S, KIND, NBYTES,
                          NO_INDEX, NONBLOCKING_COLLECTIVES, OP, PEER, REQUEST, ROOT, START_S, TAG, UNDEFINED, Op)
from ppt.traces.readers import libundumpi as lu
from ppt.traces.readers.dumpi_ops import OPS
from ppt.traces.writers import dumpi_layout as layout
from ppt.traces.writers.dumpi_comms import Communicators, ops_of

PREFIX = "dumpi"
#: DUMPI's values for what the op stream calls PROC_NULL (Open MPI's) and MPI_UNDEFINED (MPICH's).
DUMPI_PROC_NULL, DUMPI_UNDEFINED = -2, -32766
FIRST_USER_COMM, FIRST_USER_GROUP = 4, 3

#: The call written for an op kind whose recorded call DUMPI cannot say as that kind.
DEFAULT_CALL = {
    Op.INIT: "MPI_Init", Op.WTIME: "MPI_Wtime", Op.SEND: "MPI_Send", Op.ISEND: "MPI_Isend", Op.RECV: "MPI_Recv",
    Op.IRECV: "MPI_Irecv", Op.SENDRECV: "MPI_Sendrecv", Op.PROBE: "MPI_Probe", Op.IPROBE: "MPI_Iprobe",
    Op.WAIT: "MPI_Wait", Op.WAITALL: "MPI_Waitall", Op.WAITANY: "MPI_Waitany", Op.WAITSOME: "MPI_Waitsome",
    Op.TEST: "MPI_Test", Op.TESTALL: "MPI_Testall", Op.TESTANY: "MPI_Testany", Op.TESTSOME: "MPI_Testsome",
    Op.BARRIER: "MPI_Barrier", Op.BCAST: "MPI_Bcast", Op.REDUCE: "MPI_Reduce", Op.ALLREDUCE: "MPI_Allreduce",
    Op.SCAN: "MPI_Scan", Op.EXSCAN: "MPI_Exscan", Op.GATHER: "MPI_Gather", Op.SCATTER: "MPI_Scatter",
    Op.SCATTERV: "MPI_Scatterv", Op.ALLGATHER: "MPI_Allgather", Op.ALLGATHERV: "MPI_Allgatherv",
    Op.ALLTOALL: "MPI_Alltoall", Op.ALLTOALLV: "MPI_Alltoallv", Op.REDUCE_SCATTER: "MPI_Reduce_scatter",
    Op.COMM_DUP: "MPI_Comm_dup", Op.COMM_SPLIT: "MPI_Comm_split", Op.COMM_CREATE: "MPI_Comm_create",
    Op.CART_CREATE: "MPI_Cart_create", Op.CART_SUB: "MPI_Cart_sub", Op.COMM_FREE: "MPI_Comm_free",
    Op.COMM_GROUP: "MPI_Comm_group", Op.GROUP_INCL: "MPI_Group_incl", Op.GROUP_EXCL: "MPI_Group_excl",
    Op.GROUP_UNION: "MPI_Group_union", Op.GROUP_INTERSECTION: "MPI_Group_intersection",
    Op.GROUP_DIFFERENCE: "MPI_Group_difference", Op.GROUP_FREE: "MPI_Group_free",
    Op.OP_CREATE: "MPI_Op_create", Op.OP_FREE: "MPI_Op_free",
}


def _keep(kind, op, aux):
    """What a member of a rooted or v-collective tells the others (see Communicators.walk)."""
    if kind in (Op.GATHER, Op.ALLGATHERV):
        return op[NBYTES]
    if kind in (Op.SCATTERV, Op.ALLTOALLV):
        return list(aux)
    return None


def _ns(seconds: float) -> int:
    """``seconds`` as integer nanoseconds (whole seconds kept exact, so epoch times lose nothing)."""
    whole = math.floor(seconds)
    return whole * 1_000_000_000 + round((seconds - whole) * 1e9)


class DumpiWriter:
    """Writes one trace as a DUMPI set; see the module docstring."""

    def __init__(self, trace, skip_unsupported: bool = False):
        self.trace = trace
        self.skip_unsupported = skip_unsupported
        self.ids = {name: i for i, name in lu.function_labels().items()}
        self.comms = Communicators(trace.num_ranks)
        self.dropped, self.renamed = Counter(), Counter()
        self.records = 0
        low_comm, low_group = FIRST_USER_COMM, FIRST_USER_GROUP
        for rank in range(trace.num_ranks):       # who is in which communicator; the handles used
            for op, aux, _, _, _ in self.comms.walk(rank, ops_of(trace, rank), _keep):
                for h in _comm_handles(op, aux):
                    low_comm = min(low_comm, h)
                for h in _group_handles(op[KIND], aux):
                    low_group = min(low_group, h)
        self.comm_shift = FIRST_USER_COMM - low_comm
        self.group_shift = FIRST_USER_GROUP - low_group

    # -- handles ------------------------------------------------------------------------------
    def comm(self, h: int) -> int:
        if h == COMM_WORLD:
            return lu.COMM_WORLD
        if h == COMM_SELF:
            return lu.COMM_SELF
        return lu.COMM_NULL if h == COMM_NULL else h + self.comm_shift

    def group(self, h: int) -> int:
        return h + self.group_shift

    # -- the set ------------------------------------------------------------------------------
    def write(self, folder) -> dict:
        """Write the set to ``folder`` (new, or an empty folder), whole or not at all; returns what was
        written (ranks, records, calls left out, calls written under another name)."""
        start = max(0, math.floor(self.trace.span()[0]))
        with atomic_folder(folder, ".dumpi-") as tmp:
            for rank in range(self.trace.num_ranks):
                data = _RankFile(self, rank).build(start)
                with open(os.path.join(tmp, f"{PREFIX}-{rank:04d}.bin"), "wb") as f:
                    f.write(data)
            with open(os.path.join(tmp, f"{PREFIX}.meta"), "w", encoding="utf-8") as f:
                f.write(f"hostname=ppt\nnumprocs={self.trace.num_ranks}\nusername=<none>\nstartime={start}\n"
                        f"fileprefix={PREFIX}\nversion={layout.VERSION[0]}\nsubversion={layout.VERSION[1]}\n"
                        f"subsubversion={layout.VERSION[2]}\n")
        return {"ranks": self.trace.num_ranks, "records": self.records, "dropped": dict(self.dropped.most_common()),
                "renamed": dict(self.renamed.most_common())}


def _comm_handles(op, aux):
    """The user communicator handles an op names."""
    kind = op[KIND]
    found = [op[COMM]]
    if kind in (Op.COMM_DUP, Op.COMM_SPLIT, Op.COMM_CREATE, Op.CART_CREATE, Op.CART_SUB):
        found.append(aux[0])
    return [h for h in found if h > COMM_SELF]


def _group_handles(kind, aux):
    if kind in (Op.COMM_GROUP, Op.GROUP_FREE):
        return aux[:1]
    if kind == Op.COMM_CREATE:
        return aux[1:2]
    if kind in (Op.GROUP_INCL, Op.GROUP_EXCL):
        return aux[:2]
    if kind in (Op.GROUP_UNION, Op.GROUP_INTERSECTION, Op.GROUP_DIFFERENCE):
        return aux[:3]
    return ()


def _dest(peer: int) -> int:
    return peer if peer >= 0 else DUMPI_PROC_NULL


def _source(peer: int) -> int:
    if peer >= 0:
        return peer
    return lu.ANY_SOURCE if peer == ANY_SOURCE else DUMPI_PROC_NULL


def _int32(value: int, what: str) -> int:
    if not -2**31 <= value < 2**31:
        raise TraceError(f"{what} {value} does not fit DUMPI's 32-bit field")
    return value


def _displs(counts) -> list:
    out, at = [], 0
    for n in counts:
        out.append(at)
        at += n
    return out


class _RankFile:
    """One rank's ``.bin``: its records, type table and footer counts."""

    def __init__(self, writer: DumpiWriter, rank: int):
        self.w = writer
        self.rank = rank
        self.sizes = list(layout.PREDEFINED_SIZES)
        self.derived = {}           # bytes of a derived contiguous type -> its id
        self.counts = Counter()     # function id -> records

    def unit(self, values) -> int:
        """The datatype in whose units every byte count of ``values`` is a 32-bit count."""
        big = max(values, default=0)
        if big <= layout.INT32_MAX:
            return layout.BYTE
        g = math.gcd(*values)
        for size in range(-(-big // layout.INT32_MAX), min(g, layout.INT32_MAX) + 1):
            if g % size == 0:
                if size not in self.derived:
                    self.derived[size] = len(self.sizes)
                    self.sizes.append(size)
                return self.derived[size]
        raise TraceError(f"trace rank {self.rank} moves {big} bytes in one call, which no 32-bit DUMPI count of a "
                         "32-bit type size can say")

    def counted(self, values) -> tuple:
        """``(counts, datatype)`` for byte counts ``values``."""
        t = self.unit(values)
        size = self.sizes[t]
        return [v // size for v in values], t

    def ct(self, nbytes: int) -> tuple:
        (count,), t = self.counted([nbytes])
        return count, t

    def build(self, start_time: int) -> bytes:
        w, trace, rank = self.w, self.w.trace, self.rank
        cpu_times = trace.compute_gaps()[rank][1] is not None
        entries = []
        for op, aux, name, ident, number in w.comms.walk(rank, ops_of(trace, rank)):
            written = self.values(op, aux, name, ident, number)
            if written is not None:
                entries.append((op, *written))
        wall, cpu = [], []
        last_wall = last_cpu = None
        for op, *_ in entries:
            start = _ns(op[START_S])
            start = start if last_wall is None else max(start, last_wall)
            last_wall = max(start, _ns(op[START_S] + op[CALL_S]))
            wall.append((start, last_wall))
            c0 = (0 if last_cpu is None else last_cpu) + _ns(max(op[GAP_CPU_S], 0.0))
            last_cpu = c0 + last_wall - start
            cpu.append((c0, last_cpu))
        where = f"trace rank {rank}"
        offsets = (layout.seconds_offset(cpu[0][0], cpu[-1][1], f"{where}'s CPU clock") if cpu_times and cpu else 0,
                   layout.seconds_offset(wall[0][0], wall[-1][1], f"{where}'s wall clock") if wall else 0)
        out = layout.Writer()
        body = layout.head(out, offsets)
        for (op, name, values, at_root), w_ns, c_ns in zip(entries, wall, cpu):
            func = w.ids[name]
            layout.record(out, func, name, 0, c_ns if cpu_times else None, w_ns, offsets, values, at_root)
            self.counts[func] += 1
        w.records += len(entries)
        layout.tail(out, body, self.counts, self.sizes, start_time, "ppt")
        return out.bytes()

    # -- one op ---------------------------------------------------------------------------------
    def values(self, op, aux, name, ident, number):
        """``(call, argument values, at_root)`` of the record for one op, or None (left out)."""
        kind = op[KIND]
        if kind in NONBLOCKING_COLLECTIVES:
            if not self.w.skip_unsupported:
                raise TraceError(f"trace rank {self.rank} calls {name}, a nonblocking collective, which DUMPI has no "
                                 "record for; convert with --skip-unsupported to leave it out")
            self.w.dropped[name] += 1
            return None
        if kind in (Op.LOCAL, Op.OTHER):
            if kind == Op.LOCAL and name in layout.LAYOUTS:
                return name, self.local(name), True
            if not self.w.skip_unsupported:
                raise TraceError(f"trace rank {self.rank} calls {name}, which the DUMPI writer cannot write (the op "
                                 "stream keeps no arguments of it); convert with --skip-unsupported to leave it out")
            self.w.dropped[name] += 1
            return None
        entry = OPS.get(name)
        if entry is None or entry[0] != kind or name not in layout.LAYOUTS:
            self.w.renamed[name] += 1
            name = DEFAULT_CALL[Op(kind)]
        at_root = True
        values = _ENCODERS[kind](self, op, aux, name, ident, number)
        if isinstance(values, tuple):
            values, at_root = values
        return name, values, at_root

    def local(self, name: str) -> list:
        """Neutral arguments of a call without communication (the op stream keeps none)."""
        world, ranks = lu.COMM_WORLD, self.w.trace.num_ranks
        neutral = {
            "MPI_Comm_rank": [world, self.rank], "MPI_Comm_size": [world, ranks],
            "MPI_Cart_shift": [world, 0, 0, DUMPI_PROC_NULL, DUMPI_PROC_NULL], "MPI_Dims_create": [ranks, 0, [], []],
            "MPI_Cart_rank": [0, world, [], 0], "MPI_Cart_coords": [0, world, 0, 0, []],
            "MPI_Cartdim_get": [world, 0], "MPI_Cart_get": [0, world, 0, [], [], []],
            "MPI_Topo_test": [world, 0], "MPI_Comm_compare": [world, world, 1],
            "MPI_Group_size": [lu.GROUP_EMPTY, 0], "MPI_Group_rank": [lu.GROUP_EMPTY, 0],
            "MPI_Type_commit": [layout.BYTE], "MPI_Type_free": [layout.BYTE], "MPI_Type_size": [layout.BYTE, 1],
            "MPI_Get_count": [layout.BYTE, 0], "MPI_Initialized": [1], "MPI_Finalized": [1],
        }
        return neutral.get(name, [])

    def request(self, value: int) -> int:
        return _int32(value, f"trace rank {self.rank}'s request id")

    def place(self, ident, name) -> tuple:
        """(this rank's rank in ``ident``, its size)."""
        try:
            members = self.w.comms.members(ident)
        except TraceError as exc:
            raise TraceError(f"trace rank {self.rank} calls {name}: {exc}") from None
        return members.index(self.rank), len(members)


# -- one encoder per op kind: (rank file, op, aux, call, communicator identity, collective number) -> values
def _send(f, op, aux, name, ident, number):
    count, t = f.ct(op[NBYTES])
    values = [count, t, _dest(op[PEER]), op[TAG], f.w.comm(op[COMM])]
    return values + [f.request(op[REQUEST])] if op[KIND] == Op.ISEND else values


def _recv(f, op, aux, name, ident, number):
    count, t = f.ct(op[NBYTES])
    values = [count, t, _source(op[PEER]), op[TAG], f.w.comm(op[COMM])]
    return values + [f.request(op[REQUEST])] if op[KIND] == Op.IRECV else values


def _sendrecv(f, op, aux, name, ident, number):
    source, recvtag, recvbytes = aux
    count, t = f.ct(op[NBYTES])
    head = [count, t, _dest(op[PEER]), op[TAG]]
    tail = [_source(source), recvtag, f.w.comm(op[COMM])]
    if name == "MPI_Sendrecv_replace" and recvbytes == op[NBYTES]:
        return head + tail
    if name == "MPI_Sendrecv_replace":      # the sizes differ: only a Sendrecv says that
        f.w.renamed[name] += 1
    return head + list(f.ct(recvbytes)) + tail


def _probe(f, op, aux, name, ident, number):
    values = [_source(op[PEER]), op[TAG], f.w.comm(op[COMM])]
    return values + [op[FLAG]] if op[KIND] == Op.IPROBE else values


def _wait(f, op, aux, name, ident, number):
    return [f.request(op[REQUEST])] + ([op[FLAG]] if op[KIND] == Op.TEST else [])


def _waitall(f, op, aux, name, ident, number):
    requests = [f.request(r) for r in aux]
    return [len(requests), requests] + ([op[FLAG]] if op[KIND] == Op.TESTALL else [])


def _waitany(f, op, aux, name, ident, number):
    requests = [f.request(r) for r in aux]
    index = op[FLAG] if op[FLAG] != NO_INDEX else DUMPI_UNDEFINED
    return [len(requests), requests, index] + ([int(op[FLAG] != NO_INDEX)] if op[KIND] == Op.TESTANY else [])


def _waitsome(f, op, aux, name, ident, number):
    n = len(aux) - op[FLAG]
    return [n, [f.request(r) for r in aux[:n]], op[FLAG], list(aux[n:])]


def _barrier(f, op, aux, name, ident, number):
    return [f.w.comm(op[COMM])]


def _rooted_data(f, op, aux, name, ident, number):
    """Bcast, Reduce, Allreduce, Scan, Exscan."""
    count, t = f.ct(op[NBYTES])
    kind, comm = op[KIND], f.w.comm(op[COMM])
    if kind == Op.BCAST:
        return [count, t, op[ROOT], comm]
    if kind == Op.REDUCE:
        return [count, t, op[OP], op[ROOT], comm]
    return [count, t, op[OP], comm]


def _gather(f, op, aux, name, ident, number):
    me, size = f.place(ident, name)
    root, comm = op[ROOT], f.w.comm(op[COMM])
    if name == "MPI_Gather":
        count, t = f.ct(op[NBYTES])
        return [me, count, t, root, comm, count, t], me == root
    counts, t = f.counted(f.w.comms.contributed(ident, number, name))
    return [me, size, counts[me], t, root, comm, counts, _displs(counts), t], me == root


def _scatter(f, op, aux, name, ident, number):
    me, _ = f.place(ident, name)
    count, t = f.ct(op[NBYTES])
    return [me, count, t, op[ROOT], f.w.comm(op[COMM]), count, t], me == op[ROOT]


def _scatterv(f, op, aux, name, ident, number):
    me, size = f.place(ident, name)
    root = op[ROOT]
    if not 0 <= root < size:
        raise TraceError(f"trace rank {f.rank}: {name} has root {root}, outside its communicator's {size} ranks")
    blocks = f.w.comms.contributed(ident, number, name)[root]
    if len(blocks) != size:
        raise TraceError(f"trace rank {f.rank}: {name} gives {len(blocks)} block sizes for {size} ranks")
    counts, t = f.counted(blocks)
    return [me, size, t, counts[me], t, root, f.w.comm(op[COMM]), counts, _displs(counts)], me == root


def _all(f, op, aux, name, ident, number):
    count, t = f.ct(op[NBYTES])
    return [count, t, count, t, f.w.comm(op[COMM])]


def _allgatherv(f, op, aux, name, ident, number):
    me, size = f.place(ident, name)
    counts, t = f.counted(f.w.comms.contributed(ident, number, name))
    return [size, counts[me], t, counts, _displs(counts), t, f.w.comm(op[COMM])]


def _alltoallv(f, op, aux, name, ident, number):
    me, size = f.place(ident, name)
    sent = f.w.comms.contributed(ident, number, name)
    if any(len(blocks) != size for blocks in sent):
        raise TraceError(f"trace rank {f.rank}: {name} gives block sizes for other than its communicator's {size} "
                         "ranks")
    sends, st = f.counted(list(aux))
    recvs, rt = f.counted([blocks[me] for blocks in sent])
    return [size, sends, _displs(sends), st, recvs, _displs(recvs), rt, f.w.comm(op[COMM])]


def _reduce_scatter(f, op, aux, name, ident, number):
    counts, t = f.counted(list(aux))
    return [len(counts), counts, t, op[OP], f.w.comm(op[COMM])]


def _comm_made(f, op, aux, name, ident, number):
    kind, old, new = op[KIND], f.w.comm(op[COMM]), f.w.comm(aux[0])
    if kind == Op.COMM_DUP:
        return [old, new]
    if kind == Op.COMM_SPLIT:
        return [old, aux[1] if aux[1] != UNDEFINED else DUMPI_UNDEFINED, aux[2], new]
    if kind == Op.COMM_CREATE:
        return [old, f.w.group(aux[1]), new]
    if kind == Op.CART_CREATE:
        ndims = aux[2]
        return [old, ndims, list(aux[3:3 + ndims]), list(aux[3 + ndims:3 + 2 * ndims]), aux[1], new]
    return [len(aux) - 1, old, list(aux[1:]), new]      # CART_SUB


def _comm_free(f, op, aux, name, ident, number):
    return [f.w.comm(op[COMM])]


def _comm_group(f, op, aux, name, ident, number):
    return [f.w.comm(op[COMM]), f.w.group(aux[0])]


def _group_pick(f, op, aux, name, ident, number):
    return [f.w.group(aux[1]), len(aux) - 2, list(aux[2:]), f.w.group(aux[0])]


def _group_set(f, op, aux, name, ident, number):
    return [f.w.group(aux[1]), f.w.group(aux[2]), f.w.group(aux[0])]


def _group_free(f, op, aux, name, ident, number):
    return [f.w.group(aux[0])]


def _op_create(f, op, aux, name, ident, number):
    return [op[FLAG], op[OP]]


def _op_free(f, op, aux, name, ident, number):
    return [op[OP]]


def _init(f, op, aux, name, ident, number):
    return [0, 1, 1] if name == "MPI_Init_thread" else [0]     # no argv; MPI_THREAD_SINGLE


def _nothing(f, op, aux, name, ident, number):
    return []


_ENCODERS = {
    Op.INIT: _init, Op.WTIME: _nothing, Op.SEND: _send, Op.ISEND: _send, Op.RECV: _recv, Op.IRECV: _recv,
    Op.SENDRECV: _sendrecv, Op.PROBE: _probe, Op.IPROBE: _probe, Op.WAIT: _wait, Op.TEST: _wait,
    Op.WAITALL: _waitall, Op.TESTALL: _waitall, Op.WAITANY: _waitany, Op.TESTANY: _waitany,
    Op.WAITSOME: _waitsome, Op.TESTSOME: _waitsome, Op.BARRIER: _barrier, Op.BCAST: _rooted_data,
    Op.REDUCE: _rooted_data, Op.ALLREDUCE: _rooted_data, Op.SCAN: _rooted_data, Op.EXSCAN: _rooted_data,
    Op.GATHER: _gather, Op.SCATTER: _scatter, Op.SCATTERV: _scatterv, Op.ALLGATHER: _all, Op.ALLTOALL: _all,
    Op.ALLGATHERV: _allgatherv, Op.ALLTOALLV: _alltoallv, Op.REDUCE_SCATTER: _reduce_scatter,
    Op.COMM_DUP: _comm_made, Op.COMM_SPLIT: _comm_made, Op.COMM_CREATE: _comm_made, Op.CART_CREATE: _comm_made,
    Op.CART_SUB: _comm_made, Op.COMM_FREE: _comm_free, Op.COMM_GROUP: _comm_group, Op.GROUP_INCL: _group_pick,
    Op.GROUP_EXCL: _group_pick, Op.GROUP_UNION: _group_set, Op.GROUP_INTERSECTION: _group_set,
    Op.GROUP_DIFFERENCE: _group_set, Op.GROUP_FREE: _group_free, Op.OP_CREATE: _op_create, Op.OP_FREE: _op_free,
}


def write(trace, folder, skip_unsupported: bool = False) -> dict:
    """Write op-stream ``trace`` as a DUMPI set in ``folder`` (see the module docstring); returns what was written."""
    return DumpiWriter(trace, skip_unsupported).write(folder)

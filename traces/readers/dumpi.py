"""Streaming reader of SST-DUMPI trace sets (one ``.bin`` per rank plus a ``.meta``).

Every record is decoded by libundumpi (see :mod:`ppt.traces.readers.libundumpi`): the
reader asks the library for one call at a time (``undumpi_read_single_call``),
so a rank's records arrive in file order in chunks of :data:`CHUNK_RECORDS`
and a trace set is never held in memory.  Each open rank iterator holds one
open file.

A :class:`Record` carries the call's name, wall-clock and CPU start/stop
times in seconds (on the traced machine's clocks), its thread and its
arguments as plain Python values under DUMPI's argument names (``count``,
``datatype``, ``dest``/``source``, ``tag``, ``comm``, ``request``/``requests``,
``root``, ``op``, ``color``/``key``, ``newcomm``, ``group``/``newgroup``,
``ranks``, ``index``/``indices``/``outcount``/``flag``, ...).  Ranks, datatypes,
communicators, groups, ops and requests are DUMPI handles (see the constants
in :mod:`ppt.traces.readers.libundumpi`); a peer rank is a rank of the call's
communicator.  ``status`` is ``(source, tag, bytes)`` when the trace recorded
it, else ``None``.  Calls whose arguments are not decoded (MPI-IO, RMA,
attributes, ...) still arrive, by name, with empty ``args``.
"""
from __future__ import annotations

import glob
import mmap
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
from collections import Counter

from ppt.errors import TraceError
from ppt.traces.readers import libundumpi as lu
from ppt.traces.readers.dumpi_ops import INIT_CALLS, OPS, record_stream
from ppt.traces.readers.libundumpi import ffi
from ppt.traces.opstream import OpTrace

CHUNK_RECORDS = 512   # records decoded per library round trip


class Record:
    """One traced MPI call; times in seconds, ``args`` a dict of plain values."""

    __slots__ = ("name", "thread", "wall_start", "wall_stop", "cpu_start", "cpu_stop", "args")

    def __init__(self, name, thread, wall_start, wall_stop, cpu_start, cpu_stop, args):
        self.name = name
        self.thread = thread
        self.wall_start = wall_start
        self.wall_stop = wall_stop
        self.cpu_start = cpu_start
        self.cpu_stop = cpu_stop
        self.args = args

    def __repr__(self):
        return f"Record({self.name} @{self.wall_start:.9f}s {self.args})"


# Decoded arguments per call: C struct (libundumpi's argument type; calls with the
# same layout share one) and its fields in order; ``name[n]`` is an array whose
# length is field ``n``; ``status`` is an optional status.
_ISEND = ("dumpi_isend", "count datatype dest tag comm request")
_IRECV = ("dumpi_irecv", "count datatype source tag comm request")
_ONE_REQUEST = ("dumpi_request_free", "request")
_SOME = ("dumpi_waitsome", "count requests[count] outcount indices[outcount]")
_ROOTED = ("dumpi_gather", "commrank sendcount sendtype recvcount recvtype root comm")
_ALL = ("dumpi_allgather", "sendcount sendtype recvcount recvtype comm")
_REDUCING = ("dumpi_allreduce", "count datatype op comm")
_GROUP_SET = ("dumpi_group_union", "group1 group2 newgroup")
_GROUP_PICK = ("dumpi_group_incl", "group count ranks[count] newgroup")
_VECTOR = ("dumpi_type_vector", "count blocklength stride oldtype newtype")
_INDEXED = ("dumpi_type_indexed", "count lengths[count] indices[count] oldtype newtype")
_STRUCT = ("dumpi_type_struct", "count lengths[count] indices[count] oldtypes[count] newtype")

ARGUMENTS = {
    "MPI_Send": ("dumpi_send", "count datatype dest tag comm"),
    "MPI_Bsend": ("dumpi_send", "count datatype dest tag comm"),
    "MPI_Ssend": ("dumpi_send", "count datatype dest tag comm"),
    "MPI_Rsend": ("dumpi_send", "count datatype dest tag comm"),
    "MPI_Isend": _ISEND, "MPI_Ibsend": _ISEND, "MPI_Issend": _ISEND, "MPI_Irsend": _ISEND,
    "MPI_Send_init": _ISEND, "MPI_Bsend_init": _ISEND, "MPI_Ssend_init": _ISEND,
    "MPI_Rsend_init": _ISEND,
    "MPI_Recv": ("dumpi_recv", "count datatype source tag comm status"),
    "MPI_Irecv": _IRECV, "MPI_Recv_init": _IRECV,
    "MPI_Sendrecv": ("dumpi_sendrecv", "sendcount sendtype dest sendtag recvcount recvtype "
                                       "source recvtag comm status"),
    "MPI_Sendrecv_replace": ("dumpi_sendrecv_replace",
                             "count datatype dest sendtag source recvtag comm status"),
    "MPI_Get_count": ("dumpi_get_count", "datatype count"),
    "MPI_Wait": ("dumpi_wait", "request status"),
    "MPI_Test": ("dumpi_test", "request flag status"),
    "MPI_Request_free": _ONE_REQUEST, "MPI_Cancel": _ONE_REQUEST, "MPI_Start": _ONE_REQUEST,
    "MPI_Waitany": ("dumpi_waitany", "count requests[count] index status"),
    "MPI_Testany": ("dumpi_testany", "count requests[count] index flag status"),
    "MPI_Waitall": ("dumpi_waitall", "count requests[count]"),
    "MPI_Testall": ("dumpi_testall", "count requests[count] flag"),
    "MPI_Waitsome": _SOME, "MPI_Testsome": _SOME,
    "MPI_Startall": ("dumpi_startall", "count requests[count]"),
    "MPI_Iprobe": ("dumpi_iprobe", "source tag comm flag status"),
    "MPI_Probe": ("dumpi_probe", "source tag comm status"),

    "MPI_Barrier": ("dumpi_barrier", "comm"),
    "MPI_Bcast": ("dumpi_bcast", "count datatype root comm"),
    "MPI_Gather": _ROOTED, "MPI_Scatter": _ROOTED,
    "MPI_Gatherv": ("dumpi_gatherv", "commrank commsize sendcount sendtype recvcounts[commsize] "
                                     "displs[commsize] recvtype root comm"),
    "MPI_Scatterv": ("dumpi_scatterv", "commrank commsize sendcounts[commsize] displs[commsize] "
                                       "sendtype recvcount recvtype root comm"),
    "MPI_Allgather": _ALL, "MPI_Alltoall": _ALL,
    "MPI_Allgatherv": ("dumpi_allgatherv", "commsize sendcount sendtype recvcounts[commsize] "
                                           "displs[commsize] recvtype comm"),
    "MPI_Alltoallv": ("dumpi_alltoallv", "commsize sendcounts[commsize] senddispls[commsize] "
                                         "sendtype recvcounts[commsize] recvdispls[commsize] "
                                         "recvtype comm"),
    "MPI_Alltoallw": ("dumpi_alltoallw", "commsize sendcounts[commsize] senddispls[commsize] "
                                         "sendtypes[commsize] recvcounts[commsize] "
                                         "recvdispls[commsize] recvtypes[commsize] comm"),
    "MPI_Reduce": ("dumpi_reduce", "count datatype op root comm"),
    "MPI_Allreduce": _REDUCING, "MPI_Scan": _REDUCING, "MPI_Exscan": _REDUCING,
    "MPI_Reduce_scatter": ("dumpi_reduce_scatter",
                           "commsize recvcounts[commsize] datatype op comm"),
    "MPI_Op_create": ("dumpi_op_create", "commute op"),
    "MPI_Op_free": ("dumpi_op_free", "op"),

    "MPI_Comm_size": ("dumpi_comm_size", "comm size"),
    "MPI_Comm_rank": ("dumpi_comm_rank", "comm rank"),
    "MPI_Comm_compare": ("dumpi_comm_compare", "comm1 comm2 result"),
    "MPI_Comm_dup": ("dumpi_comm_dup", "oldcomm newcomm"),
    "MPI_Comm_create": ("dumpi_comm_create", "oldcomm group newcomm"),
    "MPI_Comm_split": ("dumpi_comm_split", "oldcomm color key newcomm"),
    "MPI_Comm_free": ("dumpi_comm_free", "comm"),
    "MPI_Comm_group": ("dumpi_comm_group", "comm group"),
    "MPI_Intercomm_create": ("dumpi_intercomm_create",
                             "localcomm localleader remotecomm remoteleader tag newcomm"),
    "MPI_Intercomm_merge": ("dumpi_intercomm_merge", "comm high newcomm"),
    "MPI_Group_size": ("dumpi_group_size", "group size"),
    "MPI_Group_rank": ("dumpi_group_rank", "group rank"),
    "MPI_Group_compare": ("dumpi_group_compare", "group1 group2 result"),
    "MPI_Group_translate_ranks": ("dumpi_group_translate_ranks",
                                  "group1 count ranks1[count] group2 ranks2[count]"),
    "MPI_Group_union": _GROUP_SET, "MPI_Group_intersection": _GROUP_SET,
    "MPI_Group_difference": _GROUP_SET,
    "MPI_Group_incl": _GROUP_PICK, "MPI_Group_excl": _GROUP_PICK,
    "MPI_Group_free": ("dumpi_group_free", "group"),

    "MPI_Topo_test": ("dumpi_topo_test", "comm topo"),
    "MPI_Cart_create": ("dumpi_cart_create", "oldcomm ndim dims[ndim] periods[ndim] reorder newcomm"),
    "MPI_Dims_create": ("dumpi_dims_create", "nodes ndim dims_in[ndim] dims_out[ndim]"),
    "MPI_Cartdim_get": ("dumpi_cartdim_get", "comm ndim"),
    "MPI_Cart_get": ("dumpi_cart_get", "ndim comm maxdims dims[ndim] periods[ndim] coords[ndim]"),
    "MPI_Cart_rank": ("dumpi_cart_rank", "ndim comm coords[ndim] rank"),
    "MPI_Cart_coords": ("dumpi_cart_coords", "ndim comm rank maxdims coords[ndim]"),
    "MPI_Cart_shift": ("dumpi_cart_shift", "comm direction displ source dest"),
    "MPI_Cart_sub": ("dumpi_cart_sub", "ndim oldcomm remain_dims[ndim] newcomm"),

    "MPI_Init": ("dumpi_init", "argc"),
    "MPI_Init_thread": ("dumpi_init_thread", "argc required provided"),
    "MPI_Initialized": ("dumpi_initialized", "result"),
    "MPI_Abort": ("dumpi_abort", "comm errorcode"),

    "MPI_Type_contiguous": ("dumpi_type_contiguous", "count oldtype newtype"),
    "MPI_Type_vector": _VECTOR, "MPI_Type_hvector": _VECTOR, "MPI_Type_create_hvector": _VECTOR,
    "MPI_Type_indexed": _INDEXED, "MPI_Type_hindexed": _INDEXED,
    "MPI_Type_create_hindexed": _INDEXED,
    "MPI_Type_struct": _STRUCT, "MPI_Type_create_struct": _STRUCT,
    "MPI_Type_create_indexed_block": ("dumpi_type_create_indexed_block",
                                      "count blocklength displacements[count] oldtype newtype"),
    "MPI_Type_create_resized": ("dumpi_type_create_resized", "oldtype lb extent newtype"),
    "MPI_Type_create_subarray": ("dumpi_type_create_subarray",
                                 "ndims sizes[ndims] subsizes[ndims] starts[ndims] order "
                                 "oldtype newtype"),
    "MPI_Type_dup": ("dumpi_type_dup", "oldtype newtype"),
    "MPI_Type_commit": ("dumpi_type_commit", "datatype"),
    "MPI_Type_free": ("dumpi_type_commit", "datatype"),
    "MPI_Type_size": ("dumpi_type_size", "datatype size"),
    "MPI_Type_extent": ("dumpi_type_extent", "datatype extent"),
    "MPI_Type_get_extent": ("dumpi_type_get_extent", "datatype lb extent"),
}


def _decoder(ctype: str, fields: str):
    """A function turning the library's argument struct (``void *``) into a dict."""
    ptype = ffi.typeof(ctype + " *")
    plan = []
    for field in fields.split():
        name, _, length = field.rstrip("]").partition("[")
        plan.append((name, length or None))

    def decode(prm):
        s = ffi.cast(ptype, prm)
        args = {}
        for name, length in plan:
            value = getattr(s, name)
            if name == "status":
                value = None if value == ffi.NULL else (value.source, value.tag, value.bytes)
            elif length is not None:
                n = args[length]
                if value != ffi.NULL:
                    value = ffi.unpack(value, n) if n > 0 else []
                else:
                    value = None if n > 0 else []   # None: not recorded (e.g. gatherv off root)
            args[name] = value
        return args
    return decode


def _no_arguments(prm):
    return {}


class _Decoders(dict):
    """Decoder per function name, built on first use (building one parses C types)."""

    def __missing__(self, name):
        spec = ARGUMENTS.get(name)
        self[name] = decode = _decoder(*spec) if spec else _no_arguments
        return decode


_DECODERS = _Decoders()


def _callout(name: str):
    """The library callout for one function: appends a :class:`Record` to the chunk."""
    def callout(prm, thread, cpu, wall, perf, userarg):
        chunk = ffi.from_handle(userarg)
        try:
            ws, we, cs, ce = wall.start, wall.stop, cpu.start, cpu.stop
            chunk.records.append(Record(
                name, thread, ws.sec + ws.nsec * 1e-9, we.sec + we.nsec * 1e-9,
                cs.sec + cs.nsec * 1e-9, ce.sec + ce.nsec * 1e-9, _DECODERS[name](prm)))
        except BaseException as exc:    # re-raised by the reader, never lost in C
            chunk.error = exc
        return 1
    return ffi.callback("libundumpi_unsafe_fun", callout)


_TABLE = []   # [handler table, callouts kept alive], built on first read


def _handler_table():
    """The library's readers plus one callout per function id (shared by all readers)."""
    if not _TABLE:
        callarr = lu.new_handler_table()
        callouts = []
        for func_id, name in lu.function_labels().items():
            callouts.append(_callout(name))
            callarr[func_id].callout = callouts[-1]
        _TABLE[:] = [callarr, callouts]
    return _TABLE[0]


class _Chunk:
    __slots__ = ("records", "error")

    def __init__(self):
        self.records = []
        self.error = None


#: Set in the validating child process: a writable buffer where the reader keeps
#: (rank, byte offset) of the record libundumpi is about to read, so the parent
#: can say where the library died.
_PROGRESS = None

#: Ranks recorded as special values (ANY_SOURCE, PROC_NULL, ROOT of Open MPI and
#: MPICH) are at least this; peers are below the trace's rank count.
_LOWEST_PEER = -4
_PEER_KEYS = ("dest", "source", "root")
_COUNT_KEYS = ("count", "sendcount", "recvcount", "commsize", "ndim", "ndims", "blocklength")
_NSEC = 1_000_000_000
_TIMES = struct.Struct(">HIHI")   # one start/stop pair: 16-bit seconds, 32-bit nanoseconds


def _note(rank, offset):
    """In the validating child: remember where libundumpi is reading."""
    if _PROGRESS is not None:
        struct.pack_into("<qq", _PROGRESS, 0, rank, offset)


def damaged(path, rank, offset, what) -> TraceError:
    """The one-line error for damage found at ``offset`` of rank ``rank``'s file ``path``."""
    return TraceError(f"{path}: rank {rank}, byte offset {offset}: {what}; the trace file is "
                      "damaged (copy the trace set again)")


_ENTER, _EXIT = "MPI_Function_enter", "MPI_Function_exit"   # not counted in the footer


def _record_ids(table) -> frozenset:
    return frozenset(i for i in range(lu.END_OF_STREAM) if table[i].handler != ffi.NULL)


class _Body:
    """Checks each record's header in the file before libundumpi reads it."""

    def __init__(self, path, rank, data, body, footer, ids):
        self.path, self.rank, self.data, self.ids = path, rank, data, ids
        self.body, self.footer = body, footer

    def fail(self, offset, what):
        raise damaged(self.path, self.rank, offset, what)

    def check_header(self, pos):
        """Raise unless a well-formed record header starts at ``pos`` (inside the body)."""
        data, footer = self.data, self.footer
        if not self.body <= pos <= footer - 3:
            self.fail(pos, f"a record starts outside the body (bytes {self.body}..{footer})")
        func = int.from_bytes(data[pos:pos + 2], "big")
        if func == lu.END_OF_STREAM:
            return func
        if func not in self.ids:
            self.fail(pos, f"record has function id {func}, which DUMPI does not define")
        config = data[pos + 2]
        if not config & 0x40 or config & 0x30:
            self.fail(pos, f"record has config byte 0x{config:02x} (bit 0x40 must be set, 0x30 clear)")
        end = pos + 5 + 12 * (bool(config & 0x04) + bool(config & 0x08))
        if end > footer:
            self.fail(pos, "record header runs past the end of the body")
        for at in range(pos + 5, end, 12):
            _, n0, _, n1 = _TIMES.unpack_from(data, at)
            if n0 >= _NSEC or n1 >= _NSEC:
                self.fail(pos, "record has a timestamp with 1e9 or more nanoseconds")
        return func


_TYPE_KEYS = ("datatype", "sendtype", "recvtype")


def _check_record(body, offset, rec, ranks, last_stop, types):
    """Raise for a decoded record whose values cannot be right."""
    if not rec.wall_start <= rec.wall_stop:
        body.fail(offset, f"{rec.name} ends ({rec.wall_stop:.9f} s) before it starts ({rec.wall_start:.9f} s)")
    if not rec.cpu_start <= rec.cpu_stop:
        body.fail(offset, f"{rec.name} ends on the CPU clock ({rec.cpu_stop:.9f} s) before it starts "
                          f"({rec.cpu_start:.9f} s)")
    previous = last_stop.get(rec.thread)
    if previous is not None:
        if rec.wall_start < previous[0]:
            body.fail(offset, f"{rec.name} starts at {rec.wall_start:.9f} s, before the previous call of its "
                              f"thread ended ({previous[0]:.9f} s): timestamps go backwards")
        if rec.cpu_start < previous[1]:
            body.fail(offset, f"{rec.name} starts at {rec.cpu_start:.9f} s of CPU time, before the previous call "
                              f"of its thread ended ({previous[1]:.9f} s): CPU timestamps go backwards")
    last_stop[rec.thread] = (rec.wall_stop, rec.cpu_stop)
    a = rec.args
    if not a:
        return
    if rec.name != "MPI_Get_count":
        for key in _COUNT_KEYS:
            n = a.get(key)
            if n is not None and n < 0:
                body.fail(offset, f"{rec.name} has {key}={n}, a negative count")
    for key in _TYPE_KEYS:
        t = a.get(key)
        if t is not None and not 0 <= t < types:
            body.fail(offset, f"{rec.name} has {key}={t}, which the rank's type table ({types} entries) lacks")
    if a.get("commsize", 0) > ranks:
        body.fail(offset, f"{rec.name} has commsize={a['commsize']} in a trace of {ranks} ranks")
    for key in _PEER_KEYS:
        peer = a.get(key)
        if peer is not None and not _LOWEST_PEER <= peer < ranks:
            body.fail(offset, f"{rec.name} has {key}={peer}, outside the trace's {ranks} ranks")
    if a.get("comm") == lu.COMM_WORLD:
        if rec.name == "MPI_Comm_size" and a["size"] != ranks:
            body.fail(offset, f"MPI_Comm_size(MPI_COMM_WORLD) recorded {a['size']} ranks but the .meta "
                              f"says {ranks}: the file belongs to another trace set")
        if rec.name == "MPI_Comm_rank" and a["rank"] != body.rank:
            body.fail(offset, f"MPI_Comm_rank(MPI_COMM_WORLD) recorded rank {a['rank']} in the file of "
                              f"rank {body.rank}: the file belongs to another rank")
    status = a.get("status")
    if status is not None and status[2] < -1:
        body.fail(offset, f"{rec.name} has a status of {status[2]} bytes")


class _Gaps:
    """Wall-clock and CPU seconds between a rank's calls after its MPI_Init ended (after its first
    call without one), each gap counted if positive."""

    __slots__ = ("wall_s", "cpu_s", "all_wall_s", "all_cpu_s", "after_init", "last", "cpu_seen")

    def __init__(self):
        self.wall_s = self.cpu_s = self.all_wall_s = self.all_cpu_s = 0.0
        self.after_init = self.cpu_seen = False
        self.last = None

    def add(self, rec):
        last = self.last
        if last is not None:
            wall, cpu = rec.wall_start - last.wall_stop, rec.cpu_start - last.cpu_stop
            wall, cpu = (wall if wall > 0.0 else 0.0), (cpu if cpu > 0.0 else 0.0)
            self.all_wall_s += wall
            self.all_cpu_s += cpu
            if self.after_init:
                self.wall_s += wall
                self.cpu_s += cpu
        if not self.after_init and rec.name in INIT_CALLS:
            self.after_init = True
        if not self.cpu_seen and rec.cpu_stop > 0.0:
            self.cpu_seen = True
        self.last = rec

    def totals(self) -> tuple:
        """(wall s, cpu s); a rank without MPI_Init counts every gap after its first call; cpu s is None
        when the trace has no CPU times (all zero: recorded without them)."""
        wall, cpu = (self.wall_s, self.cpu_s) if self.after_init else (self.all_wall_s, self.all_cpu_s)
        return wall, (cpu if self.cpu_seen else None)


def read_chunks(path: str, rank: int = 0, ranks: int = None, footer_counts=None, spans=None,
                types: int = 1 << 15, gaps=None):
    """Iterate over lists of up to :data:`CHUNK_RECORDS` records of one rank's ``.bin``, in file order.

    Every record's header (function id, config byte, timestamps) is checked in the file
    before libundumpi reads it, and every decoded record afterwards (times, counts,
    peers below ``ranks``); ``footer_counts`` (``{name: n}``) are compared with the
    records read.  Damage raises :class:`TraceError` naming the file, rank and byte
    offset.  ``spans`` (a dict) receives ``rank: (first start, last stop, first
    offset, last offset)`` once the file is read to its end; ``types`` is the length of
    the rank's type table, which every datatype argument must index.  ``gaps`` (a dict)
    receives ``rank: (wall s, cpu s)``, the positive gaps between the rank's calls after its
    MPI_Init ended on each clock, once the file is read to its end.
    """
    lib = lu.library()
    table = _handler_table()
    ids = _record_ids(table)
    ranks = ranks if ranks is not None else 1 << 30
    _note(rank, 0)
    lu.check_trace_file(path, rank)
    profile = lu.open_profile(path)
    mapped = None
    try:
        fields = lu.profile_fields(profile)
        with open(path, "rb") as f:
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        body = _Body(path, rank, mapped, fields.body + 8, fields.footer, ids)
        if not (0 < fields.body and fields.body + 8 <= fields.footer):
            body.fail(fields.body, "the body section lies outside the file")
        lib.dumpi_start_stream_read(profile)
        chunk = _Chunk()
        handle = ffi.new_handle(chunk)
        finalized = ffi.new("int *")
        progress = _PROGRESS
        stream = fields.file
        pos = lu.tell(stream)
        calls = Counter()
        between = _Gaps()
        last_stop = {}
        first = last = None
        more = pos < body.footer
        while more:
            offsets = []
            for _ in range(CHUNK_RECORDS):
                func = body.check_header(pos)
                if func == lu.END_OF_STREAM:
                    more = False
                    break
                if progress is not None:
                    struct.pack_into("<qq", progress, 0, rank, pos)
                offsets.append(pos)
                going = lib.undumpi_read_single_call(profile, table, handle, finalized)
                end = lu.tell(stream)
                if end > body.footer:
                    body.fail(pos, "record runs past the end of the body")
                pos = end
                if not going or pos >= body.footer:
                    more = False
                    break
            if chunk.error is not None:
                raise chunk.error
            records, chunk.records = chunk.records, []
            if len(records) != len(offsets):
                body.fail(offsets[len(records)] if len(records) < len(offsets) else pos,
                          "libundumpi decoded a different number of records than it read")
            for offset, rec in zip(offsets, records):
                _check_record(body, offset, rec, ranks, last_stop, types)
                calls[rec.name] += 1
                between.add(rec)
            if records:
                if first is None:
                    first = (records[0].wall_start, offsets[0])
                last = (max(r.wall_stop for r in records), offsets[-1])
                yield records
        if footer_counts is not None:
            calls.pop(_ENTER, None)
            calls.pop(_EXIT, None)
            if dict(calls) != footer_counts:
                diff = sorted(set(calls.items()) ^ set(footer_counts.items()))
                name = diff[0][0]
                body.fail(fields.footer, f"the footer counts {footer_counts.get(name, 0)} {name} calls but the "
                                         f"records hold {calls.get(name, 0)}")
        if spans is not None:
            spans[rank] = (first[0], last[0], first[1], last[1]) if first else None
        if gaps is not None:
            gaps[rank] = between.totals()
    finally:
        if mapped is not None:
            mapped.close()
        lu.close_profile(profile)


class TraceSet(OpTrace):
    """A DUMPI trace set: a ``.meta`` file and one ``<prefix>-NNNN.bin`` per rank.

    ``path`` is the set's folder (holding one ``.meta``), its ``.meta`` file, its file
    prefix, or one of its ``.bin`` files.  As an :class:`~ppt.traces.opstream.OpTrace` its
    streams are its records translated by :mod:`ppt.traces.readers.dumpi_ops`.
    """

    def __init__(self, path: str, _trusted: bool = False):
        self.meta_path = _find_meta(os.fspath(path))
        self.meta = _read_meta(self.meta_path)
        try:
            self.ranks = int(self.meta["numprocs"])
            prefix = self.meta["fileprefix"]
        except (KeyError, ValueError):
            raise TraceError(f"{self.meta_path} lacks a valid numprocs= or fileprefix= line: "
                             "use the .meta file written with the trace") from None
        if self.ranks < 1:
            raise TraceError(f"{self.meta_path} says numprocs={self.ranks}: it must be at least 1")
        folder = os.path.dirname(self.meta_path)
        self.rank_files = tuple(os.path.join(folder, f"{prefix}-{r:04d}.bin")
                                for r in range(self.ranks))
        missing = [f for f in self.rank_files if not os.path.isfile(f)]
        if missing:
            raise TraceError(f"{self.meta_path} names {self.ranks} ranks but {len(missing)} rank "
                             f"file(s) are missing (first: {os.path.basename(missing[0])}); "
                             "copy the whole trace set")
        for rank, f in enumerate(self.rank_files):
            lu.check_trace_file(f, rank)
        self._spans = {}
        self._gaps = {}
        self._sizes = {}
        self._footers = {}
        self._first_call_s = None
        self._checked = _trusted

    def __repr__(self):
        return f"TraceSet({self.meta_path!r}, ranks={self.ranks})"

    def check(self) -> None:
        """Read the whole set once in a child process; raise :class:`TraceError` if it is damaged.

        libundumpi aborts the process on some malformed records (and reads others past
        their end), so the first read of a set happens in a child: damage is then a
        one-line error naming the file, rank and byte offset, never a dead interpreter.
        Called before any record, footer or type table is read.
        """
        if self._checked:
            return
        _check_in_child(self)
        self._checked = True

    def records(self, rank: int):
        """Iterate over rank ``rank``'s records in file order (streamed)."""
        self.check()
        path = self.rank_files[self._check(rank)]
        for records in read_chunks(path, rank, self.ranks, self.footer_counts(rank), self._spans,
                                   len(self.datatype_sizes(rank)), self._gaps):
            yield from records

    @property
    def num_ranks(self) -> int:
        return self.ranks

    def stream(self, rank: int):
        """Rank ``rank``'s records as op chunks (streamed); gaps count from :meth:`first_call_s`."""
        return record_stream(self.records(rank), self.datatype_sizes(rank), rank, self.first_call_s())

    def first_call_s(self) -> float:
        """The earliest start of any rank's first call (trace wall-clock seconds)."""
        if self._first_call_s is None:
            starts = []
            for rank in range(self.ranks):
                records = self.records(rank)
                first = next(records, None)
                records.close()
                if first is not None:
                    starts.append(first.wall_start)
            self._first_call_s = min(starts) if starts else 0.0
        return self._first_call_s

    def calls(self) -> Counter:
        """Calls by name over all ranks, from the rank files' footers (no records read)."""
        calls = Counter()
        for rank in range(self.ranks):
            calls.update(self.footer_counts(rank))
        return calls

    def translates(self, call: str) -> bool:
        return call in OPS

    def has_init(self, rank: int) -> bool:
        return any(self.footer_counts(rank).get(name) for name in INIT_CALLS)

    def datatype_sizes(self, rank: int) -> tuple:
        """Bytes per datatype id in rank ``rank``'s type table (index = DUMPI datatype id)."""
        self.check()
        if rank not in self._sizes:
            self._sizes[rank] = self._with_profile(rank, lu.read_datatype_sizes)
        return self._sizes[rank]

    def footer_counts(self, rank: int) -> dict:
        """The library's count of calls per function name in rank ``rank``'s footer (non-zero only)."""
        self.check()
        if rank not in self._footers:
            counts = self._with_profile(rank, lu.read_footer_counts)
            labels = lu.function_labels()
            self._footers[rank] = {labels[i]: n for i, n in enumerate(counts) if n}
        return dict(self._footers[rank])

    def span(self) -> tuple:
        """(first call start, last call stop) over all ranks, wall-clock seconds.

        Ranks already read to the end through :meth:`records` are not read again.  The
        ranks ran together from MPI_Init to MPI_Finalize, so a rank whose calls do not
        overlap the others', or end later than the others' whole span after them, has
        damaged timestamps (TraceError).
        """
        for rank in range(self.ranks):
            if rank not in self._spans:
                for _ in self.records(rank):
                    pass
        spans = {r: s for r, s in self._spans.items() if s}
        if not spans:
            return (0.0, 0.0)
        for rank, (start, stop, first_at, last_at) in spans.items():
            others = [s for r, s in spans.items() if r != rank]
            if not others:
                break
            o_start = min(s[0] for s in others)
            o_stop = max(s[1] for s in others)
            if start > o_stop or stop < o_start:
                raise damaged(self.rank_files[rank], rank, first_at,
                              f"its calls ({start:.6f}..{stop:.6f} s) do not overlap the other ranks' "
                              f"({o_start:.6f}..{o_stop:.6f} s)")
            if stop - o_stop > max(o_stop - o_start, 1e-3):
                raise damaged(self.rank_files[rank], rank, last_at,
                              f"its last call ends at {stop:.6f} s, {stop - o_stop:.6f} s after every other "
                              f"rank finished (they span {o_stop - o_start:.6f} s)")
        return (min(s[0] for s in spans.values()), max(s[1] for s in spans.values()))

    def compute_gaps(self) -> list:
        """Per rank ``(wall s, cpu s)``: the positive gaps between its calls after its MPI_Init ended
        (after its first call if it has none), by the wall clock and by its CPU clock (None if the
        rank's records carry no CPU times).

        These gaps are the program's compute as replay sees it.  A rank that kept its core spends
        about as much CPU time as wall-clock time in them; one that shared its core with other
        ranks (an oversubscribed recording) spends less, as it waited for the core.  Ranks already
        read to the end through :meth:`records` are not read again.
        """
        for rank in range(self.ranks):
            if rank not in self._gaps:
                for _ in self.records(rank):
                    pass
        return [self._gaps[rank] for rank in range(self.ranks)]

    def _check(self, rank: int) -> int:
        if not 0 <= rank < self.ranks:
            raise ValueError(f"rank {rank} outside 0..{self.ranks - 1}")
        return rank

    def _with_profile(self, rank, read):
        _note(rank, 0)
        profile = lu.open_profile(self.rank_files[self._check(rank)])
        try:
            return read(profile)
        finally:
            lu.close_profile(profile)


#: Seconds the validating child may take: a base plus this many per MiB of trace.
CHECK_TIMEOUT_S, CHECK_S_PER_MIB = 60.0, 2.0


def _check_in_child(trace_set) -> None:
    """Read ``trace_set`` completely in a child Python; turn its failure into a TraceError."""
    size = sum(os.path.getsize(f) for f in trace_set.rank_files)
    timeout = CHECK_TIMEOUT_S + CHECK_S_PER_MIB * size / 2**20
    with tempfile.TemporaryDirectory(prefix="ppt-trace-check-") as tmp:
        progress = os.path.join(tmp, "progress")
        with open(progress, "wb") as f:
            f.write(struct.pack("<qq", -1, -1))
        cmd = [sys.executable, "-c", "import sys; from ppt.traces.readers.dumpi import _child_main; "
               "sys.exit(_child_main(sys.argv[1], sys.argv[2]))", trace_set.meta_path, progress]
        try:
            proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  timeout=timeout)
            code, out = proc.returncode, proc.stdout.strip()
        except subprocess.TimeoutExpired:
            code, out = None, ""
        if code == 0:
            return
        if code == 2 and out and "\n" not in out:
            raise TraceError(out)
        with open(progress, "rb") as f:
            rank, offset = struct.unpack("<qq", f.read(16))
    if code is None:
        how = f"reading it did not finish within {timeout:.0f} s"
    elif code < 0:
        how = f"libundumpi died ({signal.Signals(-code).name}) reading the record there"
    else:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        how = f"checking it failed (exit {code}: {last})"
    if rank < 0:
        raise TraceError(f"{trace_set.meta_path}: {how} before reading any record; the trace set is "
                         "damaged (copy it again)")
    raise damaged(trace_set.rank_files[rank], rank, offset, how)


def _child_main(meta_path: str, progress_path: str) -> int:
    """Entry of the validating child: read every rank; exit 0, or 2 with the TraceError on stdout."""
    global _PROGRESS
    with open(progress_path, "r+b") as f:
        _PROGRESS = mmap.mmap(f.fileno(), 16)
    try:
        ts = TraceSet(meta_path, _trusted=True)
        for rank in range(ts.ranks):
            ts.datatype_sizes(rank)
            for _ in ts.records(rank):
                pass
        ts.span()
    except TraceError as exc:
        print(str(exc).replace("\n", " "))
        return 2
    return 0


def _find_meta(path: str) -> str:
    if os.path.isdir(path):
        metas = sorted(glob.glob(os.path.join(path, "*.meta")))
        if len(metas) == 1:
            return metas[0]
        if not metas:
            raise TraceError(f"no .meta file in {path}: pass the folder of a DUMPI trace set")
        raise TraceError(f"{path} holds {len(metas)} trace sets: pass one of their .meta files")
    if path.endswith(".meta") and os.path.isfile(path):
        return path
    prefix = re.sub(r"-\d+\.bin$", "", path)
    if os.path.isfile(prefix + ".meta"):
        return prefix + ".meta"
    raise TraceError(f"no DUMPI trace set at {path}: give its folder, .meta file or file prefix")


def _read_meta(path: str) -> dict:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as exc:
        raise TraceError(f"cannot read {path}: {exc.strerror}") from None
    return dict(line.split("=", 1) for line in lines if "=" in line)

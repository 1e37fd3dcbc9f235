"""Streaming reader of SST-DUMPI trace sets (one ``.bin`` per rank plus a ``.meta``).

Every record is decoded by libundumpi (see :mod:`ppt.traces.libundumpi`): the
reader asks the library for one call at a time (``undumpi_read_single_call``),
so a rank's records arrive in file order in chunks of :data:`CHUNK_RECORDS`
and a trace set is never held in memory.  Each open rank iterator holds one
open file.

A :class:`Record` carries the call's name, wall-clock and CPU start/stop
times in seconds (on the traced machine's clock), its thread and its
arguments as plain Python values under DUMPI's argument names (``count``,
``datatype``, ``dest``/``source``, ``tag``, ``comm``, ``request``/``requests``,
``root``, ``op``, ``color``/``key``, ``newcomm``, ``group``/``newgroup``,
``ranks``, ``index``/``indices``/``outcount``/``flag``, ...).  Ranks, datatypes,
communicators, groups, ops and requests are DUMPI handles (see the constants
in :mod:`ppt.traces.libundumpi`); a peer rank is a rank of the call's
communicator.  ``status`` is ``(source, tag, bytes)`` when the trace recorded
it, else ``None``.  Calls whose arguments are not decoded (MPI-IO, RMA,
attributes, ...) still arrive, by name, with empty ``args``.
"""
from __future__ import annotations

import glob
import os
import re

from ppt.errors import TraceError
from ppt.traces import libundumpi as lu
from ppt.traces.libundumpi import ffi

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


def read_chunks(path: str):
    """Iterate over lists of up to :data:`CHUNK_RECORDS` records of one rank's ``.bin``, in file order."""
    lib = lu.library()
    table = _handler_table()
    profile = lu.open_profile(path)
    try:
        lib.dumpi_start_stream_read(profile)
        chunk = _Chunk()
        handle = ffi.new_handle(chunk)
        finalized = ffi.new("int *")
        more = True
        while more:
            for _ in range(CHUNK_RECORDS):
                if not lib.undumpi_read_single_call(profile, table, handle, finalized):
                    more = False
                    break
            if chunk.error is not None:
                raise chunk.error
            records, chunk.records = chunk.records, []
            if records:
                yield records
    finally:
        lu.close_profile(profile)


class TraceSet:
    """A DUMPI trace set: a ``.meta`` file and one ``<prefix>-NNNN.bin`` per rank.

    ``path`` is the set's folder (holding one ``.meta``), its ``.meta`` file, its file
    prefix, or one of its ``.bin`` files.
    """

    def __init__(self, path: str):
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
        for f in self.rank_files:
            lu.check_trace_file(f)
        self._spans = {}
        self._sizes = {}

    def __repr__(self):
        return f"TraceSet({self.meta_path!r}, ranks={self.ranks})"

    def records(self, rank: int):
        """Iterate over rank ``rank``'s records in file order (streamed)."""
        first, last = float("inf"), float("-inf")
        for records in read_chunks(self.rank_files[self._check(rank)]):
            first = min(first, min(r.wall_start for r in records))
            last = max(last, max(r.wall_stop for r in records))
            yield from records
        self._spans[rank] = (first, last) if first <= last else None   # None: no records

    def datatype_sizes(self, rank: int) -> tuple:
        """Bytes per datatype id in rank ``rank``'s type table (index = DUMPI datatype id)."""
        if rank not in self._sizes:
            self._sizes[rank] = self._with_profile(rank, lu.read_datatype_sizes)
        return self._sizes[rank]

    def footer_counts(self, rank: int) -> dict:
        """The library's count of calls per function name in rank ``rank``'s footer (non-zero only)."""
        counts = self._with_profile(rank, lu.read_footer_counts)
        labels = lu.function_labels()
        return {labels[i]: n for i, n in enumerate(counts) if n}

    def span(self) -> tuple:
        """(first call start, last call stop) over all ranks, wall-clock seconds.

        Ranks already read to the end through :meth:`records` are not read again.
        """
        for rank in range(self.ranks):
            if rank not in self._spans:
                for _ in self.records(rank):
                    pass
        spans = [s for s in self._spans.values() if s]
        if not spans:
            return (0.0, 0.0)
        return (min(s for s, _ in spans), max(e for _, e in spans))

    def _check(self, rank: int) -> int:
        if not 0 <= rank < self.ranks:
            raise ValueError(f"rank {rank} outside 0..{self.ranks - 1}")
        return rank

    def _with_profile(self, rank, read):
        profile = lu.open_profile(self.rank_files[self._check(rank)])
        try:
            return read(profile)
        finally:
            lu.close_profile(profile)


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

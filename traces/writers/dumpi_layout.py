"""The bytes of one rank's SST-DUMPI ``.bin`` file, as libdumpi writes them and libundumpi reads them.

A file is: the head magic; the body (CPU and wall-clock second offsets, then one record per
call); the end-of-stream label; the header (version, start time, host and user names, an empty
mesh); the footer (footer magic, then per function id the calls recorded and the calls ignored);
the performance-counter labels (none); the datatype size table; the function addresses (none);
and the index record that says where each section starts.  Every integer is big-endian.

A record is: the function id (16 bits), a config byte (thread id present, CPU and/or wall-clock
times present; statuses never), the thread (16 bits), the start and stop of each clock present
(16-bit seconds past the body's offset, 32-bit nanoseconds), then the call's arguments in the
order and widths its layout names (:data:`LAYOUTS`).  The layouts are written from the public
sst-dumpi sources (``dumpi/common/dumpiio.c``, ``iodefs.h``, ``io.c``) of the release whose
``libundumpi`` the reader binds (version 8.0.0).
"""
from __future__ import annotations

import struct

from ppt.errors import TraceError
from ppt.traces.readers import libundumpi as lu

#: The DUMPI version written in every header (the version of the libundumpi that reads it).
VERSION = (8, 0, 0)
THREAD_ID, CPU_TIME, WALL_TIME = 0x40, 0x04, 0x08     # config byte bits (dumpi/common/settings.h)

#: Bytes of each predefined DUMPI datatype (index = DUMPI's id: ERROR, NULL, CHAR, SIGNED_CHAR,
#: UNSIGNED_CHAR, BYTE, WCHAR, SHORT, UNSIGNED_SHORT, INT, UNSIGNED, LONG, UNSIGNED_LONG, FLOAT,
#: DOUBLE, LONG_DOUBLE, LONG_LONG_INT, UNSIGNED_LONG_LONG, LONG_LONG, PACKED, LB, UB, FLOAT_INT,
#: DOUBLE_INT, LONG_INT, SHORT_INT, 2INT, LONG_DOUBLE_INT) on an LP64 machine.
PREDEFINED_SIZES = (0, 0, 1, 1, 1, 1, 4, 2, 2, 4, 4, 8, 8, 4, 8, 16, 8, 8, 8, 1, 0, 0, 8, 12, 12, 6, 8, 20)
BYTE = 5
INT32_MAX = 2**31 - 1

# Argument layouts: a letter per value.  i: int32; h: 16-bit handle (datatype, communicator, group);
# b: 8-bit value (reduction op, thread level, topology, comparison); a: int32 array (its length, then
# the values); s: a status or status array (nothing: the files record no statuses); ?: the fields
# after it up to the next '|' (or the end) are present only in the root's record.
_SEND = "ihiih"                 # count datatype dest tag comm
_ISEND = "ihiihi"               # ... request
_REDUCING = "ihbh"              # count datatype op comm
_ALL = "ihihh"                  # sendcount sendtype recvcount recvtype comm
_GROUP_PICK = "hiah"            # group count ranks newgroup
_GROUP_SET = "hhh"              # group1 group2 newgroup
LAYOUTS = {
    **dict.fromkeys(("MPI_Send", "MPI_Bsend", "MPI_Ssend", "MPI_Rsend"), _SEND),
    **dict.fromkeys(("MPI_Isend", "MPI_Ibsend", "MPI_Issend", "MPI_Irsend"), _ISEND),
    "MPI_Recv": "ihiihs", "MPI_Irecv": _ISEND,
    "MPI_Sendrecv": "ihiiihiihs",             # sendcount sendtype dest sendtag recvcount recvtype source recvtag comm
    "MPI_Sendrecv_replace": "ihiiiihs",       # count datatype dest sendtag source recvtag comm
    "MPI_Probe": "iihs", "MPI_Iprobe": "iihis",  # source tag comm [flag]
    "MPI_Wait": "is", "MPI_Test": "iis",
    "MPI_Waitall": "ias", "MPI_Testall": "iais",
    "MPI_Waitany": "iais", "MPI_Testany": "iaiis",     # count requests index [flag]
    "MPI_Waitsome": "iaias", "MPI_Testsome": "iaias",  # count requests outcount indices
    "MPI_Barrier": "h", "MPI_Bcast": "ihih",           # count datatype root comm
    "MPI_Reduce": "ihbih",                             # count datatype op root comm
    **dict.fromkeys(("MPI_Allreduce", "MPI_Scan", "MPI_Exscan"), _REDUCING),
    "MPI_Gather": "iihih?ih",        # commrank sendcount sendtype root comm | recvcount recvtype
    "MPI_Gatherv": "iiihih?aa|h",    # commrank commsize sendcount sendtype root comm | recvcounts displs ; recvtype
    "MPI_Scatter": "iihih?ih",       # commrank recvcount recvtype root comm | sendcount sendtype
    "MPI_Scatterv": "iihihih?aa",    # commrank commsize sendtype recvcount recvtype root comm | sendcounts displs
    "MPI_Allgather": _ALL, "MPI_Alltoall": _ALL,
    "MPI_Allgatherv": "iihaahh",     # commsize sendcount sendtype recvcounts displs recvtype comm
    "MPI_Alltoallv": "iaahaahh",     # commsize sendcounts senddispls sendtype recvcounts recvdispls recvtype comm
    "MPI_Reduce_scatter": "iahbh",   # commsize recvcounts datatype op comm
    "MPI_Comm_dup": "hh", "MPI_Comm_create": "hhh", "MPI_Comm_split": "hiih",
    "MPI_Cart_create": "hiaaih",     # oldcomm ndim dims periods reorder newcomm
    "MPI_Cart_sub": "ihah",          # ndim oldcomm remain_dims newcomm
    "MPI_Comm_free": "h", "MPI_Comm_group": "hh",
    "MPI_Group_incl": _GROUP_PICK, "MPI_Group_excl": _GROUP_PICK,
    **dict.fromkeys(("MPI_Group_union", "MPI_Group_intersection", "MPI_Group_difference"), _GROUP_SET),
    "MPI_Group_free": "h",
    "MPI_Op_create": "ib", "MPI_Op_free": "b",
    "MPI_Init": "i",                 # argc (no argv strings)
    "MPI_Init_thread": "ibb",        # argc required provided
    "MPI_Wtime": "", "MPI_Finalize": "",
    # calls without communication
    "MPI_Initialized": "i", "MPI_Finalized": "i",
    "MPI_Comm_rank": "hi", "MPI_Comm_size": "hi",
    "MPI_Cart_shift": "hiiii",       # comm direction displ source dest
    "MPI_Dims_create": "iiaa",       # nodes ndim dims(in) dims(out)
    "MPI_Cart_rank": "ihai", "MPI_Cart_coords": "ihiia", "MPI_Cartdim_get": "hi",
    "MPI_Cart_get": "ihiaaa",        # ndim comm maxdims dims periods coords
    "MPI_Topo_test": "hb", "MPI_Comm_compare": "hhb",
    "MPI_Group_size": "hi", "MPI_Group_rank": "hi",
    "MPI_Type_commit": "h", "MPI_Type_free": "h", "MPI_Type_size": "hi",
    "MPI_Get_count": "shi",          # status datatype count
}


class Writer:
    """Appends big-endian values to a growing byte string."""

    __slots__ = ("parts", "size")

    def __init__(self):
        self.parts = []
        self.size = 0

    def raw(self, data: bytes) -> None:
        self.parts.append(data)
        self.size += len(data)

    def pack(self, fmt: str, *values) -> None:
        self.raw(struct.pack(">" + fmt, *values))

    def string(self, text: str) -> None:
        data = text.encode()
        self.pack("H", len(data))
        self.raw(data)

    def bytes(self) -> bytes:
        return b"".join(self.parts)


def layout(name: str, at_root: bool = True) -> tuple:
    """``(letters, root-only slice)`` of call ``name``'s record (no 's'): the value letters its record holds
    (``at_root``: whether a rooted call's record is the root's, whose root-only fields, between '?' and '|'
    or the end, are then present), and the slice of a full value list those root-only fields take."""
    letters = LAYOUTS[name].replace("s", "")
    head_, mark, rest = letters.partition("?")
    if not mark:
        return letters, slice(0, 0)
    rooted, _, after = rest.partition("|")
    return head_ + (rooted if at_root else "") + after, slice(len(head_), len(head_) + len(rooted))


def _one(out: Writer, letter: str, value) -> None:
    if letter == "i":
        out.pack("i", value)
    elif letter == "h":
        out.pack("H", value & 0xFFFF)
    elif letter == "b":
        out.pack("B", value & 0xFF)
    else:   # "a"
        out.pack("i", len(value))
        if value:
            out.pack(f"{len(value)}i", *value)


def record(out: Writer, func: int, name: str, thread: int, cpu, wall, offsets, values, at_root=True) -> None:
    """Append one record: function id ``func`` (call ``name``, every argument of its layout in ``values``; those
    only a root's record holds are left out unless ``at_root``), ``cpu``/``wall`` each ``(start, stop)`` in
    integer nanoseconds or None (clock not recorded), ``offsets`` the body's (cpu, wall) second offsets."""
    config = THREAD_ID | (CPU_TIME if cpu else 0) | (WALL_TIME if wall else 0)
    out.pack("HBH", func, config, thread)
    for clock, offset in ((cpu, offsets[0]), (wall, offsets[1])):
        if clock:
            for ns in clock:
                sec, nsec = divmod(ns, 1_000_000_000)
                out.pack("HI", sec - offset, nsec)
    letters, root_only = layout(name, at_root)
    if not at_root:
        values = values[:root_only.start] + values[root_only.stop:]
    if len(letters) != len(values):
        raise AssertionError(f"{name}: {len(values)} values for layout {letters!r}")
    for letter, value in zip(letters, values):
        _one(out, letter, value)


def seconds_offset(first_ns: int, last_ns: int, what: str) -> int:
    """The body's second offset for a clock whose times run from ``first_ns`` to ``last_ns`` (ns): records
    hold 16-bit seconds past it, so the span must stay below 65536 s."""
    offset = first_ns // 1_000_000_000
    if last_ns // 1_000_000_000 - offset > 0xFFFF:
        raise TraceError(f"{what} spans more than 65535 s, which DUMPI's 16-bit record seconds cannot hold")
    if not -2**31 <= offset < 2**31:
        raise TraceError(f"{what} starts at {first_ns * 1e-9:.0f} s, outside DUMPI's 32-bit second offsets")
    return offset


def head(out: Writer, offsets) -> int:
    """Start a file: head magic and the body's (cpu, wall) offsets; returns the body's position."""
    out.pack("Q", lu.HEAD_MAGIC)
    body = out.size
    out.pack("ii", *offsets)
    return body


def tail(out: Writer, body: int, counts, type_sizes, start_time: int, hostname: str) -> None:
    """End a file after its records: end-of-stream label, header, footer (``counts``: calls per function
    id), counter labels, datatype sizes (``type_sizes``), function addresses and the index record."""
    out.pack("H", lu.END_OF_STREAM)
    header = out.size
    out.pack("3BQ", *VERSION, start_time)
    out.string(hostname)
    out.string("<none>")
    out.pack("ii", 0, 0)                    # mesh coordinates, mesh size: none
    footer = out.size
    out.pack("Q", lu.FOOT_MAGIC)
    out.pack(f"{lu.ALL_FUNCTIONS + 1}I", *(counts.get(i, 0) for i in range(lu.ALL_FUNCTIONS + 1)))
    out.pack(f"{lu.ALL_FUNCTIONS + 1}I", *([0] * (lu.ALL_FUNCTIONS + 1)))
    perflbl = out.size
    out.pack("i", 0)
    sizelbl = out.size
    out.pack(f"i{len(type_sizes)}i", len(type_sizes), *type_sizes)
    addrlbl = out.size
    out.pack("i", 0)
    out.pack("8Q", lu.HEAD_MAGIC, sizelbl, addrlbl, perflbl, header, body, footer, 0)

"""DUMPI records -> op-stream (:mod:`ppt.traces.opstream`): the DUMPI reader's translation.

One op per record, in file order, resolved as the form wants it:

* bytes: ``count x size(datatype)`` from the rank's type table (a datatype the table lacks is a
  damaged trace); a v-collective's per-rank counts times its type's size, Alltoallw's each times
  its own type's;
* peers: a destination below 0 is PROC_NULL, a source of DUMPI's ANY_SOURCE (-1) is ANY_SOURCE and
  another negative one PROC_NULL; a split colour below 0 is UNDEFINED;
* communicators: DUMPI's COMM_WORLD and COMM_SELF become the stream's, its COMM_NULL (and any number
  below it) COMM_NULL; the others keep DUMPI's number (4 on; DUMPI reuses a freed one, as the form
  allows).  Groups keep DUMPI's numbers.  A call on a handle no replayed call created is the
  executor's to refuse;
* ops and requests keep DUMPI's numbers (predefined ops below FIRST_USER_OP, as DUMPI numbers them);
* outcomes: Test/Testall/Iprobe keep their flag, Waitany/Testany the index they reported (NO_INDEX
  when none), Waitsome/Testsome their indices.

``Cart_sub`` becomes CART_SUB (replayed as the equivalent Comm_split, whose colour needs the
Cartesian coordinates only the replay knows).  Calls without an entry in :data:`OPS` become OTHER ops.
DUMPI's format (MPI-2) has no records for nonblocking collectives, so no DUMPI trace holds the op stream's
IALLREDUCE and its siblings.
The first op's gaps count from ``start_s``, the trace's first call; a rank's first CPU gap is its
wall-clock gap (no CPU reading before its first call).
"""
from __future__ import annotations

from ppt.errors import TraceError
from ppt.traces.readers import libundumpi as lu
from ppt.oprecord import ANY_SOURCE, COMM_NULL, COMM_SELF, COMM_WORLD, NO_INDEX, PROC_NULL, UNDEFINED, Op
from ppt.traces.opstream import CHUNK_OPS, OpStreamBuilder

#: The calls whose end starts a rank's compute: the gaps before belong to the launcher and the
#: program's start-up (see :mod:`ppt.traces.replay`).
INIT_CALLS = frozenset(("MPI_Init", "MPI_Init_thread"))

#: Calls that move no data between ranks: counted as calls, no simulated time.
LOCAL_CALLS = frozenset("MPI_" + name for name in """
    Initialized Finalize Finalized Query_thread Is_thread_main Abort
    Comm_rank Comm_size Comm_compare Comm_test_inter Comm_get_name Comm_set_name
    Comm_set_errhandler Comm_get_errhandler Comm_get_attr Comm_set_attr Attr_get Attr_put
    Errhandler_create Errhandler_set Errhandler_get Errhandler_free Error_string Error_class
    Group_size Group_rank Group_compare Group_translate_ranks
    Topo_test Dims_create Cartdim_get Cart_get Cart_rank Cart_coords Cart_shift Cart_map
    Wtick Get_count Get_elements Get_processor_name Get_version Address Get_address
    Pack Unpack Pack_size Buffer_attach Buffer_detach Keyval_create Keyval_free
    Type_contiguous Type_vector Type_hvector Type_create_hvector Type_indexed Type_hindexed
    Type_create_hindexed Type_struct Type_create_struct Type_create_indexed_block
    Type_create_resized Type_create_subarray Type_dup Type_commit Type_free Type_size
    Type_extent Type_get_extent Type_lb Type_ub
""".split())


def dest(rank: int) -> int:
    """A traced destination as a stream peer."""
    return rank if rank >= 0 else PROC_NULL


def source(rank: int) -> int:
    """A traced source as a stream peer (DUMPI records ANY_SOURCE as -1, PROC_NULL as the library's value)."""
    if rank >= 0:
        return rank
    return ANY_SOURCE if rank == lu.ANY_SOURCE else PROC_NULL


def color(value: int) -> int:
    """A traced ``Comm_split`` colour: negative values are ``MPI_UNDEFINED``."""
    return value if value >= 0 else UNDEFINED


def comm(handle: int) -> int:
    """A DUMPI communicator handle as a stream handle."""
    if handle > lu.COMM_SELF:
        return handle
    return COMM_WORLD if handle == lu.COMM_WORLD else COMM_SELF if handle == lu.COMM_SELF else COMM_NULL


class RankOps:
    """Translates one rank's records; ``sizes``: bytes per DUMPI datatype id (the rank's type table)."""

    __slots__ = ("rank", "sizes")

    def __init__(self, rank: int, sizes):
        self.rank = rank
        self.sizes = sizes

    def chunks(self, records, start_s: float, chunk_ops: int = CHUNK_OPS):
        """Iterator over the op chunks of ``records`` (in file order); gaps count from ``start_s`` (s)."""
        builder = OpStreamBuilder(chunk_ops, summary=False)     # the trace set knows the summary
        add = builder.add
        last_stop, last_cpu = start_s, None
        for record in records:
            gap = record.wall_start - last_stop
            cpu_gap = gap if last_cpu is None else record.cpu_start - last_cpu
            last_stop, last_cpu = record.wall_stop, record.cpu_stop
            name = record.name
            entry = OPS.get(name)
            if entry is None:
                kind, fields = Op.OTHER, _NOTHING
            else:
                kind, encode = entry
                fields = encode(self, record.args)
            chunk = add(kind, name, gap, cpu_gap, record.wall_stop - record.wall_start, record.wall_start, **fields)
            if chunk is not None:
                yield chunk
        chunk = builder.finish()
        if chunk is not None:
            yield chunk

    # -- resolution ---------------------------------------------------------------------------
    def nbytes(self, count: int, datatype: int) -> int:
        sizes = self.sizes
        if not 0 <= datatype < len(sizes):
            raise TraceError(f"trace rank {self.rank} uses datatype {datatype}, which its type table "
                             f"({len(sizes)} entries) lacks: the trace is damaged")
        return count * sizes[datatype]


_NOTHING = {}


# -- one encoder per argument layout: (RankOps, DUMPI args) -> Op fields -----------------------------
def _nothing(r, a):
    return _NOTHING


def _send(r, a):
    return {"comm": comm(a["comm"]), "peer": dest(a["dest"]), "tag": a["tag"],
            "nbytes": r.nbytes(a["count"], a["datatype"])}


def _isend(r, a):
    return dict(_send(r, a), request=a["request"])


def _recv(r, a):
    return {"comm": comm(a["comm"]), "peer": source(a["source"]), "tag": a["tag"],
            "nbytes": r.nbytes(a["count"], a["datatype"])}


def _irecv(r, a):
    return dict(_recv(r, a), request=a["request"])


def _sendrecv(r, a):
    return {"comm": comm(a["comm"]), "peer": dest(a["dest"]), "tag": a["sendtag"],
            "nbytes": r.nbytes(a["sendcount"], a["sendtype"]),
            "aux": (source(a["source"]), a["recvtag"], r.nbytes(a["recvcount"], a["recvtype"]))}


def _sendrecv_replace(r, a):
    nbytes = r.nbytes(a["count"], a["datatype"])
    return {"comm": comm(a["comm"]), "peer": dest(a["dest"]), "tag": a["sendtag"], "nbytes": nbytes,
            "aux": (source(a["source"]), a["recvtag"], nbytes)}


def _probe(r, a):
    """A probe that found a message (every Probe; an Iprobe whose flag is set) names the message the traced
    run found, by the recorded status's source and tag where the trace has them: a wildcard probe would
    otherwise take whichever matching message arrives first in the simulation."""
    found = a.get("status")
    src, tag = found[:2] if found is not None and a.get("flag", 1) else (a["source"], a["tag"])
    return {"comm": comm(a["comm"]), "peer": source(src), "tag": tag}


def _iprobe(r, a):
    return dict(_probe(r, a), flag=a["flag"])


def _request(r, a):
    return {"request": a["request"]}


def _test(r, a):
    return {"request": a["request"], "flag": a["flag"]}


def _requests(r, a):
    return {"aux": a["requests"] or ()}


def _testall(r, a):
    return {"aux": a["requests"] or (), "flag": a["flag"]}


def _any(r, a):
    """Waitany and Testany: the index reported, NO_INDEX when none (Testany failed, or no active request)."""
    requests, index = a["requests"] or (), a["index"]
    done = a.get("flag", 1) and 0 <= index < len(requests)
    return {"aux": requests, "flag": index if done else NO_INDEX}


def _some(r, a):
    """Waitsome and Testsome: the requests, then the indices completed."""
    indices = a["indices"] or []
    return {"aux": [*(a["requests"] or ()), *indices], "flag": len(indices)}


def _barrier(r, a):
    return {"comm": comm(a["comm"])}


def _bcast(r, a):
    return {"comm": comm(a["comm"]), "root": a["root"], "nbytes": r.nbytes(a["count"], a["datatype"])}


def _reduce(r, a):
    return {"comm": comm(a["comm"]), "root": a["root"], "op": a["op"],
            "nbytes": r.nbytes(a["count"], a["datatype"])}


def _reducing(r, a):
    return {"comm": comm(a["comm"]), "op": a["op"], "nbytes": r.nbytes(a["count"], a["datatype"])}


def _rooted(r, a):
    """Gather, Gatherv: the bytes this rank sends."""
    return {"comm": comm(a["comm"]), "root": a["root"], "nbytes": r.nbytes(a["sendcount"], a["sendtype"])}


def _scatter(r, a):
    """Scatter: the bytes for each rank, from the root's send (its send fields are recorded at the root only)
    and elsewhere from the rank's receive."""
    if a["commrank"] == a["root"]:
        return _rooted(r, a)
    return {"comm": comm(a["comm"]), "root": a["root"], "nbytes": r.nbytes(a["recvcount"], a["recvtype"])}


def _scatterv(r, a):
    sendtype = a["sendtype"]
    return {"comm": comm(a["comm"]), "root": a["root"],
            "aux": [r.nbytes(n, sendtype) for n in a["sendcounts"] or ()]}


def _all(r, a):
    return {"comm": comm(a["comm"]), "nbytes": r.nbytes(a["sendcount"], a["sendtype"])}


def _alltoallv(r, a):
    sendtype = a["sendtype"]
    return {"comm": comm(a["comm"]), "aux": [r.nbytes(n, sendtype) for n in a["sendcounts"] or ()]}


def _alltoallw(r, a):
    return {"comm": comm(a["comm"]),
            "aux": [r.nbytes(n, t) for n, t in zip(a["sendcounts"] or (), a["sendtypes"] or ())]}


def _reduce_scatter(r, a):
    datatype = a["datatype"]
    return {"comm": comm(a["comm"]), "op": a["op"], "aux": [r.nbytes(n, datatype) for n in a["recvcounts"]]}


def _comm_dup(r, a):
    return {"comm": comm(a["oldcomm"]), "aux": (comm(a["newcomm"]),)}


def _comm_split(r, a):
    return {"comm": comm(a["oldcomm"]), "aux": (comm(a["newcomm"]), color(a["color"]), a["key"])}


def _comm_create(r, a):
    return {"comm": comm(a["oldcomm"]), "aux": (comm(a["newcomm"]), a["group"])}


def _cart_create(r, a):
    return {"comm": comm(a["oldcomm"]),
            "aux": (comm(a["newcomm"]), a["reorder"], a["ndim"], *a["dims"], *a["periods"])}


def _cart_sub(r, a):
    return {"comm": comm(a["oldcomm"]), "aux": (comm(a["newcomm"]), *a["remain_dims"])}


def _comm_free(r, a):
    return {"comm": comm(a["comm"])}


def _comm_group(r, a):
    return {"comm": comm(a["comm"]), "aux": (a["group"],)}


def _group_pick(r, a):
    return {"aux": (a["newgroup"], a["group"], *a["ranks"])}


def _group_set(r, a):
    return {"aux": (a["newgroup"], a["group1"], a["group2"])}


def _group_free(r, a):
    return {"aux": (a["group"],)}


def _op_create(r, a):
    return {"op": a["op"], "flag": int(bool(a["commute"]))}


def _op_free(r, a):
    return {"op": a["op"]}


#: DUMPI call -> (op kind, encoder of its arguments).  Calls not listed become OTHER ops.
OPS = {
    **{name: (Op.LOCAL, _nothing) for name in LOCAL_CALLS},
    **{name: (Op.INIT, _nothing) for name in INIT_CALLS},
    "MPI_Wtime": (Op.WTIME, _nothing),
    **{name: (Op.SEND, _send) for name in ("MPI_Send", "MPI_Bsend", "MPI_Ssend", "MPI_Rsend")},
    **{name: (Op.ISEND, _isend) for name in ("MPI_Isend", "MPI_Ibsend", "MPI_Issend", "MPI_Irsend")},
    "MPI_Recv": (Op.RECV, _recv), "MPI_Irecv": (Op.IRECV, _irecv),
    "MPI_Sendrecv": (Op.SENDRECV, _sendrecv), "MPI_Sendrecv_replace": (Op.SENDRECV, _sendrecv_replace),
    "MPI_Probe": (Op.PROBE, _probe), "MPI_Iprobe": (Op.IPROBE, _iprobe),
    "MPI_Wait": (Op.WAIT, _request), "MPI_Waitall": (Op.WAITALL, _requests),
    "MPI_Waitany": (Op.WAITANY, _any), "MPI_Waitsome": (Op.WAITSOME, _some),
    "MPI_Test": (Op.TEST, _test), "MPI_Testall": (Op.TESTALL, _testall),
    "MPI_Testany": (Op.TESTANY, _any), "MPI_Testsome": (Op.TESTSOME, _some),
    "MPI_Barrier": (Op.BARRIER, _barrier), "MPI_Bcast": (Op.BCAST, _bcast), "MPI_Reduce": (Op.REDUCE, _reduce),
    "MPI_Allreduce": (Op.ALLREDUCE, _reducing), "MPI_Scan": (Op.SCAN, _reducing),
    "MPI_Exscan": (Op.EXSCAN, _reducing),
    "MPI_Gather": (Op.GATHER, _rooted), "MPI_Gatherv": (Op.GATHER, _rooted),
    "MPI_Scatter": (Op.SCATTER, _scatter), "MPI_Scatterv": (Op.SCATTERV, _scatterv),
    "MPI_Allgather": (Op.ALLGATHER, _all), "MPI_Allgatherv": (Op.ALLGATHERV, _all),
    "MPI_Alltoall": (Op.ALLTOALL, _all), "MPI_Alltoallv": (Op.ALLTOALLV, _alltoallv),
    "MPI_Alltoallw": (Op.ALLTOALLV, _alltoallw), "MPI_Reduce_scatter": (Op.REDUCE_SCATTER, _reduce_scatter),
    "MPI_Comm_dup": (Op.COMM_DUP, _comm_dup), "MPI_Comm_split": (Op.COMM_SPLIT, _comm_split),
    "MPI_Comm_create": (Op.COMM_CREATE, _comm_create), "MPI_Cart_create": (Op.CART_CREATE, _cart_create),
    "MPI_Cart_sub": (Op.CART_SUB, _cart_sub), "MPI_Comm_free": (Op.COMM_FREE, _comm_free),
    "MPI_Comm_group": (Op.COMM_GROUP, _comm_group),
    "MPI_Group_incl": (Op.GROUP_INCL, _group_pick), "MPI_Group_excl": (Op.GROUP_EXCL, _group_pick),
    "MPI_Group_union": (Op.GROUP_UNION, _group_set), "MPI_Group_intersection": (Op.GROUP_INTERSECTION, _group_set),
    "MPI_Group_difference": (Op.GROUP_DIFFERENCE, _group_set), "MPI_Group_free": (Op.GROUP_FREE, _group_free),
    "MPI_Op_create": (Op.OP_CREATE, _op_create), "MPI_Op_free": (Op.OP_FREE, _op_free),
}


def record_stream(records, sizes, rank: int = 0, start_s: float = 0.0, chunk_ops: int = CHUNK_OPS):
    """The op chunks of one rank's DUMPI ``records`` (type table ``sizes``); gaps count from ``start_s``."""
    return RankOps(rank, sizes).chunks(records, start_s, chunk_ops)

"""The op record: one MPI call of a rank's stream, as trace readers write it and the MPI engine runs it.

An op is one fixed-size record (:data:`OP_DTYPE`, 88 bytes, natural alignment, no padding; the C
engine's ``ppt_op_t`` in ``ppt/mpi/engine/core/mpicore.h`` mirrors it) whose ``kind`` (:class:`Op`) says what
the call does, with everything a replay needs already resolved: bytes (not counts and datatypes), peers
and roots as ranks of the call's communicator, and communicators, groups and ops as handles of the
stream's own numbering.  :data:`FIELDS` is the table of fields; docs/op-stream.md describes every kind.
The build gives the C engine the kinds' numbers from :class:`Op` itself (``ppt/mpi/engine/core/build.py``).

This module sits below both the MPI engine (:mod:`ppt.mpi`) and the trace readers and containers
(:mod:`ppt.traces.opstream`), which share it.  Units: seconds and bytes.
"""
from __future__ import annotations

from enum import IntEnum

import numpy as np


class Op(IntEnum):
    """What an op does; the value indexes the replay's dispatch table (int16 in :data:`OP_DTYPE`)."""

    OTHER = 0           #: a recorded call the form does not express (MPI-IO, RMA, persistent requests, ...)
    LOCAL = 1           #: a call without communication (Comm_rank, Type_*, Finalize, ...)
    INIT = 2            #: MPI_Init or MPI_Init_thread: start-up ends with it
    WTIME = 3           #: a clock read (MPI_Wtime): the program times a phase between two of them
    SEND = 4            #: peer, tag, nbytes (every send mode: the call name keeps it)
    ISEND = 5           #: peer, tag, nbytes, request
    RECV = 6            #: peer (or ANY_SOURCE), tag (or ANY_TAG), nbytes posted
    IRECV = 7           #: peer, tag, nbytes posted, request
    SENDRECV = 8        #: peer, tag, nbytes sent; aux = [source, recv tag, bytes posted]
    PROBE = 9           #: peer, tag (of the message found, where the trace recorded it)
    IPROBE = 10         #: peer, tag, flag (1: a message was found; peer and tag then name it, where recorded)
    WAIT = 11           #: request
    WAITALL = 12        #: aux = requests
    WAITANY = 13        #: aux = requests; flag = index completed, or NO_INDEX
    WAITSOME = 14       #: aux = requests then the completed indices; flag = number of indices
    TEST = 15           #: request, flag
    TESTALL = 16        #: aux = requests, flag
    TESTANY = 17        #: as WAITANY (NO_INDEX: nothing completed)
    TESTSOME = 18       #: as WAITSOME (no indices: nothing completed)
    BARRIER = 19        #: comm
    BCAST = 20          #: root, nbytes
    REDUCE = 21         #: root, op, nbytes
    ALLREDUCE = 22      #: op, nbytes
    SCAN = 23           #: op, nbytes
    EXSCAN = 24         #: op, nbytes
    GATHER = 25         #: root, nbytes this rank contributes (Gather and Gatherv)
    SCATTER = 26        #: root, nbytes per rank (read at the root)
    SCATTERV = 27       #: root; aux = bytes to each rank (at the root; empty elsewhere)
    ALLGATHER = 28      #: nbytes this rank contributes
    ALLGATHERV = 29     #: nbytes this rank contributes
    ALLTOALL = 30       #: nbytes to each rank
    ALLTOALLV = 31      #: aux = bytes to each rank (Alltoallv and Alltoallw)
    REDUCE_SCATTER = 32  #: op; aux = bytes each rank receives
    COMM_DUP = 33       #: comm; aux = [new comm]
    COMM_SPLIT = 34     #: comm; aux = [new comm, colour (or UNDEFINED), key]
    COMM_CREATE = 35    #: comm; aux = [new comm, group]
    CART_CREATE = 36    #: comm; aux = [new comm, reorder, ndims, dims..., periods...]
    CART_SUB = 37       #: comm; aux = [new comm, remain flag per dim...]
    COMM_FREE = 38      #: comm
    COMM_GROUP = 39     #: comm; aux = [new group]
    GROUP_INCL = 40     #: aux = [new group, group, ranks...]
    GROUP_EXCL = 41     #: aux = [new group, group, ranks...]
    GROUP_UNION = 42    #: aux = [new group, group 1, group 2]
    GROUP_INTERSECTION = 43  #: aux = [new group, group 1, group 2]
    GROUP_DIFFERENCE = 44    #: aux = [new group, group 1, group 2]
    GROUP_FREE = 45     #: aux = [group]
    OP_CREATE = 46      #: op (the new one), flag (1: commutative)
    OP_FREE = 47        #: op
    # Nonblocking collectives: each its blocking kind's fields (the blocking kind is kind - NONBLOCKING), plus
    # request; the request completes through WAIT, WAITALL, TEST ... as a point-to-point one does.
    IBARRIER = 48       #: as BARRIER, plus request
    IBCAST = 49         #: as BCAST, plus request
    IREDUCE = 50        #: as REDUCE, plus request
    IALLREDUCE = 51     #: as ALLREDUCE, plus request
    ISCAN = 52          #: as SCAN, plus request
    IEXSCAN = 53        #: as EXSCAN, plus request
    IGATHER = 54        #: as GATHER, plus request (Igather and Igatherv)
    ISCATTER = 55       #: as SCATTER, plus request
    ISCATTERV = 56      #: as SCATTERV, plus request
    IALLGATHER = 57     #: as ALLGATHER, plus request
    IALLGATHERV = 58    #: as ALLGATHERV, plus request
    IALLTOALL = 59      #: as ALLTOALL, plus request
    IALLTOALLV = 60     #: as ALLTOALLV, plus request (Ialltoallv and Ialltoallw)
    IREDUCE_SCATTER = 61  #: as REDUCE_SCATTER, plus request


#: A nonblocking collective's kind minus its blocking kind's (IBARRIER - BARRIER ... IREDUCE_SCATTER -
#: REDUCE_SCATTER): the two ranges are alike, in one order.
NONBLOCKING = Op.IBARRIER - Op.BARRIER
assert Op.IREDUCE_SCATTER - Op.REDUCE_SCATTER == NONBLOCKING
#: The collective kinds, blocking and nonblocking.
BLOCKING_COLLECTIVES = range(Op.BARRIER, Op.REDUCE_SCATTER + 1)
NONBLOCKING_COLLECTIVES = range(Op.IBARRIER, Op.IREDUCE_SCATTER + 1)


#: Communicator handles every stream starts with; a reader numbers the ones calls create from 2 up.
COMM_NULL, COMM_WORLD, COMM_SELF = -1, 0, 1
#: Peer values: the null process (sends and receives complete at once, move nothing) and the
#: wildcard source.  They are the simulated MPI's own values, so replay passes peers on unchanged.
PROC_NULL, ANY_SOURCE = -1, -2
#: Wildcard tag.
ANY_TAG = -1
#: A COMM_SPLIT colour for "no new communicator".
UNDEFINED = -32766
#: ``flag`` of a WAITANY/TESTANY that completed no request.
NO_INDEX = -1
#: Reduction ops below this are predefined, numbered as DUMPI numbers them (MAX 1, MIN 2, SUM 3, ...);
#: a stream numbers the ops it creates from here up.
FIRST_USER_OP = 15

#: The fields of an op: (name, numpy type, meaning).  Order and types are :data:`OP_DTYPE`'s, which a
#: C engine mirrors as a struct.
FIELDS = (
    ("kind", "<i2", "what the op does: an Op value"),
    ("call", "<i2", "index of the traced call's name in the chunk's call table (MPI_Isend, MPI_Ibsend, ...)"),
    ("comm", "<i4", "communicator handle (COMM_WORLD, COMM_SELF, or one a creation op made)"),
    ("peer", "<i4", "destination or source, a rank of comm; PROC_NULL or ANY_SOURCE"),
    ("tag", "<i4", "message tag; ANY_TAG"),
    ("root", "<i4", "root of a rooted collective, a rank of comm"),
    ("op", "<i4", "reduction op handle (predefined below FIRST_USER_OP)"),
    ("flag", "<i4", "recorded outcome: 0/1 of TEST/TESTALL/IPROBE, index of WAITANY/TESTANY, "
                    "count of indices of WAITSOME/TESTSOME, commutativity of OP_CREATE"),
    ("aux_len", "<i4", "number of aux values of the op"),
    ("gap_wall_s", "<f8", "compute before the call by the wall clock, s (from the previous call's end; "
                          "the first op's from the trace's start)"),
    ("gap_cpu_s", "<f8", "the same gap by the rank's CPU clock, s (the first op's: its wall-clock gap)"),
    ("call_s", "<f8", "the call's recorded duration (wall clock), s"),
    ("start_s", "<f8", "the call's recorded start on the trace's wall clock, s"),
    ("nbytes", "<i8", "bytes the call sends (receives: bytes posted), count x datatype size resolved"),
    ("request", "<i8", "the trace's request id the call starts or completes"),
    ("aux_start", "<i8", "index of the op's first aux value in the chunk's aux array"),
)
OP_DTYPE = np.dtype([(name, kind) for name, kind, _ in FIELDS])
assert OP_DTYPE.itemsize == 88    # every field naturally aligned: the C struct has no padding

#: Index of each field in an op's row tuple (:meth:`OpChunk.rows`).
(KIND, CALL, COMM, PEER, TAG, ROOT, OP, FLAG, AUX_LEN, GAP_WALL_S, GAP_CPU_S, CALL_S, START_S, NBYTES,
 REQUEST, AUX_START) = range(len(FIELDS))

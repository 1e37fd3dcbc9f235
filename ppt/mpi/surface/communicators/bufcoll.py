"""mpi4py's uppercase collectives: buffer arguments around the simulated MPI's own collectives.

Each call copies its blocks out of the send buffer (:mod:`ppt.mpi.surface.buffers.arguments`),
runs the collective of :mod:`ppt.mpi.surface.communicators.comm` on them (timed by the same
algorithms, counted under the MPI name of the call) and copies what arrives
into the receive buffer.  ``MPI.IN_PLACE`` is taken where MPI
allows it: the root's send buffer of Gather(v) and Reduce, the root's
receive buffer of Scatter(v), and the send buffer of Allgather(v),
Alltoall(v,w), Allreduce, Reduce_scatter(_block), Scan and Exscan.
Reductions apply the op element-wise in the datatype (:func:`ppt.mpi.collectives.ops.on_buffers`).

The nonblocking collectives (``Ibcast``, ``Iallreduce`` ...) start these calls'
schedules and return their requests (:mod:`ppt.mpi.surface.communicators.icoll`): the
messages go on while the rank computes; the wait fills the receive buffer.
``Ibarrier`` is its own (:mod:`ppt.mpi.surface.communicators.ibarrier`).  The persistent
collectives (``Barrier_init``, ``Bcast_init`` ...) start the nonblocking ones at each ``Start``
(:mod:`ppt.mpi.surface.communicators.persistent`).
"""
from __future__ import annotations

from ppt.mpi.surface.buffers.arguments import IN_PLACE, LOCAL, message, vector, wvector
from ppt.mpi.surface.core.calls import mpi_call
from ppt.mpi.surface.communicators.icoll import nonblocking
from ppt.mpi.surface.communicators.persistent import persistent_forms
from ppt.mpi.collectives.ops import SUM, as_op, on_buffers


#: Bytes of one count in the allgather of Reduce_scatter's receive counts.
INT_B = 4


def blocks_of(buf, size: int):
    """Blocks 0..size-1 of parsed message ``buf`` (copies) and their bytes."""
    return [buf.block(i) for i in range(size)], [buf.nbytes(i) for i in range(size)]


def _put_all(rank, buf, values, skip=None) -> None:
    for i, value in enumerate(values):
        if i != skip:
            buf.put(rank, i, value)


@mpi_call("MPI_Bcast")
def Bcast(self, buf, root=0):
    rank = self._rank
    msg = message(rank, buf, 1, "broadcast")
    got = self._bcast(msg.block(0) if self.rank == root else None, root, msg.nbytes(0), None)
    if self.rank != root:
        msg.put(rank, 0, got)


def _scatter(self, sendbuf, recvbuf, root, parse):
    rank = self._rank
    if self.rank == root:
        blocks, sizes = blocks_of(parse(rank, sendbuf, self.size, "send"), self.size)
    else:
        blocks = sizes = None
    got = self._scatter(blocks, root, sizes, None)
    if not (self.rank == root and recvbuf is IN_PLACE):
        message(rank, recvbuf, 1, "receive").put(rank, 0, got)


@mpi_call("MPI_Scatter")
def Scatter(self, sendbuf, recvbuf, root=0):
    _scatter(self, sendbuf, recvbuf, root, message)


@mpi_call("MPI_Scatterv")
def Scatterv(self, sendbuf, recvbuf, root=0):
    _scatter(self, sendbuf, recvbuf, root, vector)


def _gather(self, sendbuf, recvbuf, root, parse):
    rank, me = self._rank, self.rank
    into = parse(rank, recvbuf, self.size, "receive") if me == root else None
    in_place = me == root and sendbuf is IN_PLACE
    mine = into if in_place else message(rank, sendbuf, 1, "send")
    index = me if in_place else 0
    got = self._gather(mine.block(index), root, mine.nbytes(index), None)
    if me == root:
        _put_all(rank, into, got, me if in_place else None)


@mpi_call("MPI_Gather")
def Gather(self, sendbuf, recvbuf, root=0):
    _gather(self, sendbuf, recvbuf, root, message)


@mpi_call("MPI_Gatherv")
def Gatherv(self, sendbuf, recvbuf, root=0):
    _gather(self, sendbuf, recvbuf, root, vector)


def _allgather(self, sendbuf, recvbuf, parse, uniform: bool):
    rank, me = self._rank, self.rank
    into = parse(rank, recvbuf, self.size, "receive")
    in_place = sendbuf is IN_PLACE
    mine = into if in_place else message(rank, sendbuf, 1, "send")
    index = me if in_place else 0
    nbytes = mine.nbytes(index)
    got = self._allgather(mine.block(index), nbytes, None, nbytes if uniform else None)
    _put_all(rank, into, got, me if in_place else None)


@mpi_call("MPI_Allgather")
def Allgather(self, sendbuf, recvbuf):
    _allgather(self, sendbuf, recvbuf, message, True)


@mpi_call("MPI_Allgatherv")
def Allgatherv(self, sendbuf, recvbuf):
    _allgather(self, sendbuf, recvbuf, vector, False)


def _alltoall(self, sendbuf, recvbuf, parse, algorithm=None):
    rank = self._rank
    into = parse(rank, recvbuf, self.size, "receive")
    source = into if sendbuf is IN_PLACE else parse(rank, sendbuf, self.size, "send")
    blocks, sizes = blocks_of(source, self.size)
    _put_all(rank, into, self._alltoall(blocks, sizes, algorithm))


@mpi_call("MPI_Alltoall")
def Alltoall(self, sendbuf, recvbuf):
    _alltoall(self, sendbuf, recvbuf, message)


@mpi_call("MPI_Alltoallv")
def Alltoallv(self, sendbuf, recvbuf):
    _alltoall(self, sendbuf, recvbuf, vector, self._alltoallv_algorithm())


@mpi_call("MPI_Alltoallw")
def Alltoallw(self, sendbuf, recvbuf):
    """Per rank its own count, byte displacement and datatype (:func:`wvector`); timed as Alltoallv."""
    _alltoall(self, sendbuf, recvbuf, wvector, self._alltoallv_algorithm())


# -- reductions ------------------------------------------------------------------------------
def _contribution(rank, sendbuf, recvbuf):
    return message(rank, recvbuf if sendbuf is IN_PLACE else sendbuf, 1, "send")


@mpi_call("MPI_Reduce")
def Reduce(self, sendbuf, recvbuf, op=SUM, root=0):
    rank = self._rank
    mine = _contribution(rank, sendbuf, recvbuf)
    got = self._reduce(mine.block(0), on_buffers(as_op(op), mine.datatype), root, mine.nbytes(0), None)
    if self.rank == root:
        message(rank, recvbuf, 1, "receive").put(rank, 0, got)


def _reduction(self, sendbuf, recvbuf, op, kind):
    rank = self._rank
    mine = _contribution(rank, sendbuf, recvbuf)
    op = on_buffers(as_op(op), mine.datatype)
    got = self._allreduce(mine.block(0), op, mine.nbytes(0), None) if kind == "allreduce" else \
        self._scan(kind, mine.block(0), op, mine.nbytes(0), None)
    message(rank, recvbuf, 1, "receive").put(rank, 0, got)


@mpi_call("MPI_Allreduce")
def Allreduce(self, sendbuf, recvbuf, op=SUM):
    _reduction(self, sendbuf, recvbuf, op, "allreduce")


@mpi_call("MPI_Scan")
def Scan(self, sendbuf, recvbuf, op=SUM):
    _reduction(self, sendbuf, recvbuf, op, "scan")


@mpi_call("MPI_Exscan")
def Exscan(self, sendbuf, recvbuf, op=SUM):
    """Rank 0's receive buffer is left as it was (MPI leaves it undefined)."""
    _reduction(self, sendbuf, recvbuf, op, "exscan")


@mpi_call("MPI_Reduce_scatter_block")
def Reduce_scatter_block(self, sendbuf, recvbuf, op=SUM):
    rank = self._rank
    source = message(rank, recvbuf if sendbuf is IN_PLACE else sendbuf, self.size, "send")
    blocks, sizes = blocks_of(source, self.size)
    got = self._reduce_scatter(blocks, on_buffers(as_op(op), source.datatype), sizes, None)
    message(rank, recvbuf, 1, "receive").put(rank, 0, got)


@mpi_call("MPI_Reduce_scatter")
def Reduce_scatter(self, sendbuf, recvbuf, recvcounts=None, op=SUM):
    """``recvcounts`` None: each rank's receive buffer size, gathered from all ranks (as mpi4py does)."""
    rank = self._rank
    if recvcounts is None:
        if sendbuf is IN_PLACE:
            raise rank.error("Reduce_scatter with IN_PLACE needs recvcounts")
        recvcounts = self.allgather(message(rank, recvbuf, 1, "receive").counts[0], INT_B)
    source = vector(rank, recvbuf if sendbuf is IN_PLACE else sendbuf, self.size, "send", list(recvcounts))
    blocks, sizes = blocks_of(source, self.size)
    got = self._reduce_scatter(blocks, on_buffers(as_op(op), source.datatype), sizes, None)
    message(rank, recvbuf, 1, "receive").put(rank, 0, got)


def Reduce_local(self, inbuf, inoutbuf) -> None:
    """mpi4py's ``Op.Reduce_local``: ``inoutbuf = op(inbuf, inoutbuf)`` element-wise, on this rank only."""
    inout = message(LOCAL, inoutbuf, 1, "receive")
    got = on_buffers(self, inout.datatype)(message(LOCAL, inbuf, 1, "send").block(0), inout.block(0))
    inout.put(LOCAL, 0, got)


_BLOCKING = {"Bcast": Bcast, "Scatter": Scatter, "Scatterv": Scatterv, "Gather": Gather, "Gatherv": Gatherv,
             "Allgather": Allgather, "Allgatherv": Allgatherv, "Alltoall": Alltoall, "Alltoallv": Alltoallv,
             "Alltoallw": Alltoallw, "Reduce": Reduce, "Allreduce": Allreduce, "Scan": Scan, "Exscan": Exscan,
             "Reduce_scatter": Reduce_scatter, "Reduce_scatter_block": Reduce_scatter_block}

#: Comm's uppercase collectives, blocking and nonblocking.
COMM = {**_BLOCKING,
        **{f"I{name.lower()}": nonblocking(f"MPI_I{name.lower()}", fn) for name, fn in _BLOCKING.items()},
        **persistent_forms(["Barrier", *_BLOCKING])}

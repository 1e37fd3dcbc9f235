"""Neighbourhood collectives (MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v,w), their nonblocking forms)
on communicators with a topology: each rank sends to its out-neighbours (``outedges``) and receives one
block from each in-neighbour (``inedges``), in their order; a Cartesian communicator's neighbours are, per
dimension, the ranks one step down and one step up (PROC_NULL off a non-periodic edge: nothing is sent
there, and that block of the receive buffer is left as it was).

Timed as one step of point-to-point messages (:func:`ppt.mpi.collectives.algorithms.neighbor_exchange`):
every receive and send posted at once, then waited for.
"""
from __future__ import annotations

from ppt.mpi.collectives.algorithms import neighbor_exchange
from ppt.mpi.collectives.calls import Coll
from ppt.mpi.collectives.payload import size_of, sized_copy
from ppt.mpi.constants import CART
from ppt.mpi.surface.buffers.arguments import message, vector, wvector
from ppt.mpi.surface.core.calls import mpi_call
from ppt.mpi.surface.communicators.bufcoll import blocks_of
from ppt.mpi.surface.communicators.icoll import nonblocking
from ppt.mpi.surface.communicators.persistent import persistent_forms


def _exchange(comm, blocks: list, sizes: list) -> list:
    """Send ``blocks[j]`` (``sizes[j]`` bytes) to out-neighbour j (one block: the same to each); the block
    received from each in-neighbour (None from PROC_NULL).

    On a Cartesian communicator the block from the neighbour one step down is the one it sent one step up,
    and the other way round (MPI 4.0 8.6), which matters where both are one rank (a periodic dimension of
    1 or 2): the receives of each dimension are posted up first, to match the neighbour's sends in order."""
    sources, dests, k = comm.inedges, comm.outedges, len(blocks)
    send_slots = [0] * len(dests) if k == 1 else list(range(k))
    order = [i ^ 1 for i in range(len(sources))] if comm.topology == CART else None
    schedule = neighbor_exchange(sources, dests, send_slots, k, k + len(sources), order)
    values = Coll(comm).run(schedule, list(blocks) + [None] * len(sources), list(sizes) + [0] * len(sources))
    return values[k:]


def _put(comm, into, got) -> None:
    for i, (source, value) in enumerate(zip(comm.inedges, got)):
        if source >= 0:
            into.put(comm._rank, i, value)


def _own(values: list) -> list:
    return [None if value is None else sized_copy(value)[0] for value in values]


@mpi_call("MPI_Neighbor_allgather")
def neighbor_allgather(self, sendobj):
    """``sendobj`` to every out-neighbour; the list of the in-neighbours' objects (None from PROC_NULL)."""
    return _own(_exchange(self, [sized_copy(sendobj)[0]], [size_of(sendobj)]))


@mpi_call("MPI_Neighbor_alltoall")
def neighbor_alltoall(self, sendobj):
    """``sendobj[j]`` to out-neighbour j; the list of what each in-neighbour sent here."""
    blocks = list(sendobj)
    if len(blocks) != len(self.outedges):
        raise self._rank.error(f"give {len(self.outedges)} blocks (one per out-neighbour), got {len(blocks)}")
    return _own(_exchange(self, [sized_copy(b)[0] for b in blocks], [size_of(b) for b in blocks]))


def _allgather(self, sendbuf, recvbuf, parse):
    rank = self._rank
    mine = message(rank, sendbuf, 1, "send")
    into = parse(rank, recvbuf, len(self.inedges), "receive")
    _put(self, into, _exchange(self, [mine.block(0)], [mine.nbytes(0)]))


def _alltoall(self, sendbuf, recvbuf, parse):
    rank, n = self._rank, len(self.outedges)
    into = parse(rank, recvbuf, len(self.inedges), "receive")
    _put(self, into, _exchange(self, *blocks_of(parse(rank, sendbuf, n, "send"), n)))


@mpi_call("MPI_Neighbor_allgather")
def Neighbor_allgather(self, sendbuf, recvbuf):
    _allgather(self, sendbuf, recvbuf, message)


@mpi_call("MPI_Neighbor_allgatherv")
def Neighbor_allgatherv(self, sendbuf, recvbuf):
    _allgather(self, sendbuf, recvbuf, vector)


@mpi_call("MPI_Neighbor_alltoall")
def Neighbor_alltoall(self, sendbuf, recvbuf):
    _alltoall(self, sendbuf, recvbuf, message)


@mpi_call("MPI_Neighbor_alltoallv")
def Neighbor_alltoallv(self, sendbuf, recvbuf):
    _alltoall(self, sendbuf, recvbuf, vector)


@mpi_call("MPI_Neighbor_alltoallw")
def Neighbor_alltoallw(self, sendbuf, recvbuf):
    """Per neighbour its own count, byte displacement and datatype (:func:`wvector`)."""
    _alltoall(self, sendbuf, recvbuf, wvector)


_BLOCKING = {"Neighbor_allgather": Neighbor_allgather, "Neighbor_allgatherv": Neighbor_allgatherv,
             "Neighbor_alltoall": Neighbor_alltoall, "Neighbor_alltoallv": Neighbor_alltoallv,
             "Neighbor_alltoallw": Neighbor_alltoallw}

#: The neighbourhood collectives of a communicator with a topology, by mpi4py name.
COMM = {"neighbor_allgather": neighbor_allgather, "neighbor_alltoall": neighbor_alltoall, **_BLOCKING,
        **{"I" + name.lower(): nonblocking("MPI_I" + name.lower(), fn) for name, fn in _BLOCKING.items()},
        **persistent_forms(_BLOCKING)}

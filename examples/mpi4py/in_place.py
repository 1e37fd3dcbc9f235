"""MPI.IN_PLACE: collectives that reuse one buffer for input and output.

``Allreduce``, ``Reduce`` (root only), ``Gather`` and ``Gatherv`` (root
only), ``Scatter`` (root only), ``Allgather``, ``Allgatherv``, ``Alltoall``,
``Scan`` and ``Reduce_scatter_block``, each with ``MPI.IN_PLACE`` where MPI
allows it: the rank's own data is read from, and the result written to, the
same array.

Run it::

    mpiexec -n 4 python examples/mpi4py/in_place.py
    ppt exec examples/mpi4py/in_place.py -n 4 --system edison
"""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

buf = np.array([rank, 2 * rank, 1], dtype="i")
comm.Allreduce(MPI.IN_PLACE, buf, op=MPI.SUM)
print(f"Allreduce in place: {buf.tolist()}")

buf = np.array([rank + 1.0, -rank])
if rank == 0:
    comm.Reduce(MPI.IN_PLACE, buf, op=MPI.MAX, root=0)
    print(f"Reduce in place at root: {buf.tolist()}")
else:
    comm.Reduce(buf, None, op=MPI.MAX, root=0)
    print(f"Reduce sent {buf.tolist()}")

# Gather: the root's own block already sits in its slot of the receive buffer.
if rank == 0:
    table = np.zeros((size, 2), dtype="i")
    table[0] = [0, 0]
    comm.Gather(MPI.IN_PLACE, table, root=0)
    print(f"Gather in place: {table.tolist()}")
else:
    comm.Gather(np.array([rank, rank * rank], dtype="i"), None, root=0)

# Gatherv: rank i contributes i + 1 items; the root's block is already in place.
counts = [i + 1 for i in range(size)]
displs = [sum(counts[:i]) for i in range(size)]
if rank == 0:
    everything = np.full(sum(counts), -1, dtype="i")
    everything[0] = 0
    comm.Gatherv(MPI.IN_PLACE, [everything, counts, displs, MPI.INT], root=0)
    print(f"Gatherv in place: {everything.tolist()}")
else:
    comm.Gatherv(np.full(rank + 1, rank, dtype="i"), None, root=0)

# Scatter: the root keeps its block where it is.
if rank == 0:
    deck = np.arange(3 * size, dtype="d")
    comm.Scatter(deck, MPI.IN_PLACE, root=0)
    print(f"Scatter in place, root keeps {deck[:3].tolist()}")
else:
    mine = np.zeros(3)
    comm.Scatter(None, mine, root=0)
    print(f"Scatter got {mine.tolist()}")

# Allgather: each rank writes its slot, then fills in the others.
row = np.zeros(size, dtype="i")
row[rank] = rank * 10
comm.Allgather(MPI.IN_PLACE, row)
print(f"Allgather in place: {row.tolist()}")

# Allgatherv in place.
everything = np.zeros(sum(counts), dtype="i")
everything[displs[rank]:displs[rank] + counts[rank]] = rank
comm.Allgatherv(MPI.IN_PLACE, [everything, counts, displs, MPI.INT])
print(f"Allgatherv in place: {everything.tolist()}")

# Alltoall in place: block j goes to rank j and is replaced by rank j's block for me.
swap = np.array([10 * rank + j for j in range(size)], dtype="i")
comm.Alltoall(MPI.IN_PLACE, swap)
print(f"Alltoall in place: {swap.tolist()}")

prefix = np.array([rank + 1], dtype="i")
comm.Scan(MPI.IN_PLACE, prefix, op=MPI.SUM)
print(f"Scan in place: {prefix.tolist()}")

# Reduce_scatter_block in place: the input is the whole vector, rank i's result lands at the front.
vec = np.arange(size, dtype="i") + rank
comm.Reduce_scatter_block(MPI.IN_PLACE, vec, op=MPI.SUM)
print(f"Reduce_scatter_block in place: {vec[:1].tolist()}")

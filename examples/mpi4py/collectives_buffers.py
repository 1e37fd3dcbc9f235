"""Every collective in mpi4py's uppercase style: numpy buffers, no pickling.

``Bcast``, ``Scatter``, ``Gather``, ``Allgather``, ``Alltoall``, ``Reduce``,
``Allreduce``, ``Reduce_scatter_block``, ``Reduce_scatter`` (with per-rank
counts), ``Scan``, ``Exscan`` and ``Barrier``.  Buffers are given as plain
numpy arrays and as ``[buf, MPI.DOUBLE]`` / ``[buf, count, MPI.INT]``
lists.  Integer data keeps every result exact.

Run it::

    mpiexec -n 4 python examples/mpi4py/collectives_buffers.py
    ppt exec examples/mpi4py/collectives_buffers.py -n 4 --system edison
"""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

# Bcast: root fills, everyone receives into the same buffer.
params = np.arange(4, dtype="d") if rank == 0 else np.zeros(4)
comm.Bcast([params, MPI.DOUBLE], root=0)
print(f"Bcast: {params.tolist()}")

# Scatter: two ints per rank from root 0.
full = np.arange(2 * size, dtype="i") * 10 if rank == 0 else None
mine = np.empty(2, dtype="i")
comm.Scatter(full, mine, root=0)
print(f"Scatter: {mine.tolist()}")

# Gather to the last rank, as [buf, count, datatype].
last = size - 1
gathered = np.empty(3 * size, dtype="i") if rank == last else None
comm.Gather([np.full(3, rank, dtype="i"), 3, MPI.INT],
            [gathered, 3, MPI.INT] if rank == last else None, root=last)
print(f"Gather: {gathered.tolist() if rank == last else None}")

# Allgather: every rank gets everyone's pair.
pairs = np.empty((size, 2), dtype="i")
comm.Allgather(np.array([rank, -rank], dtype="i"), pairs)
print(f"Allgather: {pairs.tolist()}")

# Alltoall: block j of my send buffer goes to rank j.
send = np.array([100 * rank + j for j in range(size)], dtype="i")
recv = np.empty(size, dtype="i")
comm.Alltoall(send, recv)
print(f"Alltoall: {recv.tolist()}")

# Reduce and Allreduce with predefined operations.
vec = np.array([rank, rank * rank, 1], dtype="i")
total = np.zeros(3, dtype="i")
comm.Reduce(vec, total, op=MPI.SUM, root=0)
print(f"Reduce SUM at root: {total.tolist() if rank == 0 else 'not root'}")
top, low = np.zeros(3, dtype="i"), np.zeros(3, dtype="i")
comm.Allreduce([vec, MPI.INT], [top, MPI.INT], op=MPI.MAX)
comm.Allreduce(vec, low, op=MPI.MIN)
print(f"Allreduce MAX {top.tolist()} MIN {low.tolist()}")

# Reduce_scatter_block: sum of all vectors, rank i keeps element i.
contrib = np.arange(size, dtype="i") + rank
block = np.zeros(1, dtype="i")
comm.Reduce_scatter_block(contrib, block, op=MPI.SUM)
print(f"Reduce_scatter_block: {block.tolist()}")

# Reduce_scatter with counts: rank i keeps i+1 elements of the summed vector.
counts = [i + 1 for i in range(size)]
contrib = np.ones(sum(counts), dtype="i") * (rank + 1)
part = np.zeros(counts[rank], dtype="i")
comm.Reduce_scatter(contrib, part, recvcounts=counts, op=MPI.SUM)
print(f"Reduce_scatter: {part.tolist()}")

# Scan (inclusive) and Exscan (exclusive) prefix sums.
inc, exc = np.zeros(2, dtype="i"), np.zeros(2, dtype="i")
comm.Scan(np.array([rank + 1, 1], dtype="i"), inc, op=MPI.SUM)
comm.Exscan(np.array([rank + 1, 1], dtype="i"), exc, op=MPI.SUM)
print(f"Scan: {inc.tolist()} Exscan: {exc.tolist() if rank > 0 else 'undefined on rank 0'}")

comm.Barrier()
print("Barrier passed")

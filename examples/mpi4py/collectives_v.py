"""The v-variants: collectives where every rank contributes or receives a different amount.

``Scatterv``, ``Gatherv``, ``Allgatherv`` and ``Alltoallv`` with
mpi4py's vector buffer specifications ``[buf, counts, displs, datatype]``
(explicit displacements, here leaving gaps) and ``[buf, counts, datatype]``
(displacements packed from the counts).  Rank ``i`` owns ``i + 1`` items.

Run it::

    mpiexec -n 4 python examples/mpi4py/collectives_v.py
    ppt exec examples/mpi4py/collectives_v.py -n 4 --system edison
"""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

counts = [i + 1 for i in range(size)]
displs = [sum(counts[:i]) for i in range(size)]
total = sum(counts)

# Scatterv: root deals out 1, 2, 3, ... doubles.
send = np.arange(total, dtype="d") if rank == 0 else None
mine = np.zeros(counts[rank])
comm.Scatterv([send, counts, displs, MPI.DOUBLE] if rank == 0 else None, mine, root=0)
print(f"Scatterv: {mine.tolist()}")

# Gatherv back to the last rank, into a buffer with a gap of 2 after each block.
last = size - 1
gapped = [d + 2 * i for i, d in enumerate(displs)]
back = np.full(total + 2 * size, -1.0) if rank == last else None
comm.Gatherv([mine * 2, MPI.DOUBLE], [back, counts, gapped, MPI.DOUBLE] if rank == last else None,
             root=last)
print(f"Gatherv: {back.tolist() if rank == last else None}")

# Allgatherv of ints, with packed displacements.
everything = np.zeros(total, dtype="i")
comm.Allgatherv(np.full(counts[rank], rank, dtype="i"), [everything, counts, MPI.INT])
print(f"Allgatherv: {everything.tolist()}")

# Alltoallv: rank r sends j + 1 copies of r to rank j; receives r + 1 items from each.
scounts = [j + 1 for j in range(size)]
sdispls = [sum(scounts[:j]) for j in range(size)]
sendbuf = np.concatenate([np.full(c, 10 * rank + j, dtype="i") for j, c in enumerate(scounts)])
rcounts = [rank + 1] * size
rdispls = [j * (rank + 1) for j in range(size)]
recvbuf = np.zeros(sum(rcounts), dtype="i")
comm.Alltoallv([sendbuf, scounts, sdispls, MPI.INT], [recvbuf, rcounts, rdispls, MPI.INT])
print(f"Alltoallv: {recvbuf.tolist()}")

"""Nonblocking collectives on numpy buffers, several in flight at once, completed by Wait, Waitall and
Test loops; only rank 0 prints, so its output is compared whole."""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size
x = np.arange(3.0) + 10 * rank
total, top = np.zeros(3), np.zeros(3)
bcast = x.copy() if rank == 1 else np.zeros(3)
gathered = np.zeros(3 * size)
swapped = np.zeros(size)
requests = [comm.Iallreduce(x, total), comm.Ibcast(bcast, root=1), comm.Igather(x, gathered, root=0),
            comm.Ialltoall(np.arange(size, dtype="d") + 100 * rank, swapped), comm.Ireduce(x, top, MPI.MAX, 0)]
MPI.Request.Waitall(requests)
scanned, exscanned, block = np.zeros(3), np.full(3, -1.0), np.zeros(1)
comm.Iscan(x, scanned).Wait()
comm.Iexscan(x, exscanned).Wait()
request = comm.Ireduce_scatter_block(np.arange(float(size)) + rank, block)
while not request.Test():
    pass
counts = [1 + r for r in range(size)]
varied = np.zeros(sum(counts))
comm.Iallgatherv(np.full(rank + 1, float(rank)), [varied, counts]).Wait()
part = np.zeros(rank + 1)
comm.Iscatterv([np.arange(float(sum(counts))), counts] if rank == 0 else None, part, root=0).Wait()
parts = comm.gather(part.tolist(), root=0)
blocks = comm.gather(block.tolist(), root=0)
if rank == 0:
    print("Iallreduce", total.tolist(), "Ibcast", bcast.tolist(), "Igather", gathered.tolist())
    print("Ialltoall", swapped.tolist(), "Ireduce", top.tolist())
    print("Iscan", scanned.tolist(), "Iexscan", exscanned.tolist(), "Ireduce_scatter_block", blocks)
    print("Iallgatherv", varied.tolist(), "Iscatterv", parts)

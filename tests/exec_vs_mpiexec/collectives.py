"""Collectives on objects and on numpy buffers; only rank 0 prints, so its output is compared whole."""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size
config = comm.bcast({"n": 3} if rank == 0 else None, root=0)
part = comm.scatter([[i, i * i] for i in range(size)] if rank == 0 else None, root=0)
gathered = comm.gather((rank, part), root=0)
total = comm.allreduce(rank + 1, op=MPI.SUM)
everyone = comm.allgather(rank * 10)
swapped = comm.alltoall([f"{rank}->{j}" for j in range(size)])
summed = np.zeros(3)
comm.Allreduce(np.arange(3.0) * (rank + 1), summed, op=MPI.SUM)
scanned = comm.scan(rank + 1)
largest = comm.reduce(rank, op=MPI.MAX, root=0)
rows = comm.gather(swapped, root=0)
scans = comm.gather(scanned, root=0)
if rank == 0:
    print("bcast", config)
    print("gather", gathered)
    print("allreduce", total, "allgather", everyone, "reduce", largest)
    print("alltoall", rows)
    print("Allreduce", summed.tolist(), "scan", scans)

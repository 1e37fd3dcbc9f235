"""OSU-style Alltoallv: every rank sends a block of the same size to every rank with MPI_Alltoallv, at
every size from 1 B to 1 MiB per block; rank 0 prints the average latency of the call in microseconds.

    mpiexec -n N python osu_alltoallv.py [ITERATIONS]   (default 100 per size up to 8 KiB, a tenth above)
"""
import sys

import numpy as np
from mpi4py import MPI

from osu_sizes import iterations, sizes

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
base = int(sys.argv[1]) if len(sys.argv) > 1 else 100
if rank == 0:
    print("# OSU-style MPI Alltoallv latency test")
    print(f"{'# Size':<10}{'Avg Latency (us)':>20}")
for nbytes in sizes(smallest=1, largest=1 << 20):
    counts = [nbytes] * size
    displacements = [nbytes * k for k in range(size)]
    send = np.full(nbytes * size, rank, dtype=np.uint8)
    recv = np.empty(nbytes * size, dtype=np.uint8)
    count, skip = iterations(base, nbytes)
    total = 0.0
    for i in range(count + skip):
        comm.Barrier()
        start = MPI.Wtime()
        comm.Alltoallv([send, counts, displacements, MPI.BYTE], [recv, counts, displacements, MPI.BYTE])
        if i >= skip:
            total += MPI.Wtime() - start
    if recv[nbytes * (size - 1)] != size - 1:
        raise SystemExit(f"rank {rank}: alltoallv delivered the wrong block")
    mean = comm.reduce(total / count, op=MPI.SUM, root=0)
    if rank == 0:
        print(f"{nbytes:<10}{mean / size * 1e6:>20.2f}")

"""Ping-pong between pairs of ranks (0-1, 2-3, ...) over a range of sizes, many round trips each.

    mpiexec -n 2 python pingpong.py [ROUND_TRIPS]     (default 2000 per size up to 64 KiB, fewer above)
"""
import sys

import numpy as np
from mpi4py import MPI

TRIPS = int(sys.argv[1]) if len(sys.argv) > 1 else 2000

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
peer = rank ^ 1
if peer >= size:
    peer = MPI.PROC_NULL
for nbytes in (8, 512, 4096, 32768, 262144, 1048576):
    buf = np.zeros(nbytes, dtype=np.uint8)
    trips = TRIPS if nbytes <= 65536 else max(10, TRIPS * 65536 // nbytes // 4)
    for _ in range(trips):
        if rank % 2 == 0:
            comm.Send(buf, dest=peer, tag=3)
            comm.Recv(buf, source=peer, tag=3)
        else:
            comm.Recv(buf, source=peer, tag=3)
            comm.Send(buf, dest=peer, tag=3)
comm.Barrier()
if rank == 0:
    print(f"pingpong {TRIPS} round trips per size on {size} ranks")

"""OSU-style bandwidth: rank 0 sends a window of 64 nonblocking messages to rank 1, which answers each
window with a 4-byte acknowledgement, at every size from 1 B to 4 MiB; rank 0 prints MB/s per size
(1 MB = 10**6 bytes, as the OSU suite counts).

    mpiexec -n 2 python osu_bw.py [ITERATIONS]   (default 100 windows per size up to 8 KiB, a tenth above)
"""
import sys

import numpy as np
from mpi4py import MPI

from osu_sizes import iterations, sizes

WINDOW = 64
comm = MPI.COMM_WORLD
rank = comm.Get_rank()
if comm.Get_size() != 2:
    raise SystemExit("osu_bw needs exactly 2 ranks")
peer = 1 - rank
base = int(sys.argv[1]) if len(sys.argv) > 1 else 100
ack = np.zeros(4, dtype=np.uint8)
if rank == 0:
    print("# OSU-style MPI bandwidth test")
    print(f"{'# Size':<10}{'Bandwidth (MB/s)':>20}")
for nbytes in sizes(smallest=1):
    buf = np.zeros(nbytes, dtype=np.uint8)
    count, skip = iterations(base, nbytes)
    comm.Barrier()
    for i in range(count + skip):
        if i == skip:
            start = MPI.Wtime()
        if rank == 0:
            MPI.Request.Waitall([comm.Isend([buf, MPI.BYTE], dest=peer, tag=2) for _ in range(WINDOW)])
            comm.Recv([ack, MPI.BYTE], source=peer, tag=3)
        else:
            MPI.Request.Waitall([comm.Irecv([buf, MPI.BYTE], source=peer, tag=2) for _ in range(WINDOW)])
            comm.Send([ack, MPI.BYTE], dest=peer, tag=3)
    if rank == 0:
        print(f"{nbytes:<10}{nbytes * WINDOW * count / (MPI.Wtime() - start) / 1e6:>20.2f}")

"""OSU-style latency: ping-pong between ranks 0 and 1 at every size from 0 B to 4 MiB (powers of two),
as the OSU micro-benchmarks sweep them; rank 0 prints the one-way latency per size in microseconds.

    mpiexec -n 2 python osu_latency.py [ITERATIONS]   (default 1000 per size up to 8 KiB, a tenth above;
                                                      a tenth of them again as an untimed warm-up)
"""
import sys

import numpy as np
from mpi4py import MPI

from osu_sizes import iterations, sizes

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
if comm.Get_size() != 2:
    raise SystemExit("osu_latency needs exactly 2 ranks")
peer = 1 - rank
base = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
if rank == 0:
    print("# OSU-style MPI latency test (one way)")
    print(f"{'# Size':<10}{'Latency (us)':>20}")
for nbytes in sizes():
    buf = np.zeros(nbytes, dtype=np.uint8)
    count, skip = iterations(base, nbytes)
    comm.Barrier()
    for i in range(count + skip):
        if i == skip:
            start = MPI.Wtime()
        if rank == 0:
            comm.Send([buf, MPI.BYTE], dest=peer, tag=1)
            comm.Recv([buf, MPI.BYTE], source=peer, tag=1)
        else:
            comm.Recv([buf, MPI.BYTE], source=peer, tag=1)
            comm.Send([buf, MPI.BYTE], dest=peer, tag=1)
    if rank == 0:
        print(f"{nbytes:<10}{(MPI.Wtime() - start) * 1e6 / (2 * count):>20.2f}")

"""Distributed matrix transpose with Alltoall (the communication of a parallel FFT), each step
followed by a local numpy transform of the rows.

    mpiexec -n 2 python transpose.py [N] [STEPS]     (N x N doubles in total, default 1024, 30 steps)
"""
import sys

import numpy as np
from mpi4py import MPI

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 30

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
rows = N // size
a = np.random.default_rng(rank).random((rows, N))
for step in range(STEPS):
    a = np.abs(np.fft.rfft(a, axis=1))[:, :N // 2].repeat(2, axis=1)   # a row transform
    send = np.ascontiguousarray(a.reshape(rows, size, rows).transpose(1, 0, 2))
    recv = np.empty_like(send)
    comm.Alltoall(send, recv)
    a = recv.transpose(0, 2, 1).reshape(rows, N) / N                    # local blocks transposed
total = comm.reduce(float(a.sum()), op=MPI.SUM, root=0)
if rank == 0:
    print(f"transpose {N}x{N}, {STEPS} steps on {size} ranks: {total:.6e}")

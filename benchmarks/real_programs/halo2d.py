"""Halo exchange: a 2D grid in row strips, a 5-point stencil step and a ghost-row Sendrecv with each neighbour.

    mpiexec -n 2 python halo2d.py [N] [STEPS]      (N x N grid in total, default 1024 x 1024, 150 steps)
"""
import sys

import numpy as np
from mpi4py import MPI

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 150

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
rows = N // size + (1 if rank < N % size else 0)
up = rank - 1 if rank > 0 else MPI.PROC_NULL
down = rank + 1 if rank < size - 1 else MPI.PROC_NULL
u = np.zeros((rows + 2, N))
u[1:-1, :] = rank + 1.0
new = np.empty_like(u)
for step in range(STEPS):
    comm.Sendrecv(u[1], dest=up, sendtag=0, recvbuf=u[-1], source=down, recvtag=0)
    comm.Sendrecv(u[-2], dest=down, sendtag=1, recvbuf=u[0], source=up, recvtag=1)
    new[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    u, new = new, u
total = comm.reduce(float(u[1:-1].sum()), op=MPI.SUM, root=0)
if rank == 0:
    print(f"halo2d {N}x{N}, {STEPS} steps on {size} ranks: sum {total:.6e}")

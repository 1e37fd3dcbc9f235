"""Jacobi solver for Laplace's equation on a square, row strips, ghost rows by Isend/Irecv, and the
residual's norm by Allreduce every few sweeps (until a fixed number of sweeps, so the work is fixed).

    mpiexec -n 2 python jacobi.py [N] [SWEEPS] [CHECK_EVERY]     (default 768, 200, 5)
"""
import sys

import numpy as np
from mpi4py import MPI

N = int(sys.argv[1]) if len(sys.argv) > 1 else 768
SWEEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 200
CHECK = int(sys.argv[3]) if len(sys.argv) > 3 else 5

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
rows = N // size + (1 if rank < N % size else 0)
up = rank - 1 if rank > 0 else MPI.PROC_NULL
down = rank + 1 if rank < size - 1 else MPI.PROC_NULL
u = np.zeros((rows + 2, N + 2))
if rank == 0:
    u[0, :] = 1.0                   # hot top edge
new = u.copy()
residual = np.zeros(1)
for sweep in range(1, SWEEPS + 1):
    reqs = [comm.Irecv(u[0], source=up, tag=1), comm.Irecv(u[-1], source=down, tag=0),
            comm.Isend(u[1], dest=up, tag=0), comm.Isend(u[-2], dest=down, tag=1)]
    MPI.Request.Waitall(reqs)
    new[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    if sweep % CHECK == 0:
        local = np.array([float(np.square(new[1:-1, 1:-1] - u[1:-1, 1:-1]).sum())])
        comm.Allreduce(local, residual, op=MPI.SUM)
    u, new = new, u
if rank == 0:
    print(f"jacobi {N}x{N}, {SWEEPS} sweeps on {size} ranks: residual {residual[0] ** 0.5:.3e}")

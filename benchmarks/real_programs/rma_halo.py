"""Halo exchange by one-sided communication: a 2D grid in row strips, each rank Puts its edge rows into its
neighbours' ghost rows of a window between two Fences, then a 5-point stencil step.

    mpiexec -n 2 python rma_halo.py [N] [STEPS]      (N x N grid in total, default 1024 x 1024, 150 steps)
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
ghosts = np.zeros((2, N))                  # the window: row 0 from the rank above, row 1 from the rank below
win = MPI.Win.Create(ghosts, disp_unit=ghosts.itemsize, comm=comm)
u = np.zeros((rows + 2, N))
u[1:-1, :] = rank + 1.0
new = np.empty_like(u)
for step in range(STEPS):
    win.Fence()
    if up != MPI.PROC_NULL:
        win.Put(u[1], up, target=(N, N, MPI.DOUBLE))            # my top row: the upper rank's row from below
    if down != MPI.PROC_NULL:
        win.Put(u[-2], down, target=(0, N, MPI.DOUBLE))         # my bottom row: the lower rank's row from above
    win.Fence()
    u[0], u[-1] = ghosts[0], ghosts[1]
    new[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    u, new = new, u
win.Free()
total = comm.reduce(float(u[1:-1].sum()), op=MPI.SUM, root=0)
if rank == 0:
    print(f"rma_halo {N}x{N}, {STEPS} steps on {size} ranks: sum {total:.6e}")

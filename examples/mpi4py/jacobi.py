"""Jacobi solver for -u'' = f on (0, 1), u(0) = u(1) = 0, iterating until an Allreduce'd residual is small.

The 16 interior grid points are split in blocks across the ranks.  Each
iteration exchanges one ghost value with each neighbour (``Sendrecv`` with
``[buf, 1, MPI.DOUBLE]``, ``MPI.PROC_NULL`` past the boundary), does a
Jacobi sweep, and every 10 iterations computes the residual's max-norm with
``Allreduce(op=MPI.MAX)``: all ranks agree when to stop, and a max (unlike a
sum) does not depend on the order the MPI library combines values in, so
the printed iteration count is the same everywhere.  f is chosen so the
exact solution is u = sin(pi x); the error printed is the discretisation
error plus what the tolerance leaves.

Run it::

    mpiexec -n 4 python examples/mpi4py/jacobi.py
    ppt exec examples/mpi4py/jacobi.py -n 4 --system edison
"""
import numpy as np
from mpi4py import MPI

POINTS, TOL, MAX_ITER = 16, 1e-2, 5000

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
base, extra = divmod(POINTS, size)
count = base + (1 if rank < extra else 0)
start = rank * base + min(rank, extra)
left = rank - 1 if rank > 0 else MPI.PROC_NULL
right = rank + 1 if rank < size - 1 else MPI.PROC_NULL

h = 1.0 / (POINTS + 1)
x = (np.arange(start, start + count) + 1) * h
f = np.pi ** 2 * np.sin(np.pi * x)
u = np.zeros(count + 2)              # ghosts u[0], u[-1] stay 0 at the domain's ends


def exchange(u):
    comm.Sendrecv([u[1:2], 1, MPI.DOUBLE], dest=left, sendtag=0,
                  recvbuf=[u[-1:], 1, MPI.DOUBLE], source=right, recvtag=0)
    comm.Sendrecv([u[-2:-1], 1, MPI.DOUBLE], dest=right, sendtag=1,
                  recvbuf=[u[0:1], 1, MPI.DOUBLE], source=left, recvtag=1)


residual = np.array([np.inf])
iteration = 0
while iteration < MAX_ITER:
    exchange(u)
    u[1:-1] = 0.5 * (u[:-2] + u[2:] + h * h * f)
    iteration += 1
    if iteration % 10 == 0:
        exchange(u)
        local = np.abs((2.0 * u[1:-1] - u[:-2] - u[2:]) / (h * h) - f).max()
        comm.Allreduce(np.array([local]), residual, op=MPI.MAX)
        if residual[0] < TOL:
            break

error = comm.allreduce(np.abs(u[1:-1] - np.sin(np.pi * x)).max(), op=MPI.MAX)
print(f"points {start}..{start + count - 1}: converged after {iteration} iterations")
if rank == 0:
    print(f"residual {residual[0]:.3e} < {TOL:g}, max error vs sin(pi x) {error:.6e}")

"""1-D halo exchange: explicit heat diffusion on a rod split across the ranks.

The rod has 60 cells with the middle ones hot; rank ``r`` owns a contiguous
block (blocks differ by at most one cell) plus one ghost cell at each end.
Every step exchanges ghosts with ``Sendrecv``: left and right neighbours, and
``MPI.PROC_NULL`` beyond the ends of the rod, so the edge ranks need no
special case.  After 200 steps the ranks print their block's heat and
``Allreduce`` gives the total, which the rod's insulated ends conserve.

Run it::

    mpiexec -n 4 python examples/mpi4py/halo_1d.py
    ppt exec examples/mpi4py/halo_1d.py -n 4 --system edison
"""
import numpy as np
from mpi4py import MPI

CELLS, STEPS, ALPHA = 60, 200, 0.25

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
base, extra = divmod(CELLS, size)
count = base + (1 if rank < extra else 0)
start = rank * base + min(rank, extra)
left = rank - 1 if rank > 0 else MPI.PROC_NULL
right = rank + 1 if rank < size - 1 else MPI.PROC_NULL

u = np.zeros(count + 2)                      # u[0] and u[-1] are ghosts
cells = np.arange(start, start + count)
u[1:-1] = np.where(abs(cells - CELLS // 2) < 5, 100.0, 0.0)
print(f"cells {start}..{start + count - 1}, initial heat {u[1:-1].sum():.1f}")

for step in range(STEPS):
    # Insulated ends: the ghost mirrors the edge cell where there is no neighbour.
    u[0], u[-1] = u[1], u[-2]
    comm.Sendrecv([u[1:2], MPI.DOUBLE], dest=left, sendtag=0,
                  recvbuf=[u[-1:], MPI.DOUBLE], source=right, recvtag=0)
    comm.Sendrecv([u[-2:-1], MPI.DOUBLE], dest=right, sendtag=1,
                  recvbuf=[u[0:1], MPI.DOUBLE], source=left, recvtag=1)
    u[1:-1] = u[1:-1] + ALPHA * (u[:-2] - 2.0 * u[1:-1] + u[2:])

local = u[1:-1].sum()
total = comm.allreduce(local, op=MPI.SUM)
print(f"after {STEPS} steps: block heat {local:.6f}, peak {u[1:-1].max():.6f}")
print(f"total heat {total:.6f} (conserved: {abs(total - 900.0) < 1e-9})")

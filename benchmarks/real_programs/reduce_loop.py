"""A reduction loop: every step a little vector arithmetic, then an Allreduce of a vector (a dot
product and a norm, as a Krylov solver does), with a larger Allreduce every tenth step.

    mpiexec -n 2 python reduce_loop.py [STEPS] [LOCAL_N]     (default 1500 steps, 20,000 doubles per rank)
"""
import sys

import numpy as np
from mpi4py import MPI

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 1500
LOCAL = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
x = np.full(LOCAL, 1.0 / (rank + 1))
y = np.linspace(0.0, 1.0, LOCAL)
pair, both = np.zeros(2), np.zeros(2)
block, blocks = np.zeros(4096), np.zeros(4096)
for step in range(STEPS):
    y = 0.999 * y + 0.001 * x
    pair[0], pair[1] = x @ y, y @ y
    comm.Allreduce(pair, both, op=MPI.SUM)
    x += (both[0] / both[1]) * 1e-6
    if step % 10 == 0:
        block[:] = y[:4096]
        comm.Allreduce(block, blocks, op=MPI.SUM)
if rank == 0:
    print(f"reduce_loop {STEPS} steps on {size} ranks: {both[0]:.6e} {blocks[-1]:.6e}")

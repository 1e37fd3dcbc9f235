"""An mpi4py program with an allreduce in every step: a conjugate-gradient-like loop.

Each step does some local numpy work on a block of a vector, then sums a dot
product over all ranks.  Runs unmodified under ``mpiexec -n N python
allreduce_steps.py [STEPS] [N_LOCAL]`` and under ``ppt exec``.
"""
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
n_local = int(sys.argv[2]) if len(sys.argv) > 2 else 1000

x = np.full(n_local, 1.0 / (comm.rank + 1))
residual = np.zeros(1)
for step in range(steps):
    x = 0.5 * (x + 1.0 / (1.0 + x))          # local work
    comm.Allreduce(np.array([x @ x]), residual, op=MPI.SUM)
if comm.rank == 0:
    print(f"{steps} steps on {comm.size} ranks: residual {residual[0]:.12g}")

"""A nonblocking reduction overlapped with computation: every step starts an Iallreduce of a vector, does
the step's vector arithmetic meanwhile, and waits before it uses the sum (a pipelined Krylov solver's
pattern).

    mpiexec -n 2 python overlap_allreduce.py [STEPS] [LOCAL_N] [REDUCED_N]
        (default 800 steps, 40,000 doubles per rank, 8,192 doubles reduced)
"""
import sys

import numpy as np
from mpi4py import MPI

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 800
LOCAL = int(sys.argv[2]) if len(sys.argv) > 2 else 40_000
REDUCED = int(sys.argv[3]) if len(sys.argv) > 3 else 8192

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
x = np.full(LOCAL, 1.0 / (rank + 1))
y = np.linspace(0.0, 1.0, LOCAL)
part, total = np.zeros(REDUCED), np.zeros(REDUCED)
for step in range(STEPS):
    part[:] = y[:REDUCED]
    request = comm.Iallreduce(part, total, op=MPI.SUM)
    y = 0.999 * y + 0.001 * np.sqrt(x * x + y * y)          # the step's work, while the sum travels
    request.Wait()
    x += total[step % REDUCED] * 1e-9
if rank == 0:
    print(f"overlap_allreduce {STEPS} steps on {size} ranks: {x[0]:.6e} {total[-1]:.6e}")

"""Compute pi by the midpoint rule on 4/(1+x^2): the classic first MPI program.

Rank 0 reads the number of intervals from the command line (default
1,000,000) and broadcasts it with ``Bcast`` of a numpy int; every rank sums
its strided share of the intervals; ``Reduce`` (buffers) and ``allreduce``
(objects) add the partial sums.  The sums are printed to 10 decimals, so the
order in which an MPI library adds the partial sums cannot show.

Run it::

    mpiexec -n 4 python examples/mpi4py/compute_pi.py 200000
    ppt exec examples/mpi4py/compute_pi.py 200000 -n 4 --system edison
"""
import math
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

n = np.zeros(1, dtype="i8")
if rank == 0:
    n[0] = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
comm.Bcast([n, MPI.INT64_T], root=0)
intervals = int(n[0])

h = 1.0 / intervals
x = h * (np.arange(rank, intervals, size, dtype="d") + 0.5)
mine = np.array([h * np.sum(4.0 / (1.0 + x * x))])
print(f"{intervals} intervals, {x.size} of them here")

pi = np.zeros(1)
comm.Reduce([mine, MPI.DOUBLE], [pi, MPI.DOUBLE], op=MPI.SUM, root=0)
if rank == 0:
    print(f"pi is approximately {pi[0]:.10f}, error {abs(pi[0] - math.pi):.1e}")

everyone = comm.allreduce(float(mine[0]), op=MPI.SUM)
print(f"allreduce agrees: {abs(everyone - math.pi) < 1e-10}")

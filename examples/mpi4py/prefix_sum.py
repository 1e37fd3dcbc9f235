"""Parallel prefix sum: each rank's offset into a global array, from Scan and Exscan.

Rank ``r`` holds ``r + 2`` values.  To number the values globally, a rank
needs the count held by all lower ranks: ``Exscan`` (exclusive scan) of the
counts gives the offset, ``Scan`` (inclusive) the end.  The same is done
for the running sum of the values: local ``numpy.cumsum`` plus the
``Exscan`` of the lower ranks' totals gives the global prefix sums, checked
against ``scan``/``exscan`` of Python objects.  ``Exscan`` leaves rank 0's
result undefined (mpi4py's lowercase ``exscan`` returns None there), so rank
0 uses 0.

Run it::

    mpiexec -n 4 python examples/mpi4py/prefix_sum.py
    ppt exec examples/mpi4py/prefix_sum.py -n 4 --system edison
"""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

values = np.arange(1, rank + 3, dtype="i8") * (rank + 1)

count = np.array([values.size], dtype="i8")
offset, end = np.zeros(1, dtype="i8"), np.zeros(1, dtype="i8")
comm.Exscan(count, offset, op=MPI.SUM)
comm.Scan(count, end, op=MPI.SUM)
if rank == 0:
    offset[0] = 0
print(f"{values.size} values {values.tolist()} at global positions {offset[0]}..{end[0] - 1}")

# Global running sum: local cumsum shifted by the total of all lower ranks.
below = np.zeros(1, dtype="i8")
comm.Exscan(np.array([values.sum()]), below, op=MPI.SUM)
if rank == 0:
    below[0] = 0
running = np.cumsum(values) + below[0]
print(f"global prefix sums {running.tolist()}")

# The same with Python objects: exscan returns None on rank 0.
lower = comm.exscan(int(values.sum()), op=MPI.SUM)
upto = comm.scan(int(values.sum()), op=MPI.SUM)
print(f"scan {upto}, exscan {lower}, consistent: {(lower or 0) + int(values.sum()) == upto == running[-1]}")

total = comm.allreduce(int(values.sum()), op=MPI.SUM)
if rank == size - 1:
    print(f"last prefix sum equals the total: {running[-1] == total}")

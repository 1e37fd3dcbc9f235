"""Distributed matrix-vector product y = A x with a row-block distribution.

Rank 0 builds a 20x20 integer matrix and vector; ``Scatterv`` (with
``[buf, counts, displs, MPI.INT64_T]``, counts in matrix elements) deals
the row blocks, which differ by at most one row; ``Scatterv`` also deals x
and ``Allgatherv`` rebuilds the full x on every rank; each rank multiplies
its rows; ``Gatherv`` collects y at rank 0, which checks it against the
serial product.  A second product y2 = A y uses lowercase ``allgather`` of
the distributed y.  Integers keep everything exact.

Run it::

    mpiexec -n 4 python examples/mpi4py/matvec.py
    ppt exec examples/mpi4py/matvec.py -n 4 --system edison
"""
import numpy as np
from mpi4py import MPI

N = 20

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
rows = [N // size + (1 if r < N % size else 0) for r in range(size)]
first = [sum(rows[:r]) for r in range(size)]

if rank == 0:
    i, j = np.indices((N, N))
    A = ((3 * i + 5 * j) % 11 - 5).astype("i8")
    x = np.arange(1, N + 1, dtype="i8")
else:
    A = x = None

local_A = np.empty((rows[rank], N), dtype="i8")
comm.Scatterv([A, [r * N for r in rows], [f * N for f in first], MPI.INT64_T] if rank == 0 else None,
              local_A, root=0)
local_x = np.empty(rows[rank], dtype="i8")
comm.Scatterv([x, rows, first, MPI.INT64_T] if rank == 0 else None, local_x, root=0)
full_x = np.empty(N, dtype="i8")
comm.Allgatherv(local_x, [full_x, rows, first, MPI.INT64_T])

local_y = local_A @ full_x
print(f"rows {first[rank]}..{first[rank] + rows[rank] - 1}: y = {local_y.tolist()}")

y = np.empty(N, dtype="i8") if rank == 0 else None
comm.Gatherv(local_y, [y, rows, first, MPI.INT64_T] if rank == 0 else None, root=0)
if rank == 0:
    print(f"y = A x matches the serial product: {np.array_equal(y, A @ x)}, sum {int(y.sum())}")

# Second product with objects: gather y everywhere, multiply again.
full_y = np.concatenate(comm.allgather(local_y))
local_y2 = local_A @ full_y
norm2 = comm.allreduce(int(local_y2 @ local_y2), op=MPI.SUM)
print(f"||A A x||^2 = {norm2}")

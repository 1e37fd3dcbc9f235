"""User-defined reduction operations with MPI.Op.Create.

* ``absmax``: a commutative element-wise operation (largest magnitude, sign
  kept) used by ``Allreduce`` and ``Reduce`` on float64 buffers;
* ``matmul2``: a NON-commutative operation, the product of 2x2 integer
  matrices.  MPI applies non-commutative operations in rank order, so
  ``Reduce`` gives ``M0 @ M1 @ ... @ M(n-1)`` and ``Scan`` its prefixes;
* both are freed with ``Op.Free()``.

The user function receives ``(inbuf, inoutbuf, datatype)`` and must combine
them into ``inoutbuf``; numpy views the raw buffers.

Run it::

    mpiexec -n 4 python examples/mpi4py/user_op.py
    ppt exec examples/mpi4py/user_op.py -n 4 --system edison
"""
import numpy as np
from mpi4py import MPI


def absmax(inbuf, inoutbuf, datatype):
    a = np.frombuffer(inbuf, dtype="d")
    b = np.frombuffer(inoutbuf, dtype="d")
    b[...] = np.where(np.abs(a) > np.abs(b), a, b)


def matmul2(inbuf, inoutbuf, datatype):
    # MPI computes inoutbuf = inbuf op inoutbuf, inbuf from the lower ranks.
    a = np.frombuffer(inbuf, dtype="i8").reshape(-1, 2, 2)
    b = np.frombuffer(inoutbuf, dtype="i8").reshape(-1, 2, 2)
    b[...] = a @ b


comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

ABSMAX = MPI.Op.Create(absmax, commute=True)
MATMUL = MPI.Op.Create(matmul2, commute=False)

values = np.array([(-1) ** rank * (rank + 0.5), 3.0 - 1.25 * rank, 0.25 * rank])  # no ties in magnitude
result = np.zeros(3)
comm.Allreduce([values, MPI.DOUBLE], [result, MPI.DOUBLE], op=ABSMAX)
print(f"Allreduce absmax: {result.tolist()}")
at_root = np.zeros(3)
comm.Reduce(values, at_root, op=ABSMAX, root=0)
print(f"Reduce absmax: {at_root.tolist() if rank == 0 else 'not root'}")

# Each rank holds a shear matrix; the ordered product depends on rank order.
mine = np.array([[1, rank + 1], [rank, 1]], dtype="i8")
product = np.zeros((2, 2), dtype="i8")
comm.Reduce(mine, product, op=MATMUL, root=0)
print(f"Reduce matmul (rank order): {product.tolist() if rank == 0 else 'not root'}")
prefix = np.zeros((2, 2), dtype="i8")
comm.Scan(mine, prefix, op=MATMUL)
print(f"Scan matmul: {prefix.tolist()}")

ABSMAX.Free()
MATMUL.Free()

"""Example 3.9 of 'MPI - The Complete Reference':
transpose a matrix in a Sendrecv with an hvector of vectors.

Third-party code: copied unchanged (apart from this docstring) from mpi4py's
source distribution, demo/mpi-ref-v1/ex-3.09.py, Copyright (c) Lisandro Dalcin, under the
BSD 3-Clause licence in LICENSE (examples/mpi4py/demo/LICENSE).
Every rank sends to itself; checks itself with asserts and prints nothing.

Run it::

    mpiexec -n 2 python examples/mpi4py/demo/mpi-ref-v1/ex-3.09.py
    ppt exec examples/mpi4py/demo/mpi-ref-v1/ex-3.09.py -n 2 --system edison
"""
from mpi4py import MPI

try:
    import numpy
except ImportError:
    raise SystemExit from None

# transpose a matrix a into b

a = numpy.empty((100, 100), dtype=float, order="f")
b = numpy.empty((100, 100), dtype=float, order="f")
a.flat = numpy.arange(a.size, dtype=float)

lb, sizeofdouble = MPI.DOUBLE.Get_extent()

# create datatype dor one row
# (vector with 100 double entries and stride 100)
row = MPI.DOUBLE.Create_vector(100, 1, 100)

# create datatype for matrix in row-major order

# (one hundred copies of the row datatype, strided one word
#  apart; the successive row datatypes are interleaved)
xpose = row.Create_hvector(100, 1, sizeofdouble)
xpose.Commit()

# send matrix in row-major order and receive in column major order
abuf = (a, xpose)
bbuf = (b, MPI.DOUBLE)
myrank = MPI.COMM_WORLD.Get_rank()
status = MPI.Status()
MPI.COMM_WORLD.Sendrecv(abuf, myrank, 0, bbuf, myrank, 0, status)

assert numpy.allclose(a, b.transpose())
assert status.Get_count(xpose) == 1
assert status.Get_count(MPI.DOUBLE) == b.size

row.Free()
xpose.Free()

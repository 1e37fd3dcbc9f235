"""Basic MPI datatypes: matching numpy dtypes, sizes, extents and names.

Rank 0 sends rank 1 one small array of each basic type, naming the MPI
datatype explicitly (``[buf, MPI.SHORT]``, ``[buf, MPI.FLOAT]``, ...), plus a
``bytearray`` as ``MPI.CHAR`` and a numpy array with only a typecode string
(``[buf, "d"]``).  Rank 1 receives into arrays of the matching dtype and
checks ``Status.Get_count``.  Every rank prints each datatype's
``Get_size()``, ``Get_extent()`` and ``Get_name()``.  Needs at least 2 ranks.

Run it::

    mpiexec -n 2 python examples/mpi4py/datatypes.py
    ppt exec examples/mpi4py/datatypes.py -n 2 --system edison
"""
import numpy as np
from mpi4py import MPI

TYPES = [
    (MPI.SIGNED_CHAR, "i1"), (MPI.UNSIGNED_CHAR, "u1"), (MPI.SHORT, "i2"), (MPI.UNSIGNED_SHORT, "u2"),
    (MPI.INT, "i4"), (MPI.UNSIGNED, "u4"), (MPI.LONG, "i8"), (MPI.UNSIGNED_LONG, "u8"),
    (MPI.INT32_T, "i4"), (MPI.INT64_T, "i8"), (MPI.FLOAT, "f4"),
    (MPI.DOUBLE, "f8"), (MPI.C_BOOL, "?"), (MPI.C_DOUBLE_COMPLEX, "c16"),
]

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
if size < 2:
    raise SystemExit("datatypes.py needs at least 2 ranks")

if rank == 0:
    for mpitype, dtype in TYPES:
        lb, extent = mpitype.Get_extent()
        print(f"{mpitype.Get_name()}: size {mpitype.Get_size()} extent {extent} lb {lb}"
              f" numpy {np.dtype(dtype).itemsize}")

if rank == 0:
    for tag, (mpitype, dtype) in enumerate(TYPES):
        data = (np.arange(4) % 2 == 1) if dtype == "?" else np.arange(4).astype(dtype) * 3
        comm.Send([data, mpitype], dest=1, tag=tag)
    comm.Send([bytearray(b"MPI chars"), MPI.CHAR], dest=1, tag=100)
    comm.Send([np.array([1.5, 2.5]), "d"], dest=1, tag=101)
elif rank == 1:
    status = MPI.Status()
    for tag, (mpitype, dtype) in enumerate(TYPES):
        buf = np.zeros(4, dtype=dtype)
        comm.Recv([buf, mpitype], source=0, tag=tag, status=status)
        print(f"{mpitype.Get_name()}: got {buf.tolist()} count {status.Get_count(mpitype)}"
              f" bytes {status.Get_count(MPI.BYTE)}")
    chars = bytearray(9)
    comm.Recv([chars, MPI.CHAR], source=0, tag=100, status=status)
    print(f"MPI_CHAR text {chars.decode()!r} count {status.Get_count(MPI.CHAR)}")
    pair = np.zeros(2)
    comm.Recv([pair, "d"], source=0, tag=101)
    print(f"typecode 'd': {pair.tolist()}")

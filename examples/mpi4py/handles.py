"""Handle lifecycle: freeing or completing an MPI object turns its handle into the NULL constant.

mpi4py mirrors MPI's C semantics, where ``MPI_Comm_free(&comm)`` sets
``comm`` to ``MPI_COMM_NULL``.  Programs rely on it, e.g. to tell which
requests are still active (``req != MPI.REQUEST_NULL``) or to free a
communicator only once.  This program checks, for every kind of handle:

* communicators from ``Dup``, ``Split``, ``Create_cart`` -> ``COMM_NULL``
  after ``Free``;
* groups from ``Get_group`` and ``Incl`` -> ``GROUP_NULL``;
* a user operation from ``Op.Create`` -> ``OP_NULL``;
* requests completed by ``Wait``, ``Waitall`` and a successful ``Test`` ->
  ``REQUEST_NULL``; a request not yet complete stays active;
* ``Request.Waitall`` on a list holding ``REQUEST_NULL`` entries is allowed.

Run it::

    mpiexec -n 4 python examples/mpi4py/handles.py
    ppt exec examples/mpi4py/handles.py -n 4 --system edison
"""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
right, left = (rank + 1) % size, (rank - 1) % size

dup = comm.Dup()
half = comm.Split(rank % 2, rank)
cart = comm.Create_cart([size], periods=[True])
print(f"new communicators are not COMM_NULL: {all(c != MPI.COMM_NULL for c in (dup, half, cart))}")
for c in (dup, half, cart):
    c.Free()
print(f"after Free: Dup {dup == MPI.COMM_NULL}, Split {half == MPI.COMM_NULL},"
      f" Create_cart {cart == MPI.COMM_NULL}")

group = comm.Get_group()
first = group.Incl([0])
group.Free()
first.Free()
print(f"after Free: groups are GROUP_NULL {group == MPI.GROUP_NULL and first == MPI.GROUP_NULL}")

op = MPI.Op.Create(lambda a, b, datatype: None, commute=True)
op.Free()
print(f"after Free: op is OP_NULL {op == MPI.OP_NULL}")

buf = np.zeros(1, dtype="i")
recv = comm.Irecv(buf, source=left, tag=1)
print(f"posted receive is active: {recv != MPI.REQUEST_NULL}")
comm.Send(np.array([rank], dtype="i"), dest=right, tag=1)
recv.Wait()
print(f"after Wait: REQUEST_NULL {recv == MPI.REQUEST_NULL}, got {int(buf[0])}")

reqs = [comm.Irecv(np.zeros(1, dtype="i"), source=left, tag=2),
        comm.Isend(np.array([rank], dtype="i"), dest=right, tag=2), MPI.REQUEST_NULL]
MPI.Request.Waitall(reqs)
print(f"after Waitall (with a REQUEST_NULL in the list): all REQUEST_NULL {all(r == MPI.REQUEST_NULL for r in reqs)}")

req = comm.Irecv(buf, source=left, tag=3)
comm.Send(np.array([rank], dtype="i"), dest=right, tag=3)
while not req.Test():
    pass
print(f"after a successful Test: REQUEST_NULL {req == MPI.REQUEST_NULL}")

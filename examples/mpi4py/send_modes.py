"""MPI's synchronous and ready send modes, blocking and nonblocking (buffered mode: buffered_send.py).

* ``Ssend``/``Issend`` (synchronous): completes only once the receiver has
  started receiving, so an ``Issend`` tested before the matching receive is
  posted is still pending;
* ``Rsend`` (ready): allowed only when the receive is already posted, which
  a barrier after the ``Irecv`` guarantees;
* ``ssend`` of Python objects.

Every rank sends to its right neighbour and receives from its left one.

Run it::

    mpiexec -n 4 python examples/mpi4py/send_modes.py
    ppt exec examples/mpi4py/send_modes.py -n 4 --system edison
"""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
right, left = (rank + 1) % size, (rank - 1) % size

# Synchronous: the Issend cannot complete before the neighbour posts its receive,
# which it does only after the barrier.
req = comm.Issend(np.array([rank, 1], dtype="i"), dest=right, tag=1)
early = req.Test()
comm.Barrier()
got = np.zeros(2, dtype="i")
comm.Recv(got, source=left, tag=1)
req.Wait()
print(f"Issend complete before the receive was posted: {early}; received {got.tolist()}")
# A blocking synchronous ring: rank 0 sends first, every other rank receives first,
# so each Ssend meets a posted receive and nobody waits on a cycle.
if rank == 0:
    comm.Ssend(np.array([10 * rank], dtype="i"), dest=right, tag=3)
    comm.Recv(got[:1], source=left, tag=3)
    comm.ssend({"from": rank}, dest=right, tag=2)
    obj = comm.recv(source=left, tag=2)
else:
    comm.Recv(got[:1], source=left, tag=3)
    comm.Ssend(np.array([10 * rank], dtype="i"), dest=right, tag=3)
    obj = comm.recv(source=left, tag=2)
    comm.ssend({"from": rank}, dest=right, tag=2)
print(f"Ssend ring got {int(got[0])}, ssend ring got {obj}")

# Ready: the receive is posted before anyone passes the barrier.
ready = np.zeros(1, dtype="d")
req = comm.Irecv(ready, source=left, tag=6)
comm.Barrier()
comm.Rsend(np.array([rank + 0.5]), dest=right, tag=6)
req.Wait()
print(f"Rsend got {ready[0]}")

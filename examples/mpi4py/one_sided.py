"""One-sided communication (RMA): ranks read and write each other's memory windows.

Every rank exposes a small numpy array with ``MPI.Win.Create``.  Between
two ``Fence`` calls (an access epoch) each rank ``Put``\\ s its rank into
its right neighbour's window, ``Get``\\ s a value from its left neighbour's
window and ``Accumulate``\\ s ``rank + 1`` into slot 2 of rank 0's window
with ``MPI.SUM``.  After the closing fence the targets see the data without
having called any receive.  A second epoch uses passive-target ``Lock`` /
``Unlock`` to add into rank 0's counter.

Run it::

    mpiexec -n 4 python examples/mpi4py/one_sided.py
    ppt exec examples/mpi4py/one_sided.py -n 4 --system edison
"""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
right, left = (rank + 1) % size, (rank - 1) % size

memory = np.array([-1, 1000 + rank, 0, 0], dtype="i")
win = MPI.Win.Create(memory, disp_unit=memory.itemsize, comm=comm)

fetched = np.zeros(1, dtype="i")
win.Fence()
win.Put(np.array([rank], dtype="i"), right, target=0)              # slot 0 of my right neighbour
win.Get(fetched, left, target=1)                                   # slot 1 of my left neighbour
win.Accumulate(np.array([rank + 1], dtype="i"), 0, target=2, op=MPI.SUM)
win.Fence()
print(f"window after fence: {memory[:3].tolist()}, got {int(fetched[0])} from rank {left}")

win.Lock(0, MPI.LOCK_SHARED)
win.Accumulate(np.array([1], dtype="i"), 0, target=3, op=MPI.SUM)
win.Unlock(0)
comm.Barrier()
if rank == 0:
    win.Lock(0, MPI.LOCK_SHARED)
    count = int(memory[3])
    win.Unlock(0)
    print(f"counter on rank 0 after every rank added 1: {count}")
win.Free()

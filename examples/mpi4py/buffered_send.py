"""Buffered sends: Bsend returns at once by copying the message into a buffer the program supplies.

Every rank first sends to its right neighbour and only then receives from
its left one.  With large messages a standard ``Send`` may wait for the
matching receive, and every rank waiting on its neighbour would deadlock;
``Bsend`` copies the message into the buffer attached with
``MPI.Attach_buffer`` and returns, so the ring completes.  The buffer is sized
as MPI requires: each pending message's bytes plus ``MPI.BSEND_OVERHEAD``.
Also shown: ``Ibsend``, lowercase ``bsend`` of a Python object, and
``MPI.Detach_buffer``, which waits until the buffered messages have left and
returns the buffer.

Run it::

    mpiexec -n 4 python examples/mpi4py/buffered_send.py
    ppt exec examples/mpi4py/buffered_send.py -n 4 --system edison
"""
import numpy as np
from mpi4py import MPI

N = 100_000          # doubles: 800 kB, far above any eager limit

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
right, left = (rank + 1) % size, (rank - 1) % size

big = np.full(N, float(rank))
small = np.array([rank, -rank], dtype="i")
room = (big.nbytes + MPI.BSEND_OVERHEAD) + (small.nbytes + MPI.BSEND_OVERHEAD) + (256 + MPI.BSEND_OVERHEAD)
MPI.Attach_buffer(bytearray(room))

comm.Bsend([big, MPI.DOUBLE], dest=right, tag=1)       # returns before anyone receives
req = comm.Ibsend(small, dest=right, tag=2)
comm.bsend({"from": rank, "note": "buffered"}, dest=right, tag=3)
req.Wait()

got_big = np.empty(N)
got_small = np.empty(2, dtype="i")
comm.Recv([got_big, MPI.DOUBLE], source=left, tag=1)
comm.Recv(got_small, source=left, tag=2)
obj = comm.recv(source=left, tag=3)
buf = MPI.Detach_buffer()
print(f"Bsend: {N} doubles all {got_big[0]}: {bool(np.all(got_big == got_big[0]))};"
      f" Ibsend {got_small.tolist()}; bsend {obj}")
print(f"detached buffer of the attached size: {len(buf) == room}")

"""Ring pass: a token travels once around all ranks, then neighbours swap data with sendrecv.

* a token starts at rank 0 and every rank adds its rank before passing it on
  (blocking ``recv`` then ``send``, so the ranks run one after the other);
* lowercase ``sendrecv`` shifts a Python object one step around the ring;
* uppercase ``Sendrecv`` shifts a numpy buffer the other way, and
  ``Sendrecv_replace`` rotates one buffer in place, ``size`` times, so
  every rank ends with its own data again.

Run it::

    mpiexec -n 4 python examples/mpi4py/ring.py
    ppt exec examples/mpi4py/ring.py -n 4 --system edison
"""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
right, left = (rank + 1) % size, (rank - 1) % size

# Token ring: 0 -> 1 -> ... -> size-1 -> 0.
if rank == 0:
    comm.send([0], dest=right, tag=0)
    token = comm.recv(source=left, tag=0)
    print(f"token came back after visiting {len(token)} ranks, sum {sum(token)}")
else:
    token = comm.recv(source=left, tag=0)
    token.append(rank)
    print(f"token passed on with {len(token)} entries")
    comm.send(token, dest=right, tag=0)

# Objects: send right, receive from left in one call.
got = comm.sendrecv(("hi", rank), dest=right, sendtag=1, source=left, recvtag=1)
print(f"sendrecv got {got}")

# Buffers: send left, receive from right.
out = np.array([rank, rank * rank], dtype="i")
back = np.empty(2, dtype="i")
status = MPI.Status()
comm.Sendrecv(out, dest=left, sendtag=2, recvbuf=back, source=right, recvtag=2, status=status)
print(f"Sendrecv got {back.tolist()} from {status.Get_source()}")

# Rotate one buffer all the way around the ring in place.
buf = np.array([float(rank)] * 3)
trail = []
for _ in range(size):
    comm.Sendrecv_replace([buf, MPI.DOUBLE], dest=right, sendtag=3, source=left, recvtag=3)
    trail.append(int(buf[0]))
print(f"Sendrecv_replace saw {trail}, back home: {buf.tolist() == [float(rank)] * 3}")

"""Most kinds of mpi4py call, a fixed number of times each, on 2 ranks or more: what ``ppt record`` of an mpi4py
program is checked against ``ppt exec`` with (tests/test_record_vs_exec.py).

Usage: ``calls.py [STEPS]`` (default 2).  Each step: a ``Sendrecv`` around a ring, an ``Isend``/``Irecv`` pair and
``Waitall``, ``Allreduce``, ``Bcast``, ``Allgather``, ``Alltoall``, ``Alltoallv`` and a pickled ``send``/``recv``
around the ring.  Then one ``Barrier``, one pickled ``bcast`` and one pickled ``gather``.
"""
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 2
right, left = (rank + 1) % size, (rank - 1) % size
block = np.full(64, rank, dtype=np.float64)
got = np.empty_like(block)
for step in range(steps):
    comm.Sendrecv(block, dest=right, recvbuf=got, source=left)
    requests = [comm.Isend(block, dest=right, tag=1), comm.Irecv(got, source=left, tag=1)]
    MPI.Request.Waitall(requests)
    total = np.empty(1)
    comm.Allreduce(np.array([got.sum()]), total)
    comm.Bcast(block, root=0)
    gathered = np.empty(size * 4)
    comm.Allgather(block[:4], gathered)
    counts = np.arange(1, size + 1, dtype=np.int64)
    incoming = np.empty(size, dtype=np.int64)
    comm.Alltoall(counts, incoming)
    sent = np.ones(int(counts.sum()))
    received = np.empty(int(incoming.sum()))
    comm.Alltoallv([sent, counts], [received, incoming])
    comm.send({"step": step, "from": rank}, dest=right, tag=2)
    comm.recv(source=left, tag=2)
comm.Barrier()
setting = comm.bcast({"steps": steps} if rank == 0 else None, root=0)
held = comm.gather(rank, root=0)
if rank == 0:
    print(f"calls.py: {steps} steps on {size} ranks, gathered {held}")

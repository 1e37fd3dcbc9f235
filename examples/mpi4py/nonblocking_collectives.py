"""Nonblocking collectives (MPI-3): start a collective, overlap local work, then complete it.

``Ibcast``, ``Iallreduce``, ``Ireduce``, ``Iallgather``, ``Ialltoall``,
``Iscan`` and ``Ibarrier`` on numpy buffers; several are started before any
is completed, then ``Request.Waitall`` finishes them.  ``Ibarrier`` is
completed by a polling loop (``while not req.Test(): ...``), the usual way
to wait for "everyone got here" while doing other work.

Run it::

    mpiexec -n 4 python examples/mpi4py/nonblocking_collectives.py
    ppt exec examples/mpi4py/nonblocking_collectives.py -n 4 --system edison
"""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

params = np.arange(3, dtype="i") + 7 if rank == 0 else np.zeros(3, dtype="i")
total = np.zeros(2, dtype="i")
at_root = np.zeros(1, dtype="i")
everyone = np.zeros(size, dtype="i")
swapped = np.zeros(size, dtype="i")
prefix = np.zeros(1, dtype="i")

requests = [
    comm.Ibcast(params, root=0),
    comm.Iallreduce(np.array([rank, 1], dtype="i"), total, op=MPI.SUM),
    comm.Ireduce(np.array([rank * rank], dtype="i"), at_root, op=MPI.MAX, root=0),
    comm.Iallgather(np.array([rank + 100], dtype="i"), everyone),
    comm.Ialltoall(np.array([10 * rank + j for j in range(size)], dtype="i"), swapped),
    comm.Iscan(np.array([rank + 1], dtype="i"), prefix, op=MPI.SUM),
]
local = sum(i * i for i in range(1000))          # work overlapping the collectives
MPI.Request.Waitall(requests)
print(f"Ibcast {params.tolist()} Iallreduce {total.tolist()} Iscan {prefix.tolist()}")
print(f"Ireduce MAX {at_root.tolist() if rank == 0 else 'not root'}")
print(f"Iallgather {everyone.tolist()} Ialltoall {swapped.tolist()}")

# A nonblocking barrier completed by polling.
req = comm.Ibarrier()
polls = 0
while not req.Test():
    polls += 1
print(f"Ibarrier done, local work {local}")

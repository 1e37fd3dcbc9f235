"""A nonblocking ring pipeline: every step each rank passes a block to its right neighbour with
Isend/Irecv and updates its own data while the message is in flight.

    mpiexec -n 2 python ring.py [BLOCK_DOUBLES] [STEPS]     (default 32,768 doubles, 400 steps)
"""
import sys

import numpy as np
from mpi4py import MPI

BLOCK = int(sys.argv[1]) if len(sys.argv) > 1 else 32768
STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 400

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
right, left = (rank + 1) % size, (rank - 1) % size
outgoing = np.full(BLOCK, float(rank))
incoming = np.empty(BLOCK)
work = np.linspace(0.0, 1.0, 4 * BLOCK)
for step in range(STEPS):
    reqs = [comm.Irecv(incoming, source=left, tag=5), comm.Isend(outgoing, dest=right, tag=5)]
    work = np.sqrt(work * work + 1e-3) * 0.999          # computation overlapping the transfer
    MPI.Request.Waitall(reqs)
    outgoing, incoming = incoming, outgoing
    outgoing[:8] += work[:8]
check = comm.allreduce(float(outgoing.sum()), op=MPI.SUM)
if rank == 0:
    print(f"ring {BLOCK} doubles, {STEPS} steps on {size} ranks: {check:.6e}")

"""Parallel sample sort: local sort, splitters from a gathered sample, Alltoall of counts, Alltoallv
of the keys, a final local sort; repeated a few times.

    mpiexec -n 2 python sort.py [KEYS_TOTAL] [REPEATS]     (default 2,000,000 int64 keys, 3 repeats)
"""
import sys

import numpy as np
from mpi4py import MPI

TOTAL = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000_000
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 3

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
rng = np.random.default_rng(rank)
for repeat in range(REPEATS):
    keys = np.sort(rng.integers(0, 1 << 40, TOTAL // size, dtype=np.int64))
    sample = keys[np.linspace(0, len(keys) - 1, 8 * size).astype(int)]
    samples = np.empty(8 * size * size, dtype=np.int64)
    comm.Allgather(sample, samples)
    splitters = np.sort(samples)[8 * size::8 * size][:size - 1]
    bounds = np.searchsorted(keys, splitters)
    counts = np.diff(np.concatenate(([0], bounds, [len(keys)]))).astype(np.int64)
    incoming = np.empty(size, dtype=np.int64)
    comm.Alltoall(counts, incoming)
    out = np.empty(int(incoming.sum()), dtype=np.int64)
    send_at = np.concatenate(([0], np.cumsum(counts)[:-1]))
    recv_at = np.concatenate(([0], np.cumsum(incoming)[:-1]))
    comm.Alltoallv([keys, counts, send_at, MPI.INT64_T], [out, incoming, recv_at, MPI.INT64_T])
    out.sort()
held = comm.gather(len(out), root=0)
if rank == 0:
    print(f"sort {TOTAL} keys x {REPEATS} on {size} ranks: {held} keys per rank")

"""Compute pi by the midpoint rule on 4/(1+x^2), in chunks of numpy work, summing with Reduce each round.

    mpiexec -n 2 python pi.py [INTERVALS] [ROUNDS]     (default 80,000,000 intervals, 10 rounds)
"""
import math
import sys

import numpy as np
from mpi4py import MPI

INTERVALS = int(sys.argv[1]) if len(sys.argv) > 1 else 80_000_000
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 10

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
h = 1.0 / INTERVALS
CHUNK = 1 << 20
total = np.zeros(1)
for r in range(ROUNDS):
    local = 0.0
    per_round = INTERVALS // ROUNDS
    lo = r * per_round
    for start in range(lo + rank * CHUNK, lo + per_round, size * CHUNK):
        i = np.arange(start, min(start + CHUNK, lo + per_round), dtype=np.float64)
        x = h * (i + 0.5)
        local += float(np.sum(4.0 / (1.0 + x * x)))
    part = np.zeros(1)
    comm.Reduce(np.array([local * h]), part, op=MPI.SUM, root=0)
    total += part
if rank == 0:
    print(f"pi {INTERVALS} intervals on {size} ranks: {total[0]:.12f} (error {abs(total[0] - math.pi):.1e})")

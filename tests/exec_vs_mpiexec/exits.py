"""Rank 0 raises (status 1) and rank 1 calls sys.exit(2): mpiexec exits with 1 | 2 = 3."""
import sys

from mpi4py import MPI

rank = MPI.COMM_WORLD.rank
print("rank", rank, "before")


def check(value):
    return {"expected": 1}[value]


if rank == 0:
    check("missing")
sys.exit(2)

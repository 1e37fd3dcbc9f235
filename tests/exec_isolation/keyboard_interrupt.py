"""Rank 0 raises KeyboardInterrupt; rank 1 goes on and prints."""
from mpi4py import MPI

rank = MPI.COMM_WORLD.rank
print("rank", rank, "before")
if rank == 0:
    raise KeyboardInterrupt("stop")
print("rank", rank, "after")

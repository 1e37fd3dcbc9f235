"""Rank 1 ends its process with os._exit(3) after a sleep, while rank 0 waits in a barrier."""
import os
import time

from mpi4py import MPI

comm = MPI.COMM_WORLD
print(f"rank {comm.rank} before")
comm.Barrier()
if comm.rank == 1:
    time.sleep(0.5)
    os._exit(3)
print(f"rank {comm.rank} after")
comm.Barrier()
print("never")

"""Every rank runs its own code for ever: only Ctrl-C ends it."""
from mpi4py import MPI

print("rank", MPI.COMM_WORLD.rank, "started", flush=True)
while True:
    pass

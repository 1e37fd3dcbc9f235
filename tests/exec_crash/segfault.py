"""Rank 0 reads address 0 through ctypes after an allreduce: the interpreter crashes with SIGSEGV."""
import ctypes

from mpi4py import MPI

comm = MPI.COMM_WORLD
print(f"rank {comm.rank} before")
comm.allreduce(1)
if comm.rank == 0:
    ctypes.string_at(0)
comm.Barrier()
print("never")

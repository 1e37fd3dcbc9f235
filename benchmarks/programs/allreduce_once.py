"""Every rank adds its rank number with one allreduce (an mpi4py program for the memory benchmark)."""
from mpi4py import MPI

comm = MPI.COMM_WORLD
total = comm.allreduce(comm.Get_rank())
assert total == comm.Get_size() * (comm.Get_size() - 1) // 2

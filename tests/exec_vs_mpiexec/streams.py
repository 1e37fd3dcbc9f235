"""Lines on stdout and on stderr from every rank, and a line written in pieces."""
import sys

from mpi4py import MPI

rank = MPI.COMM_WORLD.rank
print("out", rank, "first")
print("err", rank, "first", file=sys.stderr)
sys.stdout.write(f"out {rank} ")
sys.stdout.write("in pieces\n")
MPI.COMM_WORLD.Barrier()
print("err", rank, "second", file=sys.stderr)

"""Every rank writes ``math.pi`` and ``json.dumps`` (copy on write under ``ppt exec``), reads them, and adds
its rank number with one allreduce (an mpi4py program for the isolation benchmark)."""
import json
import math

from mpi4py import MPI

comm = MPI.COMM_WORLD
math.pi = comm.rank
json.dumps = str
total = 0
for _ in range(1000):
    total += math.pi
assert comm.allreduce(len(json.dumps(total))) > 0

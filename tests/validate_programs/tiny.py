"""A few milliseconds of work on each rank and three messages: ``ppt validate``'s test program.

Usage: ``tiny.py [STEPS]`` (default 3); exits with status 3 when given ``fail``.
"""
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
if sys.argv[1:] == ["fail"]:
    raise SystemExit("tiny.py: asked to fail")
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
data = np.arange(20000, dtype=np.float64) * (comm.rank + 1)
total = np.zeros(1)
for _ in range(steps):
    data = np.sqrt(data * data + 1.0)
    comm.Allreduce(np.array([data.sum()]), total)
    comm.send(float(total[0]), dest=(comm.rank + 1) % comm.size)
    comm.recv(source=(comm.rank - 1) % comm.size)

#!/usr/bin/env python
"""
Parallel Hello World

Every rank prints its rank, the number of ranks and its processor name.

Third-party code: copied unchanged (apart from this docstring) from mpi4py's
source distribution, demo/helloworld.py, Copyright (c) Lisandro Dalcin, under the
BSD 3-Clause licence in LICENSE (examples/mpi4py/demo/LICENSE).
Prints the host name, so its output differs from machine to machine.

Run it::

    mpiexec -n 4 python examples/mpi4py/demo/helloworld.py
    ppt exec examples/mpi4py/demo/helloworld.py -n 4 --system edison
"""

from mpi4py import MPI

size = MPI.COMM_WORLD.Get_size()
rank = MPI.COMM_WORLD.Get_rank()
name = MPI.Get_processor_name()

print(f"Hello, World! I am process {rank} of {size} on {name}.", flush=True)

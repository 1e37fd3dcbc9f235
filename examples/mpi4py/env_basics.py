"""MPI environment basics: rank and size, clocks, processor name, init/finalize state, datatype sizes.

Shows ``COMM_WORLD.Get_rank()/Get_size()`` (and the ``rank``/``size``
properties), ``MPI.Wtime()`` and ``MPI.Wtick()``, ``MPI.Get_processor_name()``,
``MPI.Is_initialized()``, ``MPI.Is_finalized()`` and an explicit
``MPI.Finalize()``, ``COMM_SELF`` and the communicators' names, the
``MPI.TAG_UB`` attribute, and the sizes of the basic datatypes.  Only facts that do
not depend on the machine are printed (the clock is checked, not shown), so
the output is the same on every run.

Run it::

    mpiexec -n 4 python examples/mpi4py/env_basics.py
    ppt exec examples/mpi4py/env_basics.py -n 4 --system edison
"""
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
size = comm.Get_size()
assert (rank, size) == (comm.rank, comm.size)

print(f"rank {rank} of {size}, initialized={MPI.Is_initialized()}, finalized={MPI.Is_finalized()}")

# Clocks: Wtime only moves forward, Wtick is the resolution of Wtime.
t0 = MPI.Wtime()
comm.Barrier()
t1 = MPI.Wtime()
tick = MPI.Wtick()
print(f"Wtime monotonic: {t1 >= t0}, Wtick positive: {0.0 < tick < 1.0}")

# The processor name is machine dependent: print only that there is one.
name = MPI.Get_processor_name()
print(f"processor name is a non-empty str: {isinstance(name, str) and len(name) > 0}")

# Basic datatypes and their sizes in bytes.
types = [("BYTE", MPI.BYTE), ("CHAR", MPI.CHAR), ("SHORT", MPI.SHORT), ("INT", MPI.INT),
         ("LONG", MPI.LONG), ("FLOAT", MPI.FLOAT), ("DOUBLE", MPI.DOUBLE)]
if rank == 0:
    print("datatype sizes: " + ", ".join(f"{n}={t.Get_size()}" for n, t in types))

# The predefined communicators, their standard names, and the tag upper bound
# (at least 32767 in every MPI library).
me = MPI.COMM_SELF
print(f"{comm.Get_name()} has {size} ranks, {me.Get_name()} has {me.Get_size()};"
      f" allreduce over COMM_SELF: {me.allreduce(rank + 1)}")
print(f"TAG_UB at least 32767: {comm.Get_attr(MPI.TAG_UB) >= 32767}")

comm.Barrier()
MPI.Finalize()
print(f"after Finalize: finalized={MPI.Is_finalized()}")

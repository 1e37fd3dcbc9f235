"""Parallel sample sort: every rank ends with one sorted slice of the global data.

1. each rank draws 1000 random ints (seeded by its rank, so runs repeat)
   and sorts them locally;
2. each picks ``size - 1`` regular samples; ``allgather`` (objects) collects
   them and every rank derives the same ``size - 1`` splitters;
3. each rank cuts its data at the splitters; ``Alltoall`` exchanges the
   piece sizes and ``Alltoallv`` with ``[buf, counts, displs, MPI.INT64_T]``
   moves the pieces;
4. a local sort finishes; ``sendrecv`` with the neighbours and
   ``allreduce`` check that the slices join into one sorted sequence.

Run it::

    mpiexec -n 4 python examples/mpi4py/sample_sort.py
    ppt exec examples/mpi4py/sample_sort.py -n 4 --system edison
"""
import numpy as np
from mpi4py import MPI

PER_RANK = 1000

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

data = np.sort(np.random.default_rng(1234 + rank).integers(0, 1_000_000, PER_RANK, dtype="i8"))
checksum = comm.allreduce(int(data.sum()), op=MPI.SUM)

# Splitters from regular samples of every rank.
samples = data[np.linspace(0, PER_RANK - 1, size + 1, dtype=int)[1:-1]].tolist()
pooled = sorted(s for part in comm.allgather(samples) for s in part)
splitters = [pooled[(i + 1) * len(pooled) // size] for i in range(size - 1)] if size > 1 else []

# Cut, exchange sizes, exchange data.
cuts = np.searchsorted(data, splitters, side="right")
bounds = [0, *cuts.tolist(), PER_RANK]
send_counts = np.array([bounds[i + 1] - bounds[i] for i in range(size)], dtype="i")
recv_counts = np.empty(size, dtype="i")
comm.Alltoall(send_counts, recv_counts)
send_displs = np.array(bounds[:-1], dtype="i")
recv_displs = np.concatenate(([0], np.cumsum(recv_counts)[:-1])).astype("i")
mine = np.empty(int(recv_counts.sum()), dtype="i8")
comm.Alltoallv([data, send_counts, send_displs, MPI.INT64_T],
               [mine, recv_counts, recv_displs, MPI.INT64_T])
mine.sort()

# Check: locally sorted, and my first element >= my left neighbour's last one.
left_last = comm.sendrecv(int(mine[-1]) if mine.size else None,
                          dest=(rank + 1) % size, source=(rank - 1) % size)
joined = rank == 0 or left_last is None or mine.size == 0 or left_last <= mine[0]
ok = comm.allreduce(bool(joined and np.all(mine[:-1] <= mine[1:])), op=MPI.LAND)
total = comm.allreduce(mine.size, op=MPI.SUM)
after = comm.allreduce(int(mine.sum()), op=MPI.SUM)
print(f"slice of {mine.size} keys, from {mine[0]} to {mine[-1]}")
if rank == 0:
    print(f"splitters {splitters}")
    print(f"sorted: {ok}, keys {total} of {PER_RANK * size}, checksum kept: {after == checksum}")

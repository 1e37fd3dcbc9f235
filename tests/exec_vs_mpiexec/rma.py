"""One-sided communication: a shared counter, a halo by Put, a gather by Get, accumulations, a spin lock by
Compare_and_swap, PSCW and a shared window; rank 0 gathers the results and prints them."""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size
left, right = (rank - 1) % size, (rank + 1) % size

# a shared counter: Fetch_and_op under exclusive locks
counter = np.zeros(1, "i8")
win = MPI.Win.Create(counter, counter.itemsize, MPI.INFO_NULL, comm)
one, old = np.ones(1, "i8"), np.zeros(1, "i8")
for _ in range(5):
    win.Lock(0, MPI.LOCK_EXCLUSIVE)
    win.Fetch_and_op(one, old, 0, 0, MPI.SUM)
    win.Unlock(0)
comm.Barrier()
total = int(counter[0]) if rank == 0 else None
win.Free()

# a halo exchange by Put between fences
cells = np.full(4, -1.0)
cells[1:3] = [10 * rank, 10 * rank + 1]
win = MPI.Win.Create(cells, cells.itemsize, comm=comm)
win.Fence()
win.Put(cells[1:2].copy(), left, 3)
win.Put(cells[2:3].copy(), right, 0)
win.Fence()
win.Free()

# a gather by Get, Accumulate with SUM and MAX, Get_accumulate (whose fetched values depend on the order)
memory = np.array([rank * rank, 0, 0], "i")
win = MPI.Win.Allocate(memory.nbytes, memory.itemsize, comm=comm)
mine = np.frombuffer(win.tomemory(), "i")
mine[:] = memory
win.Fence()
gathered = np.zeros(size, "i")
if rank == 0:
    for r in range(size):
        win.Get([gathered[r:r + 1], MPI.INT], r, (0, 1, MPI.INT))
win.Accumulate(np.array([rank + 1], "i"), 0, 1, MPI.SUM)
win.Accumulate(np.array([3 * rank - rank * rank], "i"), 0, 2, MPI.MAX)
win.Fence()
before = np.zeros(1, "i")
win.Get_accumulate(np.array([100], "i"), before, 0, (1, 1, MPI.INT), MPI.SUM)
win.Fence()
accumulated = mine.tolist()
win.Free()

# a spin lock by Compare_and_swap guarding a read-modify-write
lock_words = np.zeros(2, "i8")
win = MPI.Win.Create(lock_words, 8, comm=comm)
me, free, found, value = np.array([rank + 1], "i8"), np.zeros(1, "i8"), np.zeros(1, "i8"), np.zeros(1, "i8")
win.Lock_all()
for _ in range(3):
    while True:
        win.Compare_and_swap(me, free, found, 0, 0)
        win.Flush(0)
        if found[0] == 0:
            break
    win.Get(value, 0, 1)
    win.Flush(0)
    value += 1
    win.Put(value, 0, 1)
    win.Flush(0)
    win.Accumulate(free, 0, 0, MPI.REPLACE)
    win.Flush(0)
win.Unlock_all()
comm.Barrier()
guarded = lock_words.tolist()
win.Free()

# post/start/complete/wait around a ring
ring = np.zeros(1, "i")
win = MPI.Win.Create(ring, ring.itemsize, comm=comm)
group = comm.Get_group()
win.Post(group.Incl([left]))
win.Start(group.Incl([right]))
win.Put(np.array([rank], "i"), right)
win.Complete()
win.Wait()
win.Free()

results = comm.gather((cells.tolist(), int(ring[0])), root=0)
if rank == 0:
    print("counter", total)
    print("halo", results)
    print("gather", gathered.tolist(), "accumulate", accumulated)
    print("spin lock", guarded)

"""The intercommunicator collectives with counts per rank, Reduce_scatter(_block), Alltoallw and the
nonblocking forms, between the world's lower and upper halves (3 and 2 ranks at 5), every rank of each group
a root in turn, uneven counts; Scan is absent as in mpi4py.  Only rank 0 prints.

The nonblocking forms run at 2 ranks only: the MPICH of this environment (5.0.2) hangs in an
intercommunicator's Ibcast once a group has two ranks."""
import numpy as np
from mpi4py import MPI

world = MPI.COMM_WORLD
low = (world.size + 1) // 2
color = int(world.rank >= low)
inter = world.Split(color, world.rank).Create_intercomm(0, world, low if color == 0 else 0, tag=5)
me, size, remote = inter.rank, inter.size, inter.Get_remote_size()
mine = [j + 1 for j in range(remote)]                  # counts per remote rank: 1, 2, 3 ...
out = []


def root_of(group, rank):
    """The root argument when rank ``rank`` of group ``group`` is the root."""
    if color != group:
        return rank
    return MPI.ROOT if me == rank else MPI.PROC_NULL


def rooted(name, start):
    """Run rooted call ``name`` (blocking or, with ``start``, its I-form waited for) with every root."""
    call = getattr(inter, ("I" + name.lower()) if start else name)
    for group in (0, 1):
        for rank in range(size if color == group else remote):
            root = root_of(group, rank)
            got = np.full(4, -1.0)
            if name in ("Gatherv", "Gather"):
                counts = mine if name == "Gatherv" else [2] * remote
                into = np.zeros(sum(counts))
                spec = [into, counts, MPI.DOUBLE] if name == "Gatherv" else [into, MPI.DOUBLE]
                args = ((None, spec) if root == MPI.ROOT else
                        (np.full(me + 1 if name == "Gatherv" else 2, 10.0 * world.rank), None))
            elif name in ("Scatterv", "Scatter"):
                counts = mine if name == "Scatterv" else [2] * remote
                into = got[:me + 1 if name == "Scatterv" else 2]
                sent = np.arange(sum(counts), dtype="d") + 1000 * rank
                spec = [sent, counts, MPI.DOUBLE] if name == "Scatterv" else [sent, MPI.DOUBLE]
                args = ((spec, None) if root == MPI.ROOT else (None, into))
            elif name == "Reduce":
                into = got[:2]
                args = (None if root == MPI.ROOT else np.array([world.rank, 1.0 + me]), into, MPI.MAX)
            else:                                                        # Bcast
                into = got[:3]
                if root == MPI.ROOT:
                    into[:] = [rank, group, 7.0]
                args = (into,)
            if root == MPI.PROC_NULL:
                args = tuple(None if isinstance(a, (np.ndarray, list)) else a for a in args)
            request = call(*args, root=root)
            if start:
                request.Wait()
            if root != MPI.PROC_NULL:
                out.append((name, start, group, rank, into.tolist()))


for start in (False, True) if world.size == 2 else (False,):
    for name in ("Bcast", "Reduce", "Gather", "Gatherv", "Scatter", "Scatterv"):
        rooted(name, start)
    counts = [j + 1 for j in range(remote)]
    waits = []
    got = np.zeros(sum(counts))
    waits.append(inter.Iallgatherv(np.full(me + 1, 1.0 * world.rank), [got, counts, MPI.DOUBLE]) if start else
                 inter.Allgatherv(np.full(me + 1, 1.0 * world.rank), [got, counts, MPI.DOUBLE]))
    every = np.zeros(2 * remote)
    waits.append(inter.Iallgather(np.array([world.rank, -1.0]), every) if start else
                 inter.Allgather(np.array([world.rank, -1.0]), every))
    total = np.zeros(2)
    waits.append(inter.Iallreduce(np.array([world.rank, 1.0]), total, MPI.SUM) if start else
                 inter.Allreduce(np.array([world.rank, 1.0]), total, MPI.SUM))
    sendc = [me + 1] * remote                                   # to each remote rank, my rank + 1 items
    recvc = [j + 1 for j in range(remote)]                      # from remote rank j, j + 1 items
    sent = np.arange(sum(sendc), dtype="d") + 100 * world.rank
    swapped = np.zeros(sum(recvc))
    args = ([sent, sendc, MPI.DOUBLE], [swapped, recvc, MPI.DOUBLE])
    waits.append(inter.Ialltoallv(*args) if start else inter.Alltoallv(*args))
    blocks = np.zeros(remote, dtype="i")
    waits.append(inter.Ialltoall(np.arange(remote, dtype="i") + 10 * world.rank, blocks) if start else
                 inter.Alltoall(np.arange(remote, dtype="i") + 10 * world.rank, blocks))
    wsend = np.zeros(8 * remote, np.uint8)                      # an int32 to even, a double to odd remote ranks
    for j in range(remote):
        wsend[8 * j:8 * j + 8] = np.frombuffer((np.int32(world.rank).tobytes() + bytes(4)) if j % 2 == 0 else
                                               np.float64(world.rank / 4).tobytes(), np.uint8)
    wtypes = [MPI.INT32_T if me % 2 == 0 else MPI.DOUBLE] * remote
    wrecv = np.zeros(8 * remote, np.uint8)
    wargs = ([wsend, [1] * remote, [8 * j for j in range(remote)], [MPI.INT32_T if j % 2 == 0 else MPI.DOUBLE
                                                                     for j in range(remote)]],
             [wrecv, ([1] * remote, [8 * j for j in range(remote)]), wtypes])
    waits.append(inter.Ialltoallw(*wargs) if start else inter.Alltoallw(*wargs))
    common = 6                                                  # elements both groups' vectors have
    block = np.zeros(common // size)
    vector = np.arange(common, dtype="d") * (world.rank + 1)
    waits.append(inter.Ireduce_scatter_block(vector, block) if start else inter.Reduce_scatter_block(vector, block))
    spread = [common - size + 1] + [1] * (size - 1)             # uneven: the leader gets the most
    part = np.zeros(spread[me])
    waits.append(inter.Ireduce_scatter(vector, part, spread, MPI.MAX) if start else
                 inter.Reduce_scatter(vector, part, spread, MPI.MAX))
    waits.append(inter.Ibarrier() if start else inter.Barrier())
    if start:
        MPI.Request.Waitall(waits)
    kind = np.int32 if me % 2 == 0 else np.float64
    out.append(("all", start, got.tolist(), every.tolist(), total.tolist(), swapped.tolist(), blocks.tolist(),
                [wrecv[8 * j:8 * j + np.dtype(kind).itemsize].view(kind)[0].item() for j in range(remote)],
                block.tolist(), part.tolist()))

scatter_root = root_of(0, low - 1)
out.append(("objects", inter.allgather(world.rank), inter.alltoall([(world.rank, j) for j in range(remote)]),
            inter.gather(world.rank, root=root_of(1, 0)),
            inter.scatter(list(range(remote)) if scatter_root == MPI.ROOT else None, root=scatter_root)))
for name in ("Scan", "Exscan", "scan", "exscan", "Iscan", "Iexscan"):
    try:
        getattr(inter, name)
    except AttributeError as error:
        out.append((name, hasattr(inter, name), str(error)))
rows = world.gather(out, root=0)
if world.rank == 0:
    for rank, row in enumerate(rows):
        for item in row:
            print(rank, *item)

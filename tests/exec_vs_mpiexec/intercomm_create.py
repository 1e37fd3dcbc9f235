"""Dup, Split and Create on an intercommunicator between the world's lower and upper halves (3 and 2 ranks
at 5): each new intercommunicator's ranks, sizes and remote group, a collective and a message on it, and
COMM_NULL where MPI gives none.  Only rank 0 prints."""
import numpy as np
from mpi4py import MPI

world = MPI.COMM_WORLD
low = (world.size + 1) // 2
color = int(world.rank >= low)
inter = world.Split(color, world.rank).Create_intercomm(0, world, low if color == 0 else 0, tag=4)
out = []


def seen(name, comm):
    """What this rank sees of ``comm``: COMM_NULL, or its ranks and sizes, the remote group's world ranks,
    the remote group's sum, and a message from remote rank 0 to this rank sent on it."""
    if comm == MPI.COMM_NULL:
        out.append((name, "COMM_NULL"))
        return
    total = np.zeros(1)
    comm.Allreduce(np.array([world.rank + 1.0]), total)
    heard = []
    if comm.rank == 0:
        requests = [comm.isend(f"{name} from {world.rank} to {j}", dest=j, tag=2)
                    for j in range(comm.Get_remote_size())]
        heard.append(comm.recv(source=0, tag=2))
        MPI.Request.Waitall(requests)
    else:
        heard.append(comm.recv(source=0, tag=2))
    out.append((name, comm.Is_inter(), comm.rank, comm.size, comm.Get_remote_size(),
                comm.allgather(world.rank), total.tolist(), heard))


twin = inter.Dup()
seen("dup", twin)
seen("split", inter.Split(world.rank % 2, world.size - world.rank))
seen("split-some", inter.Split(MPI.UNDEFINED if world.rank == 1 else world.rank // 2, 0))
mine = inter.Get_group()
seen("create", inter.Create(mine.Incl(list(range(mine.size - 1, -1, -2)))))
seen("create-empty", inter.Create(mine if color == 0 else mine.Incl([])))
seen("dup-again", twin.Dup())
rows = world.gather(out, root=0)
if world.rank == 0:
    for rank, row in enumerate(rows):
        for item in row:
            print(rank, *item)

"""An intercommunicator between the even and the odd ranks: point-to-point across it, its collectives
(each group gets the other's data), Merge; only rank 0 prints."""
import numpy as np
from mpi4py import MPI

world = MPI.COMM_WORLD
color = world.rank % 2
local = world.Split(color, world.rank)
inter = local.Create_intercomm(0, world, 1 - color, tag=7)
total = np.zeros(2)
inter.Allreduce(np.array([world.rank + 1.0, 10.0]), total)
everyone = inter.allgather(world.rank)
if color == 0:
    inter.send(f"hello from {world.rank}", dest=inter.rank)
    heard = inter.recv(source=inter.rank)
else:
    heard = inter.recv(source=inter.rank)
    inter.send(f"answer from {world.rank}", dest=inter.rank)
is_root = color == 0 and local.rank == 0
root = (MPI.ROOT if is_root else MPI.PROC_NULL) if color == 0 else 0
said = inter.bcast("from the even leader" if is_root else None, root=root)
buf = np.arange(3.0) if is_root else np.zeros(3)
inter.Bcast(buf, root=root)
swapped = np.zeros(inter.Get_remote_size())
inter.Alltoall(np.arange(inter.Get_remote_size(), dtype="d") + 100 * world.rank, swapped)
gathered = inter.gather(world.rank * 2, root=root)
part = inter.scatter([f"part {j}" for j in range(inter.Get_remote_size())] if is_root else None, root=root)
largest = inter.reduce(world.rank, op=MPI.MAX, root=root)
inter.Barrier()
merged = inter.Merge(high=color == 0)
rows = world.gather((inter.Is_inter(), inter.Get_remote_size(), inter.Get_remote_group().Get_size(),
                     total.tolist(), everyone, heard, said, buf.tolist(), swapped.tolist(), gathered, part,
                     largest, merged.rank, merged.size), root=0)
if world.rank == 0:
    for row in rows:
        print(*row)

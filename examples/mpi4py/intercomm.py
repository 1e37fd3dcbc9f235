"""Intercommunicators: two groups of ranks talking to each other, then merged into one.

``COMM_WORLD`` splits into a "low" and a "high" half; ``Create_intercomm``
joins them (the leaders are local rank 0 of each half, i.e. world ranks 0
and ``size // 2``).  On an intercommunicator, ranks address the *remote*
group: local rank ``i`` of each half exchanges with remote rank ``i``
(``Get_remote_size``, ``Is_inter``), and ``bcast`` with ``MPI.ROOT`` /
``MPI.PROC_NULL`` / the remote root's rank sends from one group to the
other.  ``Merge`` turns the pair back into one intracommunicator, the low
half first.  Needs at least 2 ranks; with an odd count the high half has the
extra rank, which has no partner for the point-to-point exchange.

Run it::

    mpiexec -n 4 python examples/mpi4py/intercomm.py
    ppt exec examples/mpi4py/intercomm.py -n 4 --system edison
"""
from mpi4py import MPI

world = MPI.COMM_WORLD
rank, size = world.Get_rank(), world.Get_size()
if size < 2:
    raise SystemExit("intercomm.py needs at least 2 ranks")

half = size // 2
high = rank >= half
local = world.Split(color=int(high), key=rank)
remote_leader = 0 if high else half
inter = local.Create_intercomm(0, world, remote_leader, tag=7)
me, mine, theirs = inter.Get_rank(), inter.Get_size(), inter.Get_remote_size()
print(f"{'high' if high else 'low'} group: rank {me} of {mine}, remote group of {theirs},"
      f" is inter {inter.Is_inter()}")

# Pairwise exchange across the groups.
if me < min(mine, theirs):
    got = inter.sendrecv(f"from world rank {rank}", dest=me, source=me)
    print(f"partner says: {got}")
else:
    print("no partner in the other group")

# Broadcast from the low group's rank 0 to the whole high group.
if not high:
    root = MPI.ROOT if me == 0 else MPI.PROC_NULL
    inter.bcast({"sent by": "low leader"}, root=root)
    print("bcast: sent (or stood by) in the low group")
else:
    print(f"bcast: received {inter.bcast(None, root=0)}")

merged = inter.Merge(high=high)
print(f"merged: rank {merged.Get_rank()} of {merged.Get_size()}, sum of world ranks {merged.allreduce(rank)}")
for c in (merged, inter, local):
    c.Free()

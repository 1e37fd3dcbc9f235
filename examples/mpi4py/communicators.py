"""Communicators and groups: Dup, Split, Create, Compare, Free and group algebra.

* ``Dup``: same group, new context (``Compare`` says CONGRUENT);
* ``Split`` by colour (even/odd ranks) with a key that reverses the order,
  then collectives inside each half;
* groups: ``Get_group``, ``Incl``, ``Excl``, ``Range_incl``, ``Union``,
  ``Intersection``, ``Difference``, ``Translate_ranks``, ``Group.Compare``;
* ``Create`` a communicator from a group (ranks outside get ``COMM_NULL``);
* ``Comm.Compare``: IDENT, CONGRUENT, SIMILAR and UNEQUAL;
* ``Set_name``/``Get_name`` and ``Free`` of every handle made here.

Run it::

    mpiexec -n 4 python examples/mpi4py/communicators.py
    ppt exec examples/mpi4py/communicators.py -n 4 --system edison
"""
from mpi4py import MPI

RESULT = {MPI.IDENT: "IDENT", MPI.CONGRUENT: "CONGRUENT", MPI.SIMILAR: "SIMILAR", MPI.UNEQUAL: "UNEQUAL"}

world = MPI.COMM_WORLD
rank, size = world.Get_rank(), world.Get_size()

dup = world.Dup()
dup.Set_name("my-dup")
print(f"Dup: rank {dup.Get_rank()} size {dup.Get_size()} name {dup.Get_name()}"
      f" vs world {RESULT[MPI.Comm.Compare(world, dup)]}, self {RESULT[MPI.Comm.Compare(world, world)]}")
total = dup.allreduce(rank)
print(f"allreduce on dup: {total}")

# Split into even and odd ranks; key=-rank reverses the order inside each half.
half = world.Split(color=rank % 2, key=-rank)
print(f"Split colour {rank % 2}: rank {half.Get_rank()} of {half.Get_size()},"
      f" members {half.allgather(rank)}")

# Same members in another order: SIMILAR, unless the half has one member.
same = world.Split(color=rank % 2, key=rank)
print(f"Compare(half, reordered half): {RESULT[half.Compare(same)]}")
print(f"Compare(world, half): {RESULT[world.Compare(half)]}")

# Group algebra.
group = world.Get_group()
low = group.Range_incl([(0, (size - 1) // 2, 1)])     # first half, inclusive range
evens = group.Incl(list(range(0, size, 2)))
no_zero = group.Excl([0])
union = MPI.Group.Union(low, evens)
inter = MPI.Group.Intersection(low, evens)
diff = MPI.Group.Difference(group, evens)
nz_rank = "UNDEFINED" if no_zero.Get_rank() == MPI.UNDEFINED else no_zero.Get_rank()
print(f"groups: world {group.Get_size()}/{group.Get_rank()} low {low.Get_size()}"
      f" evens {evens.Get_size()} no_zero rank {nz_rank}"
      f" union {union.Get_size()} inter {inter.Get_size()} diff {diff.Get_size()}")
print(f"Translate_ranks(evens -> world): "
      f"{MPI.Group.Translate_ranks(evens, list(range(evens.Get_size())), group)}")
print(f"Group.Compare(world, world) {RESULT[MPI.Group.Compare(group, group)]},"
      f" (evens, world) {RESULT[MPI.Group.Compare(evens, group)]}")

# Create a communicator of the even ranks; the others get COMM_NULL.
even_comm = world.Create(evens)
if even_comm != MPI.COMM_NULL:
    print(f"Create: in even_comm as {even_comm.Get_rank()} of {even_comm.Get_size()},"
          f" sum of world ranks {even_comm.allreduce(rank)}")
    even_comm.Free()
else:
    print("Create: not a member (COMM_NULL)")

for g in (low, evens, no_zero, union, inter, diff, group):
    g.Free()
for c in (dup, half, same):
    c.Free()

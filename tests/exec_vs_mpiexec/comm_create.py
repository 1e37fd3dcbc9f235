"""Clone, Dup_with_info, Idup, Idup_with_info and Create_group on the world and on a Cartesian communicator:
each new communicator's kind, ranks and sizes, a collective on it, and a message on it that a receive of any
tag on the parent must not take; Create_group over the even ranks (the odd ones do not call it) and over
the last rank alone (the others get COMM_NULL).  Only rank 0 prints."""
from mpi4py import MPI

world = MPI.COMM_WORLD
out = []


def seen(name, comm, parent):
    """What this rank sees of ``comm``, made from ``parent``: whether it is an intra-communicator and Cartesian,
    its rank and size, the world ranks of its members, and what a receive of any source and tag takes on each
    after this rank sent itself a message on the new one, then on the parent."""
    if comm == MPI.COMM_NULL:
        out.append((name, "COMM_NULL"))
        return
    sent = [comm.isend(f"{name} on the new one", dest=comm.rank, tag=1),
            parent.isend(f"{name} on the parent", dest=parent.rank, tag=1)]
    heard = (parent.recv(source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG), comm.recv(source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG))
    MPI.Request.Waitall(sent)
    out.append((name, comm.Is_intra(), comm.Get_topology() == MPI.CART, comm.rank, comm.size,
                comm.allgather(world.rank), heard))


def waited(made):
    """The communicator of an Idup, once its request is complete."""
    comm, request = made
    request.Wait()
    return comm


cart = world.Create_cart([world.size], periods=[True])
for kind, parent in (("world", world), ("cart", cart)):
    seen(f"{kind}.Clone", parent.Clone(), parent)
    seen(f"{kind}.Dup_with_info", parent.Dup_with_info(MPI.INFO_NULL), parent)
    seen(f"{kind}.Idup", waited(parent.Idup()), parent)
    seen(f"{kind}.Idup_with_info", waited(parent.Idup_with_info(MPI.INFO_NULL)), parent)
evens = world.Get_group().Incl(list(range(0, world.size, 2)))
if world.rank % 2 == 0:
    seen("Create_group(evens)", world.Create_group(evens, tag=3), world)
last = world.Get_group().Incl([world.size - 1])
seen("Create_group(last)", world.Create_group(last), world)
rows = world.gather(out, root=0)
if world.rank == 0:
    for rank, row in enumerate(rows):
        for item in row:
            print(rank, *item)

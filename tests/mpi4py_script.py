"""A rank program written only in mpi4py's spellings: it runs on mpi4py and on PPT's simulated MPI.

On mpi4py: ``mpiexec -n 4 python tests/mpi4py_script.py`` prints rank 0's JSON
list of every rank's result; on PPT: ``MPIJob(...).run(main)``.
"""
import json

import numpy as np


def main(MPI):
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    out = {"size": size, "t": MPI.Wtime() >= 0.0}
    if rank == 0:
        comm.Send([np.arange(4, dtype="d"), MPI.DOUBLE], dest=1, tag=7)
    elif rank == 1:
        buf, status = np.zeros(4), MPI.Status()
        comm.Recv([buf, MPI.DOUBLE], source=0, tag=7, status=status)
        out["recv"] = [buf.tolist(), status.Get_source(), status.Get_tag(), status.Get_count(MPI.DOUBLE)]
    got = np.zeros(1, dtype="i")
    requests = [comm.Irecv(got, source=(rank - 1) % size, tag=1),
                comm.Isend(np.array([rank], dtype="i"), dest=(rank + 1) % size, tag=1)]
    MPI.Request.Waitall(requests)
    back = np.zeros(2)
    comm.Sendrecv(np.array([rank, -rank], dtype="d"), (rank + 1) % size, 2, back, (rank - 1) % size, 2)
    out["p2p"] = [int(got[0]), back.tolist()]
    bcast = np.array([42.0]) if rank == 0 else np.zeros(1)
    comm.Bcast(bcast, root=0)
    total, biggest, inplace = np.zeros(1), np.zeros(1), np.array([2.0 * rank])
    comm.Allreduce(np.array([float(rank)]), total, op=MPI.SUM)
    comm.Reduce(np.array([rank + 1.0]), biggest, op=MPI.MAX, root=0)
    comm.Allreduce(MPI.IN_PLACE, inplace, op=MPI.SUM)
    comm.Barrier()
    out["coll"] = [bcast[0], total[0], biggest[0], inplace[0]]
    half = comm.Split(color=rank % 2, key=-rank)
    dup = comm.Dup()
    group = comm.Get_group()
    evens, rest = group.Incl([0, 2]), group.Excl([0])
    cart = comm.Create_cart([2, 2], periods=[True, False], reorder=False)
    shift = cart.Shift(1, 1)
    out["comms"] = [half.Get_rank(), half.Get_size(), dup.Get_size(), group.Get_size(), group.Get_rank(),
                    evens.Get_size(), rest.Get_size(), rest.Translate_ranks([0], group)[0],
                    cart.Get_dim(), list(cart.Get_coords(rank)), cart.Get_cart_rank([1, 1]),
                    [r if r != MPI.PROC_NULL else "null" for r in shift]]
    for handle in (half, dup, cart, evens, rest, group):
        handle.Free()
    return out


if __name__ == "__main__":
    from mpi4py import MPI
    results = MPI.COMM_WORLD.gather(main(MPI), root=0)
    if MPI.COMM_WORLD.Get_rank() == 0:
        print(json.dumps(results))

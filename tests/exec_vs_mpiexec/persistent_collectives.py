"""Persistent collectives (MPI 4.0 6.13): each set up once, started three times with new contents in its send
buffers, by Start, Startall, Wait, Waitall and a Test loop; on the world, on a periodic Cartesian ring (the
neighbourhood ones) and on an intercommunicator between the last rank and the rest.  Only rank 0 prints."""
import numpy as np
from mpi4py import MPI

world = MPI.COMM_WORLD
rank, size = world.rank, world.size
x, total, top = np.zeros(3), np.zeros(3), np.zeros(3)
scanned, exscanned = np.zeros(3), np.full(3, -1.0)
bcast = np.zeros(2)
gathered, everyone = np.zeros(2 * size), np.zeros(2 * size)
counts = [r + 1 for r in range(size)]
mine = np.zeros(rank + 1)
varied, everyone_v = np.zeros(sum(counts)), np.zeros(sum(counts))
spread, scattered = np.zeros(sum(counts)), np.zeros(2 * size)
part, pair = np.zeros(rank + 1), np.zeros(2)
outgoing, swapped = np.zeros(size), np.zeros(size)
sendc = [rank + 1] * size                                    # to each rank, my rank + 1 items
recvc = [r + 1 for r in range(size)]                         # from rank r, r + 1 items
sent_v, swapped_v = np.zeros(sum(sendc)), np.zeros(sum(recvc))
sent_w, swapped_w = np.zeros(size, dtype="i"), np.zeros(size, dtype="i")
wspec = [1] * size, [4 * r for r in range(size)], [MPI.INT] * size
block, rs_part = np.zeros(1), np.zeros(rank + 1)
vector = np.zeros(size)
rs_vector = np.zeros(sum(counts))
requests = [world.Barrier_init(), world.Bcast_init(bcast, root=size - 1), world.Reduce_init(x, top, MPI.MAX, 0),
            world.Allreduce_init(x, total), world.Gather_init(x[:2], gathered, root=0),
            world.Gatherv_init(mine, [varied, counts, MPI.DOUBLE], root=size - 1),
            world.Scatter_init(scattered, pair, root=0),
            world.Scatterv_init([spread, counts, MPI.DOUBLE], part, root=size - 1),
            world.Allgather_init(x[:2], everyone), world.Allgatherv_init(mine, [everyone_v, counts, MPI.DOUBLE]),
            world.Alltoall_init(outgoing, swapped),
            world.Alltoallv_init([sent_v, sendc, MPI.DOUBLE], [swapped_v, recvc, MPI.DOUBLE]),
            world.Alltoallw_init([sent_w, *wspec], [swapped_w, *wspec]),
            world.Reduce_scatter_block_init(vector, block, MPI.SUM),
            world.Reduce_scatter_init(rs_vector, rs_part, counts, MPI.MAX),
            world.Scan_init(x, scanned), world.Exscan_init(x, exscanned)]
ring = world.Create_cart([size], periods=[True])
left_right, nb_gathered = np.zeros(2), np.zeros(2)
nb_swapped, nb_varied = np.zeros(2), np.zeros(3)
nb_w, nb_w_sent = np.zeros(2, dtype="i"), np.zeros(2, dtype="i")
neighbours = [ring.Neighbor_allgather_init(left_right[:1], nb_gathered),
              ring.Neighbor_allgatherv_init(left_right[:1], [nb_varied[:2], [1, 1], [0, 1], MPI.DOUBLE]),
              ring.Neighbor_alltoall_init(left_right, nb_swapped),
              ring.Neighbor_alltoallv_init([left_right, [1, 1], [0, 1], MPI.DOUBLE],
                                           [nb_varied, [1, 1], [0, 2], MPI.DOUBLE]),
              ring.Neighbor_alltoallw_init([nb_w_sent, ([1, 1], [0, 4]), [MPI.INT] * 2],
                                           [nb_w, ([1, 1], [0, 4]), [MPI.INT] * 2])]
out = [("active before a start", [bool(r) for r in requests[:2]])]
for round_ in range(3):
    x[:] = np.arange(3.0) + 10 * rank + 100 * round_
    if rank == size - 1:
        bcast[:] = [round_, -round_]
    mine[:] = rank + round_ / 10
    spread[:] = np.arange(float(sum(counts))) + 1000 * round_
    scattered[:] = np.arange(2.0 * size) - 1000 * round_
    outgoing[:] = np.arange(size) + 10 * rank + 100 * round_
    sent_v[:] = np.arange(float(sum(sendc))) + 100 * rank + 1000 * round_
    sent_w[:] = np.arange(size) * 3 + rank + 7 * round_
    vector[:] = np.arange(float(size)) + rank + round_
    rs_vector[:] = np.arange(float(sum(counts))) * (rank + 1) - round_
    left_right[:] = [rank + round_ / 4, -rank - round_ / 4]
    nb_w_sent[:] = [rank + 10 * round_, -rank - 10 * round_]
    if round_ == 0:
        for request in requests + neighbours:
            request.Start()
        MPI.Request.Waitall(requests + neighbours)
    elif round_ == 1:
        MPI.Prequest.Startall(requests)
        for request in requests:
            request.Wait()
        MPI.Prequest.Startall(neighbours)
        for request in neighbours:          # not Testall: this MPICH's fails on persistent collectives
            while not request.Test():
                pass
    else:
        MPI.Prequest.Startall(requests + neighbours)
        while not all(request.Test() for request in requests + neighbours):
            pass
    got = (bcast, top, total, gathered, varied, pair, part, everyone, everyone_v, swapped, swapped_v, swapped_w,
           block, rs_part, scanned, exscanned, nb_gathered, nb_varied, nb_swapped, nb_w)
    out.append((round_, [a.tolist() for a in got]))

# an intercommunicator between the last rank and the rest (no group of two ranks: this MPICH's intercommunicator
# Ibcast hangs with one)
inter_requests = []
if size != 3:
    color = int(rank == size - 1)
    inter = world.Split(color, rank).Create_intercomm(0, world, size - 1 if color == 0 else 0, tag=6)
    remote = inter.Get_remote_size()
    mixed, inter_all = np.zeros(1), np.zeros(remote)
    inter_bcast = np.zeros(2)
    leader_root = (MPI.ROOT if inter.rank == 0 else MPI.PROC_NULL) if color == 0 else 0
    inter_requests = [inter.Allreduce_init(x[:1], mixed), inter.Allgather_init(x[:1], inter_all),
                      inter.Bcast_init(inter_bcast, root=leader_root), inter.Barrier_init()]
    for round_ in range(2):
        x[:] = rank + 10 * round_
        inter_bcast[:] = [round_, 5.0] if leader_root == MPI.ROOT else [-1.0, -1.0]
        MPI.Prequest.Startall(inter_requests)
        MPI.Request.Waitall(inter_requests)
        out.append(("inter", round_, mixed.tolist(), inter_all.tolist(), inter_bcast.tolist()))
    out.append(("no scan between groups", hasattr(inter, "Scan_init"), hasattr(inter, "Exscan_init")))
for request in requests + neighbours + inter_requests:
    request.Free()
out.append(("freed", [bool(r) for r in requests[:2]], requests[0] == MPI.REQUEST_NULL))
rows = world.gather(out, root=0)
if rank == 0:
    for r, row in enumerate(rows):
        for item in row:
            print(r, *item)

"""Neighbor_alltoallw and Ineighbor_alltoallw on Cartesian (periodic and not), graph and distributed-graph
communicators, each neighbour's block its own count, byte displacement and datatype; and Alltoallw on the
world.  Only rank 0 prints."""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size
KINDS = [MPI.INT32_T, MPI.DOUBLE, MPI.INT16_T]
SIZES = [4, 8, 2]


def exchange(topo, start, slots):
    """Block j to out-neighbour j: j + 1 items of KINDS[j % 3] in a 16-byte slot; from in-neighbour i, the
    block it sent to its out-neighbour ``slots[i]`` (which gives the receive type and count).  The received
    blocks as lists (the byte left as it was where the in-neighbour is PROC_NULL)."""
    sources, dests = topo.inedges, topo.outedges
    send = np.zeros(16 * max(len(dests), 1), np.uint8)
    for j in range(len(dests)):
        values = (np.arange(j + 1) + 10 * rank + 100 * j).astype(np.dtype(KINDS[j % 3].typestr))
        send[16 * j:16 * j + values.nbytes] = values.view(np.uint8)
    recv = np.full(16 * max(len(sources), 1), 255, np.uint8)
    sendspec = [send, [j + 1 for j in range(len(dests))], [16 * j for j in range(len(dests))],
                [KINDS[j % 3] for j in range(len(dests))]]
    recvspec = [recv, ([k + 1 for k in slots], [16 * i for i in range(len(sources))]), [KINDS[k % 3] for k in slots]]
    if start:
        topo.Ineighbor_alltoallw(sendspec, recvspec).Wait()
    else:
        topo.Neighbor_alltoallw(sendspec, recvspec)
    return [recv[16 * i:16 * i + (k + 1) * SIZES[k % 3]].view(np.dtype(KINDS[k % 3].typestr)).tolist()
            if s >= 0 else int(recv[16 * i]) for i, (s, k) in enumerate(zip(sources, slots))]


cart = comm.Create_cart([size], periods=[False])
torus = comm.Create_cart([2, size // 2], periods=[True, False])
ring = [[(r - 1) % size, (r + 1) % size] for r in range(size)]            # symmetric, as MPI_Graph needs
graph = comm.Create_graph([2 * (r + 1) for r in range(size)], sum(ring, []))
skip = [[(r + 1) % size, (r + 2) % size] for r in range(size)]
dist = comm.Create_dist_graph_adjacent([r for r in range(size) if rank in skip[r]], skip[rank])
# a Cartesian in-neighbour one step down sent this rank its block for one step up, and the other way round
pairs = [(cart, [1, 0]), (torus, [1, 0, 3, 2]), (graph, [ring[s].index(rank) for s in graph.inedges]),
         (dist, [skip[s].index(rank) for s in dist.inedges])]
rows = [[exchange(topo, start, slots) for start in (False, True)] for topo, slots in pairs]
sendc = [j + 1 for j in range(size)]
sendd = [16 * j for j in range(size)]
send = np.zeros(16 * size, np.uint8)
for j in range(size):
    values = (np.arange(j + 1) + 10 * rank).astype(np.dtype(KINDS[j % 3].typestr))
    send[16 * j:16 * j + values.nbytes] = values.view(np.uint8)
recv = np.zeros(16 * size, np.uint8)
kind = KINDS[rank % 3]
comm.Alltoallw([send, sendc, sendd, [KINDS[j % 3] for j in range(size)]],
               [recv, [rank + 1] * size, sendd, [kind] * size])
rows.append([recv[16 * i:16 * i + (rank + 1) * SIZES[rank % 3]].view(np.dtype(kind.typestr)).tolist()
             for i in range(size)])
gathered = comm.gather(rows, root=0)
if rank == 0:
    for r, row in enumerate(gathered):
        for item in row:
            print(r, item)

"""Cartesian, graph and distributed-graph neighbourhood collectives; only rank 0 prints."""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size
cart = comm.Create_cart([size], periods=[False])
line = np.full(2, -1.0)
cart.Neighbor_allgather(np.array([float(rank)]), line)
graph = comm.Create_graph([1, 2], [1, 0])
objects = graph.neighbor_allgather({"from": rank})
other = (rank + 1) % size
dist = comm.Create_dist_graph_adjacent([other], [other])
swapped = np.zeros(1)
dist.Ineighbor_alltoall(np.array([100.0 + rank]), swapped).Wait()
rows = comm.gather((line.tolist(), objects, swapped.tolist()), root=0)
if rank == 0:
    print("topologies", cart.Get_topology() == MPI.CART, graph.Get_topology() == MPI.GRAPH,
          dist.Get_topology() == MPI.DIST_GRAPH)
    print("neighbours", cart.inedges, graph.Get_neighbors(0), dist.Get_dist_neighbors())
    print("exchanged", rows)

"""Distributed graph topology and neighbourhood collectives: a halo exchange without listing messages.

Each rank declares who it receives from and sends to with
``Create_dist_graph_adjacent`` (a ring with a skip: neighbours at distance 1
and 2 on both sides), reads them back with ``Get_dist_neighbors``
(``Get_dist_neighbors_count``), then exchanges with all of them in one call:
``Neighbor_allgather`` (one value from each source), ``Neighbor_alltoall``
(a different value to each destination) and the lowercase
``neighbor_allgather`` of Python objects.  Needs at least 5 ranks for the
four neighbours to differ; with fewer, neighbours repeat (MPI allows it).

Run it::

    mpiexec -n 6 python examples/mpi4py/graph_neighbors.py
    ppt exec examples/mpi4py/graph_neighbors.py -n 6 --system edison
"""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
offsets = (-2, -1, 1, 2)
sources = [(rank + d) % size for d in offsets]
destinations = [(rank - d) % size for d in offsets]     # whoever lists me as its source at offset d

graph = comm.Create_dist_graph_adjacent(sources, destinations, reorder=False)
indegree, outdegree, weighted = graph.Get_dist_neighbors_count()
ins, outs, _ = graph.Get_dist_neighbors()
print(f"in {indegree} {list(ins)} out {outdegree} {list(outs)} weighted {weighted}"
      f" is dist graph {graph.Get_topology() == MPI.DIST_GRAPH}")

gathered = np.zeros(len(sources), dtype="i")
graph.Neighbor_allgather(np.array([100 + rank], dtype="i"), gathered)
print(f"Neighbor_allgather: {gathered.tolist()}")

send = np.array([10 * rank + k for k in range(len(destinations))], dtype="i")
recv = np.zeros(len(sources), dtype="i")
graph.Neighbor_alltoall(send, recv)
print(f"Neighbor_alltoall: {recv.tolist()}")

print(f"neighbor_allgather: {graph.neighbor_allgather(chr(ord('a') + rank))}")
graph.Free()

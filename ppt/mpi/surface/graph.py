"""Graph and distributed-graph communicators (MPI_Graph_create, MPI_Dist_graph_create(_adjacent)): their
neighbours, as the neighbourhood collectives (:mod:`ppt.mpi.surface.neighbor`) read them (``inedges``,
``outedges``, ranks of the communicator)."""
from __future__ import annotations

from ppt.mpi.constants import DIST_GRAPH, GRAPH
from ppt.mpi.surface.comm import KINDS, Comm
from ppt.mpi.surface.names import mpi4py_names


@mpi4py_names
class Graphcomm(Comm):
    """A communicator with a graph topology: node i's neighbours are ``edges[index[i-1]:index[i]]``
    (``index[-1]`` taken as 0), the same in both directions."""

    __slots__ = ("graph_index", "edges")

    def __init__(self, rank, members, index, comm_id, name, graph_index, edges):
        super().__init__(rank, members, index, comm_id, name)
        self.graph_index, self.edges = list(graph_index), list(edges)

    topology, is_topo = GRAPH, True

    @property
    def topo(self) -> tuple[list, list]:
        """``(index, edges)`` (MPI_Graph_get)."""
        return list(self.graph_index), list(self.edges)

    @property
    def dims(self) -> tuple[int, int]:
        """``(nnodes, nedges)`` (MPI_Graphdims_get)."""
        return len(self.graph_index), len(self.edges)

    def neighbors_of(self, rank: int) -> list:
        """Node ``rank``'s neighbours (MPI_Graph_neighbors)."""
        if not 0 <= rank < self.size:
            raise self._rank.error(f"rank {rank} is out of range for {self.label} of size {self.size}")
        start = self.graph_index[rank - 1] if rank else 0
        return self.edges[start:self.graph_index[rank]]

    def neighbors_count(self, rank: int) -> int:
        return len(self.neighbors_of(rank))

    @property
    def neighbors(self) -> list:
        return self.neighbors_of(self.rank)

    @property
    def inedges(self) -> list:
        return self.neighbors

    outedges = inedges


@mpi4py_names
class Distgraphcomm(Comm):
    """A communicator with a distributed graph topology: each rank knows its in-neighbours (``sources``) and
    out-neighbours (``destinations``), and their weights if given."""

    __slots__ = ("sources", "destinations", "weights")

    def __init__(self, rank, members, index, comm_id, name, sources, destinations, weights):
        super().__init__(rank, members, index, comm_id, name)
        self.sources, self.destinations = list(sources), list(destinations)
        #: ``(sourceweights, destweights)``, or None for an unweighted graph.
        self.weights = weights

    topology, is_topo = DIST_GRAPH, True

    @property
    def inedges(self) -> list:
        return list(self.sources)

    @property
    def outedges(self) -> list:
        return list(self.destinations)

    def dist_neighbors(self) -> tuple:
        """``(sources, destinations, weights)`` (MPI_Dist_graph_neighbors; weights None if unweighted)."""
        return self.inedges, self.outedges, self.weights

    def dist_neighbors_count(self) -> tuple[int, int, bool]:
        """``(indegree, outdegree, weighted)``."""
        return len(self.sources), len(self.destinations), self.weights is not None


KINDS["graph"] = Graphcomm
KINDS["dist_graph"] = Distgraphcomm

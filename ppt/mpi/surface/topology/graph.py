"""Graph and distributed-graph communicators (MPI_Graph_create, MPI_Dist_graph_create(_adjacent)): their
neighbours, as the neighbourhood collectives (:mod:`ppt.mpi.surface.topology.neighbor`) read them (``inedges``,
``outedges``, ranks of the communicator)."""
from __future__ import annotations

from ppt.mpi.constants import DIST_GRAPH, GRAPH
from ppt.mpi.surface.core.calls import mpi_call
from ppt.mpi.surface.communicators.comm import INT_B, Comm


class Graphcomm(Comm):
    """A communicator with a graph topology: node i's neighbours are ``edges[index[i-1]:index[i]]``
    (``index[-1]`` taken as 0), the same in both directions."""

    __slots__ = ("graph_index", "edges")

    def __init__(self, rank, members, index, comm_id, name, graph_index, edges):
        super().__init__(rank, members, index, comm_id, name)
        self.graph_index, self.edges = list(graph_index), list(edges)

    topology, is_topo = GRAPH, True

    def _topology(self) -> dict:
        return {"graph_index": self.graph_index, "edges": self.edges}

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

    def _topology(self) -> dict:
        return {"sources": self.sources, "destinations": self.destinations, "weights": self.weights}

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


@mpi_call("MPI_Graph_create")
def graph_create(self, index, edges, reorder: bool = False):
    """A graph communicator over the first ``len(index)`` ranks (:class:`Graphcomm`);
    None on the others."""
    index, edges = [int(i) for i in index], [int(e) for e in edges]
    nnodes = len(index)
    if nnodes > self.size or index != sorted(index) or (index and index[-1] != len(edges)) \
            or any(not 0 <= e < nnodes for e in edges):
        raise self._rank.error(f"bad graph index={index} edges={edges} for {self.label} of size {self.size}")
    comm_id = self._new_id(self._agree())
    if self.rank >= nnodes:
        return None
    return self._make(list(self.members[:nnodes]), comm_id, "graph", Graphcomm, graph_index=index,
                      edges=edges)


@mpi_call("MPI_Dist_graph_create_adjacent")
def dist_graph_create_adjacent(self, sources, destinations, sourceweights=None, destweights=None, info=None,
                               reorder: bool = False):
    """A distributed graph communicator of this rank's in- and out-neighbours (ranks here)."""
    sources, destinations = [int(r) for r in sources], [int(r) for r in destinations]
    for peer in sources + destinations:
        self._check_peer(peer, "neighbour", False)
    weights = None if sourceweights is None else (list(sourceweights), list(destweights))
    comm_id = self._new_id(self._agree())
    return self._make(self.members, comm_id, "dist_graph", Distgraphcomm, sources=sources,
                      destinations=destinations, weights=weights)


@mpi_call("MPI_Dist_graph_create")
def dist_graph_create(self, sources, degrees, destinations, weights=None, info=None, reorder: bool = False):
    """A distributed graph communicator from edges any rank may name: ``degrees[i]`` edges from
    ``sources[i]`` to the next entries of ``destinations``.  Every rank's edges are gathered (one
    allgather); a rank's neighbours come in the order of the ranks that named them, then of their lists."""
    ends = iter(zip(destinations, weights if weights is not None else [None] * len(destinations)))
    edges = [(int(s), int(d), w) for s, n in zip(sources, degrees) for d, w in (next(ends) for _ in range(n))]
    everyone = self._allgather((edges, self._rank.next_ctx), (3 * len(edges) + 1) * INT_B, None, None)
    comm_id = self._new_id(max(ctx for _, ctx in everyone))
    ins = [(s, w) for part, _ in everyone for s, d, w in part if d == self.rank]
    outs = [(d, w) for part, _ in everyone for s, d, w in part if s == self.rank]
    weights = None if weights is None else ([w for _, w in ins], [w for _, w in outs])
    return self._make(self.members, comm_id, "dist_graph", Distgraphcomm,
                      sources=[s for s, _ in ins], destinations=[d for d, _ in outs], weights=weights)


#: Comm's calls that make graph communicators, by their PEP 8 and their mpi4py names.
COMM = {"graph_create": graph_create, "Create_graph": graph_create,
        "dist_graph_create_adjacent": dist_graph_create_adjacent,
        "Create_dist_graph_adjacent": dist_graph_create_adjacent,
        "dist_graph_create": dist_graph_create, "Create_dist_graph": dist_graph_create}

"""Graph and distributed-graph communicators and the neighbourhood collectives on them and on Cartesian
ones: neighbours in MPI's order (per dimension one step down, then up; a graph's in its edge list), data
by closed forms, time as one step of eager messages, overlapped with computation when nonblocking."""
import numpy as np
import pytest

from mpi_helpers import message_s, run


def test_cartesian_neighbours_are_per_dimension_down_then_up_and_proc_null_blocks_are_left_alone():
    def main(MPI):
        cart = MPI.COMM_WORLD.Create_cart([2, 3], periods=[False, True])
        got = np.full(4, -1.0)
        cart.Neighbor_allgather(np.array([float(cart.rank)]), got)
        assert cart.degrees == (cart.indegree, cart.outdegree) == (4, 4) and cart.inoutedges[1] == cart.outedges
        return cart.inedges, got.tolist(), cart.neighbor_allgather(cart.rank)

    results = run(6, main).returns
    assert results == run(6, main).returns
    for rank, (edges, got, objects) in enumerate(results):
        row, col = divmod(rank, 3)
        expected = [rank - 3 if row else -1, rank + 3 if row == 0 else -1,
                    3 * row + (col - 1) % 3, 3 * row + (col + 1) % 3]
        assert edges == expected
        assert got == [float(e) for e in expected]            # -1.0: the PROC_NULL block as it was
        assert objects == [None if e < 0 else e for e in expected]


def test_graph_and_distributed_graph_neighbours_and_alltoall_as_declared():
    def main(MPI):
        comm = MPI.COMM_WORLD
        rank, size = comm.rank, comm.size
        ring = comm.Create_graph([2 * (i + 1) for i in range(size)],
                                 [e for i in range(size) for e in ((i - 1) % size, (i + 1) % size)])
        adjacent = comm.Create_dist_graph_adjacent([(rank - 1) % size, (rank - 2) % size],
                                                   [(rank + 1) % size, (rank + 2) % size])
        declared = comm.Create_dist_graph([rank], [1], [(rank + 2) % size], [5])
        sent = adjacent.neighbor_alltoall([f"{rank}>{(rank + 1) % size}", f"{rank}>{(rank + 2) % size}"])
        into = np.zeros(2)
        ring.Neighbor_alltoall(np.array([10.0 * rank, 10.0 * rank + 1]), into)
        assert (adjacent.indegree, adjacent.outdegree, ring.nneighbors, ring.Get_dims()) == (2, 2, 2, (size, 2 * size))
        return (ring.Get_topology() == MPI.GRAPH, ring.Get_neighbors(rank), adjacent.Get_dist_neighbors(),
                declared.Get_dist_neighbors(), declared.Get_dist_neighbors_count(), sent, into.tolist())

    for rank, (is_graph, ring, adjacent, declared, count, sent, into) in enumerate(run(4, main).returns):
        down, up = (rank - 1) % 4, (rank + 1) % 4
        assert is_graph and ring == [down, up]
        assert adjacent == ([down, (rank - 2) % 4], [up, (rank + 2) % 4], None)
        assert declared == ([(rank + 2) % 4], [(rank + 2) % 4], ([5], [5])) and count == (1, 1, True)
        assert sent == [f"{down}>{rank}", f"{(rank - 2) % 4}>{rank}"]      # the blocks addressed here
        assert into == [10.0 * down + 1, 10.0 * up]          # down's block for its up, up's for its down


@pytest.mark.parametrize("compute_s", [0.0, 1e-6, 1e-5])
def test_a_neighbourhood_collective_is_one_step_of_messages_and_overlaps_when_nonblocking(compute_s):
    def main(MPI, nonblocking):
        cart = MPI.COMM_WORLD.Create_cart([4], periods=[True])
        x, y = np.zeros(125), np.zeros(250)              # 1,000 B to each neighbour: eager
        start = MPI.Wtime()
        if nonblocking:
            request = cart.Ineighbor_allgather(x, y)
            MPI.compute(compute_s)
            request.Wait()
        else:
            cart.Neighbor_allgather(x, y)
            MPI.compute(compute_s)
        return MPI.Wtime() - start

    one = message_s(1000)
    assert run(4, main, False).returns == pytest.approx([one + compute_s] * 4, rel=1e-12)
    assert run(4, main, True).returns == pytest.approx([max(one, compute_s)] * 4, rel=1e-12)


def test_a_neighbor_alltoallw_is_one_step_of_its_blocks_and_a_periodic_pair_swaps_down_and_up():
    def main(MPI):
        cart = MPI.COMM_WORLD.Create_cart([2], periods=[True])   # both neighbours are the other rank
        send = np.zeros(16, np.uint8)
        send[:4] = np.frombuffer(np.int32(7 + cart.rank).tobytes(), np.uint8)            # down: 4 B
        send[8:16] = np.frombuffer(np.float64(0.5 + cart.rank).tobytes(), np.uint8)      # up: 8 B
        recv = np.zeros(16, np.uint8)
        start = MPI.Wtime()
        cart.Neighbor_alltoallw([send, [1, 1], [0, 8], [MPI.INT32_T, MPI.DOUBLE]],
                                [recv, [1, 1], [0, 8], [MPI.DOUBLE, MPI.INT32_T]])
        took = MPI.Wtime() - start
        return took, recv[:8].view(np.float64)[0], int(recv[8:12].view(np.int32)[0])

    # from down, what the neighbour sent up; from up, what it sent down; the 4 and 8 B messages at once
    assert run(2, main).returns == [(pytest.approx(message_s(8), rel=1e-12), 1.5, 8),
                                    (pytest.approx(message_s(8), rel=1e-12), 0.5, 7)]

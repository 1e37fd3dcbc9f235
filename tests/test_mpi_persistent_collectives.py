"""Persistent collectives (MPI 4.0 6.13: ``Allreduce_init`` ... and ``Start``): each start moves what the
buffers hold then, as the nonblocking collective of the same arguments would, in the same time; a wait or
test retires the request to inactive, to be started again; starting an active one or a freed one is an
MPI error."""
import numpy as np
import pytest

from mpi_helpers import message_s, run
from ppt.mpi import MPIError


def _world_calls(MPI, x, out):
    """The world's collectives as ``(name, args, kwargs)``: send buffers ``x``-based, receive buffers in ``out``."""
    comm = MPI.COMM_WORLD
    rank, size = comm.rank, comm.size
    counts = [r + 1 for r in range(size)]
    out.update(bcast=np.zeros(2), top=np.zeros(2), total=np.zeros(2), gathered=np.zeros(2 * size),
               varied=np.zeros(sum(counts)), pair=np.zeros(2), part=np.zeros(rank + 1), every=np.zeros(2 * size),
               every_v=np.zeros(sum(counts)), swapped=np.zeros(2 * size), swapped_v=np.zeros(sum(counts)),
               swapped_w=np.zeros(2 * size), block=np.zeros(2), rs_part=np.zeros(rank + 1), scanned=np.zeros(2),
               exscanned=np.full(2, -1.0))
    mine = x[:rank + 1]
    return [("Barrier", (), {}), ("Bcast", (out["bcast"],), {"root": size - 1}),
            ("Reduce", (x[:2], out["top"], MPI.MAX), {"root": 1}), ("Allreduce", (x[:2], out["total"]), {}),
            ("Gather", (x[:2], out["gathered"]), {"root": 0}),
            ("Gatherv", (mine, [out["varied"], counts, MPI.DOUBLE]), {"root": 1}),
            ("Scatter", (x[:2 * size], out["pair"]), {"root": 0}),
            ("Scatterv", ([x[:sum(counts)], counts, MPI.DOUBLE], out["part"]), {"root": 1}),
            ("Allgather", (x[:2], out["every"]), {}),
            ("Allgatherv", (mine, [out["every_v"], counts, MPI.DOUBLE]), {}),
            ("Alltoall", (x[:2 * size], out["swapped"]), {}),
            ("Alltoallv", ([x[:size * (rank + 1)], [rank + 1] * size, MPI.DOUBLE],
                           [out["swapped_v"], counts, MPI.DOUBLE]), {}),
            ("Alltoallw", ([x[:2 * size], [2] * size, [16 * j for j in range(size)], [MPI.DOUBLE] * size],
                           [out["swapped_w"], [2] * size, [16 * j for j in range(size)], [MPI.DOUBLE] * size]), {}),
            ("Reduce_scatter_block", (x[:2 * size], out["block"]), {}),
            ("Reduce_scatter", (x[:sum(counts)], out["rs_part"], counts, MPI.MAX), {}),
            ("Scan", (x[:2], out["scanned"]), {}), ("Exscan", (x[:2], out["exscanned"]), {})]


def _every_collective(MPI, persistent: bool):
    """Three rounds of every world collective on new send-buffer contents, by persistent requests (started
    one by one, by Startall, and waited for by Wait, Waitall, a Test loop) or by the nonblocking calls; each
    round's receive buffers and this rank's clock."""
    comm = MPI.COMM_WORLD
    x, out = np.zeros(4 * comm.size * comm.size), {}
    calls = _world_calls(MPI, x, out)
    if persistent:
        requests = [getattr(comm, f"{name}_init")(*args, **kw) for name, args, kw in calls]
    rounds = []
    for round_ in range(3):
        x[:] = np.arange(x.size) * (comm.rank + 1) + 100 * round_
        if comm.rank == comm.size - 1:
            out["bcast"][:] = [round_, -round_]
        if not persistent:
            requests = [getattr(comm, f"I{name.lower()}")(*args, **kw) for name, args, kw in calls]
        elif round_ == 1:
            MPI.Prequest.Startall(requests)
        else:
            for request in requests:
                request.Start()
        if round_ == 2:
            while not all(request.Test() for request in requests):
                pass
        else:
            MPI.Request.Waitall(requests)
        rounds.append(({key: buf.tolist() for key, buf in out.items()}, MPI.Wtime()))
    return rounds


@pytest.mark.parametrize("ranks", [2, 3, 5])
def test_every_persistent_collective_gives_what_its_nonblocking_form_gives_at_each_start(ranks):
    started, called = run(ranks, _every_collective, True), run(ranks, _every_collective, False)
    assert started.returns == called.returns and started.predicted_s == called.predicted_s
    first, second = started.returns[0][0][0], started.returns[0][1][0]
    assert first["total"] != second["total"]                     # each start took the buffers' new contents
    assert second["total"] == [sum((r + 1) * j + 100 for r in range(ranks)) for j in range(2)]
    assert [rounds[1][0]["bcast"] for rounds in started.returns] == [[1.0, -1.0]] * ranks


def test_persistent_neighbourhood_collectives_on_a_ring():
    def main(MPI, persistent):
        ring = MPI.COMM_WORLD.Create_cart([MPI.COMM_WORLD.size], periods=[True])
        mine, got, swapped = np.zeros(2), np.zeros(2), np.zeros(2)
        calls = [("Neighbor_allgather", mine[:1], got), ("Neighbor_alltoall", mine, swapped)]
        if persistent:
            requests = [getattr(ring, f"{name}_init")(send, into) for name, send, into in calls]
        rounds = []
        for round_ in range(2):
            mine[:] = [ring.rank + round_ / 2, -ring.rank]
            if persistent:
                MPI.Prequest.Startall(requests)
            else:
                requests = [getattr(ring, f"I{name.lower()}")(send, into) for name, send, into in calls]
            MPI.Request.Waitall(requests)
            rounds.append((got.tolist(), swapped.tolist()))
        return rounds

    assert run(4, main, True).returns == run(4, main, False).returns
    assert run(4, main, True).returns[1] == [([0.0, 2.0], [-0.0, 2.0]), ([0.5, 2.5], [-0.0, 2.5])]


def test_on_an_intercommunicator_the_root_and_the_ranks_outside_get_nothing_and_the_rest_the_other_groups():
    def main(MPI):
        world = MPI.COMM_WORLD
        color = int(world.rank >= 3)
        inter = world.Split(color, world.rank).Create_intercomm(0, world, 3 if color == 0 else 0, tag=1)
        root = (MPI.ROOT if inter.rank == 0 else MPI.PROC_NULL) if color == 0 else 0
        said, total, reduced = np.full(1, -1.0), np.zeros(1), np.full(1, -1.0)
        sent = np.zeros(1)
        requests = [inter.Bcast_init(said, root=root), inter.Allreduce_init(sent, total),
                    inter.Reduce_init(sent, reduced, MPI.SUM, root=root)]
        rounds = []
        for round_ in range(2):
            sent[:] = world.rank + 10 * round_
            if root == MPI.ROOT:
                said[:] = 7 + round_
            MPI.Prequest.Startall(requests[:2])
            MPI.Request.Waitall(requests[:2])
            requests[2].Start()         # alone: a root's Ireduce between groups waits at the start (see the docs)
            requests[2].Wait()
            rounds.append((said[0], total[0], reduced[0]))
        return rounds, hasattr(inter, "Scan_init"), hasattr(inter, "Exscan_init")

    got = run(5, main).returns
    # the root (world 0) keeps its own bcast buffer and gets the high group's sum; PROC_NULL ranks get nothing
    assert [g[0][1] for g in got] == [(8.0, 27.0, 27.0), (-1.0, 27.0, -1.0), (-1.0, 27.0, -1.0),
                                      (8.0, 33.0, -1.0), (8.0, 33.0, -1.0)]
    assert {g[1:] for g in got} == {(False, False)}             # no scan between two groups


def test_starting_an_active_request_or_a_freed_one_or_freeing_an_active_one_is_an_mpi_error():
    def start_twice(MPI):
        request = MPI.COMM_WORLD.Barrier_init()
        request.Start()
        request.Start()

    def free_active(MPI):
        request = MPI.COMM_WORLD.Allreduce_init(np.ones(1), np.zeros(1))
        request.Start()
        request.Free()

    def start_freed(MPI):
        request = MPI.COMM_WORLD.Allreduce_init(np.ones(1), np.zeros(1))
        request.Start()
        request.Wait()
        request.Free()
        assert not request and request == MPI.REQUEST_NULL
        request.Start()

    for main, text in [(start_twice, r"rank \d in MPI_Start: the persistent request is still active"),
                       (free_active, r"rank \d in MPI_Request_free: the persistent collective is still active"),
                       (start_freed, r"rank \d in MPI_Start: the persistent request \(Iallreduce\) was freed; it cannot be used any "
                                     "more")]:
        with pytest.raises(MPIError, match=text):
            run(2, main)


def test_an_inactive_request_is_true_and_waits_and_tests_on_it_return_at_once():
    def main(MPI):
        request = MPI.COMM_WORLD.Allreduce_init(np.ones(1), np.zeros(1), MPI.SUM, MPI.INFO_NULL)
        before = MPI.Wtime()
        request.Wait()
        return bool(request), request.Test(), MPI.Wtime() - before, request == MPI.REQUEST_NULL

    assert run(2, main).returns == [(True, True, 0.0, False)] * 2


def test_an_allreduce_started_twice_takes_twice_one_iallreduce():
    def main(MPI, persistent):
        comm = MPI.COMM_WORLD
        request = comm.Allreduce_init(np.ones(1), np.zeros(1)) if persistent else None
        comm.Barrier()
        start = MPI.Wtime()
        for _ in range(2 if persistent else 1):
            if persistent:
                request.Start()
            else:
                request = comm.Iallreduce(np.ones(1), np.zeros(1))
            request.Wait()
        return MPI.Wtime() - start

    once = run(2, main, False).returns
    assert once == pytest.approx([message_s(8)] * 2, rel=1e-12)          # one exchange of 8 bytes
    assert run(2, main, True).returns == pytest.approx([2 * t for t in once], rel=1e-12)


def test_compute_between_start_and_wait_overlaps_as_for_the_nonblocking_call():
    def main(MPI):
        comm = MPI.COMM_WORLD
        request = comm.Allreduce_init(np.ones(1), np.zeros(1))
        comm.Barrier()
        start = MPI.Wtime()
        request.Start()
        MPI.compute(1e-3)
        request.Wait()
        return MPI.Wtime() - start

    assert run(2, main).returns == pytest.approx([1e-3] * 2, rel=1e-12)

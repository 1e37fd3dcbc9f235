"""Intercommunicators: point-to-point ranks name the remote group, each collective gives a group the other
group's data as MPI defines (closed forms on groups of unequal size), Merge orders the groups by ``high``,
and a collective takes the time of its leader-based messages."""
import numpy as np
import pytest

from mpi_helpers import message_s, run
from ppt.engine.process import ProcessError
from ppt.mpi import MPIError


def _inter(MPI, low_ranks: int):
    """The intercommunicator between world ranks below ``low_ranks`` and the rest, and this rank's group."""
    world = MPI.COMM_WORLD
    color = int(world.rank >= low_ranks)
    local = world.Split(color, world.rank)
    return local.Create_intercomm(0, world, low_ranks if color == 0 else 0, tag=3), color


def test_each_group_gets_the_other_groups_data():
    def main(MPI):
        inter, color = _inter(MPI, 3)
        rank, remote = MPI.COMM_WORLD.rank, inter.Get_remote_size()
        total = np.zeros(1)
        inter.Allreduce(np.array([rank + 1.0]), total)
        swapped = np.zeros(remote)
        inter.Alltoall(np.array([100.0 * rank + j for j in range(remote)]), swapped)
        leader = color == 0 and inter.rank == 0
        root = (MPI.ROOT if leader else MPI.PROC_NULL) if color == 0 else 0
        gathered = inter.gather(rank, root=root)
        part = inter.scatter([f"to {j}" for j in range(remote)] if leader else None, root=root)
        smallest = np.full(1, -1.0)
        inter.Reduce(np.array([float(rank)]), smallest, MPI.MIN, root=root)
        heard = None
        if color == 0:
            inter.send(rank, dest=0)
        elif inter.rank == 0:
            status = MPI.Status()
            heard = sorted((inter.recv(source=MPI.ANY_SOURCE, status=status), status.Get_source())
                           for _ in range(remote))
        return (inter.rank, inter.size, remote, total[0], inter.allgather(rank), swapped.tolist(), gathered, part,
                smallest[0], heard)

    got = run(5, main).returns
    assert got == run(5, main).returns
    low, high = got[:3], got[3:]
    assert [g[:3] for g in got] == [(0, 3, 2), (1, 3, 2), (2, 3, 2), (0, 2, 3), (1, 2, 3)]
    assert [g[3] for g in got] == [9.0] * 3 + [6.0] * 2                  # 4 + 5 for the low group, 1 + 2 + 3
    assert [g[4] for g in got] == [[3, 4]] * 3 + [[0, 1, 2]] * 2
    assert [g[5] for g in low] == [[300.0 + i, 400.0 + i] for i in range(3)]
    assert [g[5] for g in high] == [[j, 100.0 + j, 200.0 + j] for j in (0, 1)]
    assert [g[6] for g in got] == [[3, 4], None, None, None, None]        # MPI.ROOT gets the other group's
    assert [g[7] for g in got] == [None] * 3 + ["to 0", "to 1"]
    assert [g[8] for g in got] == [3.0, -1.0, -1.0, -1.0, -1.0]
    assert [g[9] for g in high] == [[(0, 0), (1, 1), (2, 2)], None]       # sources: ranks of the remote group


@pytest.mark.parametrize("high", [(False, True), (True, False), (False, False)])
def test_merge_puts_the_low_group_first_and_on_a_tie_the_group_of_the_lower_leader(high):
    def main(MPI):
        inter, color = _inter(MPI, 2)
        return inter.Merge(high=high[color]).rank

    ranks = run(5, main).returns
    first_high = high[0] and not high[1]
    assert ranks == ([3, 4, 0, 1, 2] if first_high else [0, 1, 2, 3, 4])


def test_an_allreduce_takes_a_local_reduce_the_leaders_exchange_and_a_local_bcast():
    def main(MPI):
        inter, _ = _inter(MPI, 2)
        start = MPI.Wtime()
        inter.Allreduce(np.ones(1), np.zeros(1))
        return MPI.Wtime() - start

    # groups of 2: every non-leader waits for three 8-byte messages in a row
    assert [run(4, main).returns[r] for r in (1, 3)] == pytest.approx([3 * message_s(8)] * 2, rel=1e-12)


@pytest.mark.parametrize("name", ["Scan", "Exscan", "scan", "exscan", "Iscan", "Iexscan"])
def test_scans_mpi_does_not_define_between_groups_are_absent_as_in_mpi4py(name):
    def main(MPI):
        inter = _inter(MPI, 1)[0]
        try:
            getattr(inter, name)
        except AttributeError as exc:
            return hasattr(inter, name), str(exc)

    assert run(2, main).returns == [(False, f"'mpi4py.MPI.Intercomm' object has no attribute '{name}'")] * 2


def test_calls_the_simulation_lacks_on_an_intercommunicator_are_refused():
    def main(MPI):
        _inter(MPI, 1)[0].Split_type(MPI.COMM_TYPE_SHARED)

    with pytest.raises(MPIError, match="Split_type on an intercommunicator is not supported"):
        run(2, main)


def test_a_destination_outside_the_smaller_remote_group_is_an_mpi_error():
    def main(MPI):
        inter, color = _inter(MPI, 3)
        if color == 0 and inter.rank == 2:
            inter.send("lost", dest=2)

    with pytest.raises(MPIError, match=r"destination 2 is out of range for the remote group of inter#\d+\(split#\d+\(WORLD\)\) \(size 2\)"):
        run(5, main)


def _timed(MPI, call):
    """When ``call(inter, color)`` starts and ends on this rank of the 2 + 2 intercommunicator (seconds)."""
    inter, color = _inter(MPI, 2)
    start = MPI.Wtime()
    call(inter, color)
    return start, MPI.Wtime()


def _took(times, rank: int, starters=(0, 1, 2, 3)) -> float:
    """Seconds from the last start of ranks ``starters`` to ``rank``'s end (the ranks leave the
    intercommunicator's creation at different times)."""
    return times[rank][1] - max(times[r][0] for r in starters)


def _rooted(MPI, inter, color):
    """The root argument of a call rooted at the low group's leader."""
    return (MPI.ROOT if inter.rank == 0 else MPI.PROC_NULL) if color == 0 else 0


def test_a_gatherv_takes_a_local_gather_then_the_leaders_message_of_every_block():
    def main(MPI):
        def gatherv(inter, color):
            root = _rooted(MPI, inter, color)
            if root == MPI.ROOT:
                inter.Gatherv(None, [np.zeros(4), [1, 3], MPI.DOUBLE], root=root)
            else:
                inter.Gatherv(np.ones(1 + 2 * inter.rank) if color else None, None, root=root)
        return _timed(MPI, gatherv)

    # the high group's rank 1 sends 24 bytes to its leader, which sends all 32 to the root
    assert _took(run(4, main).returns, 0) == pytest.approx(message_s(24) + message_s(32), rel=1e-12)


def test_a_reduce_scatter_block_takes_a_local_reduce_the_leaders_exchange_and_a_local_scatter():
    def main(MPI):
        return _timed(MPI, lambda inter, color: inter.Reduce_scatter_block(np.ones(4), np.zeros(2)))

    # a non-leader waits for the 32-byte reduce and swap, then its 16-byte block
    times = run(4, main).returns
    assert [_took(times, r) for r in (1, 3)] == pytest.approx([2 * message_s(32) + message_s(16)] * 2, rel=1e-12)


def test_an_iallreduce_overlaps_its_local_reduce_with_compute_and_runs_the_rest_at_the_wait():
    def main(MPI, compute_s):
        def iallreduce(inter, color):
            req = inter.Iallreduce(np.ones(1), np.zeros(1))
            MPI.compute(compute_s)
            req.Wait()
        return _timed(MPI, iallreduce)

    # without compute, a non-leader waits for three 8-byte messages in a row (the local reduce, the leaders'
    # swap, the local bcast); with it, the local reduce goes on during the compute and the rest follows the
    # leaders' wait: a non-leader ends two messages after the leaders' compute
    alone = run(4, main, 0.0).returns
    assert [_took(alone, r) for r in (1, 3)] == pytest.approx([3 * message_s(8)] * 2, rel=1e-12)
    overlapped = run(4, main, 1e-3).returns
    assert [_took(overlapped, r, (0, 2)) for r in (1, 3)] == pytest.approx([1e-3 + 2 * message_s(8)] * 2, rel=1e-12)


def test_each_nonblocking_form_gives_what_its_blocking_form_gives_between_groups_of_3_and_2():
    def main(MPI, start):
        inter, color = _inter(MPI, 3)
        me, remote = inter.rank, inter.Get_remote_size()
        counts = [j + 1 for j in range(remote)]
        spread = [6 - inter.size + 1] + [1] * (inter.size - 1)
        got, every, part = np.zeros(sum(counts)), np.zeros(remote), np.zeros(spread[me])
        block = np.zeros(6 // inter.size)
        gathered, root = np.zeros(sum(counts)), (MPI.ROOT if me == 1 else MPI.PROC_NULL) if color == 0 else 1
        calls = [("Allgatherv", np.full(me + 1, 1.0 + me), [got, counts, MPI.DOUBLE]),
                 ("Alltoall", np.arange(remote, dtype="d") + 10 * me, every),
                 ("Reduce_scatter_block", np.arange(6.0) + me, block),
                 ("Reduce_scatter", np.arange(6.0), part, spread),
                 ("Gatherv", None if root == MPI.ROOT else np.full(me + 1, 5.0 + me),
                  [gathered, counts, MPI.DOUBLE] if root == MPI.ROOT else None)]
        for name, *args in calls:
            if name == "Gatherv":
                call = getattr(inter, "Igatherv" if start else name)(*args, root=root)
            else:
                call = getattr(inter, f"I{name.lower()}" if start else name)(*args)
            if start:
                call.Wait()
        (inter.Ibarrier().Wait() if start else inter.Barrier())
        return [a.tolist() for a in (got, every, block, part, gathered)]

    assert run(5, main, True).returns == run(5, main, False).returns


def test_wrong_roots_and_short_buffers_are_one_line_errors():
    def outside(MPI):
        inter, _ = _inter(MPI, 3)
        inter.Bcast(np.zeros(1), root=3 if MPI.COMM_WORLD.rank >= 3 else MPI.PROC_NULL)

    def short(MPI):
        inter, color = _inter(MPI, 3)
        if color == 0:
            inter.Gatherv(None, [np.zeros(2), [1, 1], MPI.DOUBLE], root=MPI.ROOT if inter.rank == 0 else MPI.PROC_NULL)
        else:
            inter.Gatherv(np.zeros(2), None, root=0)

    for main, text in [(outside, r"root 3 of inter#\d+\(split#\d+\(WORLD\)\) must be MPI.ROOT, MPI.PROC_NULL or a "
                                    r"rank of the remote group \(size 3\)"),
                       (short, "message truncated: 16 bytes arrived for a receive buffer of 8 bytes")]:
        with pytest.raises(MPIError, match=text) as caught:
            run(5, main)
        assert "\n" not in str(caught.value)


def test_the_object_reduce_scatter_gives_each_rank_its_block_of_the_other_groups_reduction():
    def main(MPI):
        inter, _ = _inter(MPI, 3)
        rank, remote = MPI.COMM_WORLD.rank, inter.Get_remote_size()
        return (inter.reduce_scatter([10 * rank + j for j in range(remote)]),
                inter.reduce_scatter_block([rank] * remote, op=MPI.MAX))

    # the low group gets block i of 30 + 40 (+ 2 i), the high group block i of 0 + 10 + 20 (+ 3 i)
    assert run(5, main).returns == [(70, 4), (72, 4), (74, 4), (30, 2), (33, 2)]


def _described(MPI, comm):
    """What a rank sees of the intercommunicator ``comm`` (None for COMM_NULL): its rank, size, remote size and
    the world ranks of the remote group, in order."""
    if comm == MPI.COMM_NULL:
        return None
    return comm.rank, comm.size, comm.Get_remote_size(), comm.allgather(MPI.COMM_WORLD.rank)


def test_a_dup_has_the_same_groups_and_messages_of_its_own():
    def main(MPI):
        inter, color = _inter(MPI, 3)
        twin = inter.Dup()
        total = np.zeros(1)
        twin.Allreduce(np.array([MPI.COMM_WORLD.rank + 1.0]), total)
        if color == 1:                      # the same tag on both: each receive gets its communicator's message
            inter.send("on inter", dest=inter.rank)
            twin.send("on the dup", dest=inter.rank)
            heard = None
        else:
            heard = (twin.recv(source=MPI.ANY_SOURCE, tag=0) if inter.rank < 2 else None,
                     inter.recv(source=MPI.ANY_SOURCE, tag=0) if inter.rank < 2 else None)
        return twin.Is_inter(), _described(MPI, twin), total[0], heard, inter.Clone().Get_remote_size()

    got = run(5, main).returns
    assert [g[1] for g in got] == [(0, 3, 2, [3, 4]), (1, 3, 2, [3, 4]), (2, 3, 2, [3, 4]),
                                   (0, 2, 3, [0, 1, 2]), (1, 2, 3, [0, 1, 2])]
    assert [g[2] for g in got] == [9.0] * 3 + [6.0] * 2
    assert [g[3] for g in got] == [("on the dup", "on inter")] * 2 + [(None, None)] + [None] * 2
    assert all(g[0] for g in got) and [g[4] for g in got] == [2] * 3 + [3] * 2


def test_idup_and_dup_with_info_give_intercommunicators_of_the_same_groups_with_messages_of_their_own():
    def main(MPI):
        inter, color = _inter(MPI, 3)
        started, request = inter.Idup()
        request.Wait()
        comms = {"started": started, "inter": inter, "hinted": inter.Dup_with_info(MPI.INFO_NULL)}
        seen = [_described(MPI, comms[name]) for name in ("started", "hinted")]
        if color == 1:
            for name in ("inter", "hinted", "started"):
                comms[name].send(f"on {name}", dest=0)
        elif inter.rank == 0:
            seen.append([comm.recv(source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG) for comm in comms.values() for _ in "ab"])
        return seen

    got = run(5, main).returns
    assert got[1] == [(1, 3, 2, [3, 4])] * 2 and got[4] == [(1, 2, 3, [0, 1, 2])] * 2
    assert got[0][2] == ["on started"] * 2 + ["on inter"] * 2 + ["on hinted"] * 2


def test_create_group_is_absent_as_in_mpi4py():
    def main(MPI):
        _inter(MPI, 1)[0].Create_group(MPI.GROUP_EMPTY)

    with pytest.raises(ProcessError, match="'mpi4py.MPI.Intercomm' object has no attribute 'Create_group'"):
        run(2, main)


def test_split_pairs_each_color_of_one_group_with_the_same_color_of_the_other():
    def main(MPI, colors):
        inter, _ = _inter(MPI, 3)
        rank = MPI.COMM_WORLD.rank
        return _described(MPI, inter.Split(MPI.UNDEFINED if colors[rank] is None else colors[rank], -rank))

    # colors by world rank: the low group 0, 1, 0; the high group 1, 0; ordered by key -rank
    assert run(5, main, [0, 1, 0, 1, 0]).returns == [(1, 2, 1, [4]), (0, 1, 1, [3]), (0, 2, 1, [4]),
                                                     (0, 1, 1, [1]), (0, 1, 2, [2, 0])]
    # a color the other group lacks (2 in the low group, 1 in the high) and UNDEFINED give COMM_NULL
    assert run(5, main, [0, None, 2, 0, 1]).returns == [(0, 1, 1, [3]), None, None, (0, 1, 1, [0]), None]


def test_create_pairs_the_groups_each_side_gives_and_leaves_the_rest_out():
    def main(MPI, low_ranks, high_ranks):
        inter, color = _inter(MPI, 3)
        return _described(MPI, inter.Create(inter.Get_group().Incl(high_ranks if color else low_ranks)))

    assert run(5, main, [2, 0], [0, 1]).returns == [(1, 2, 2, [3, 4]), None, (0, 2, 2, [3, 4]),
                                                    (0, 2, 2, [2, 0]), (1, 2, 2, [2, 0])]
    assert run(5, main, [0, 1, 2], []).returns == [None] * 5          # an empty group on either side


def test_a_group_outside_the_local_group_is_a_one_line_error():
    def main(MPI):
        inter, _ = _inter(MPI, 3)
        inter.Create(inter.Get_remote_group())

    with pytest.raises(MPIError, match=r"the group holds processes outside local\(inter#\d+") as caught:
        run(5, main)
    assert "\n" not in str(caught.value)


def test_nonblocking_collectives_in_flight_together_keep_their_order_between_the_groups():
    def main(MPI, start):
        inter, color = _inter(MPI, 4)       # a group of one rank goes through a call's local part at once
        rank, remote = MPI.COMM_WORLD.rank, inter.Get_remote_size()
        total, every, said = np.zeros(1), np.zeros(remote), np.full(2, -1.0)
        root = (MPI.ROOT if inter.rank == 0 else MPI.PROC_NULL) if color == 0 else 0
        if root == MPI.ROOT:
            said[:] = [7.0, 8.0]
        calls = [("Allreduce", np.array([rank + 1.0]), total), ("Bcast", said),
                 ("Allgather", np.array([rank * 1.0]), every)]
        if start:      # the leaders' exchange of the first comes at the wait, after the second's call
            MPI.Request.Waitall([getattr(inter, "I" + name.lower())(*args, **({"root": root} if name == "Bcast" else {}))
                                 for name, *args in calls] + [inter.Ibarrier()])
        else:
            for name, *args in calls:
                getattr(inter, name)(*args, **({"root": root} if name == "Bcast" else {}))
            inter.Barrier()
        return total.tolist(), every.tolist(), said.tolist()

    got = run(5, main, True).returns
    assert got == run(5, main, False).returns
    assert got[4] == ([10.0], [0.0, 1.0, 2.0, 3.0], [7.0, 8.0])

"""Intercommunicators: point-to-point ranks name the remote group, each collective gives a group the other
group's data as MPI defines (closed forms on groups of unequal size), Merge orders the groups by ``high``,
and a collective takes the time of its leader-based messages."""
import numpy as np
import pytest

from mpi_helpers import message_s, run
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


def test_collectives_mpi_does_not_define_between_groups_are_refused():
    def main(MPI):
        _inter(MPI, 1)[0].scan(1)

    with pytest.raises(MPIError, match="scan on an intercommunicator is not supported"):
        run(2, main)


def test_a_destination_outside_the_smaller_remote_group_is_an_mpi_error():
    def main(MPI):
        inter, color = _inter(MPI, 3)
        if color == 0 and inter.rank == 2:
            inter.send("lost", dest=2)

    with pytest.raises(MPIError, match=r"destination 2 is out of range for the remote group of inter#\d+\(split#\d+\(WORLD\)\) \(size 2\)"):
        run(5, main)

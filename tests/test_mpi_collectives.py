"""Collectives: every algorithm's result equals a sequential reference; timing and mismatch checks."""
import math
from functools import reduce

import numpy as np
import pytest

from mpi_helpers import message_s, run
from ppt.errors import PPTError
from ppt.mpi import MAX, MIN, PROD, SUM, MPIError, Op
from ppt.mpi.collectives.calls import ALGORITHMS

SIZES = [1, 2, 3, 5, 8, 12]


def value(rank):
    """Rank ``rank``'s contribution: an integer array (exact sums in any order)."""
    return np.arange(7, dtype=np.int64) * (rank + 1) + rank ** 2


def reference(values, op):
    return reduce(op, values)


def algorithms(kind):
    return list(ALGORITHMS[kind])


def _check(size, main, expected, **kw):
    got = run(size, main, **kw).returns
    for rank, (mine, want) in enumerate(zip(got, expected)):
        if isinstance(want, np.ndarray):
            np.testing.assert_array_equal(mine, want, err_msg=f"rank {rank}")
        else:
            assert mine == want, f"rank {rank}"


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("algorithm", algorithms("allreduce"))
@pytest.mark.parametrize("op", [SUM, MAX, MIN, PROD])
def test_allreduce(size, algorithm, op):
    def main(mpi):
        return mpi.COMM_WORLD.allreduce(value(mpi.rank), op, algorithm=algorithm)

    want = reference([value(r) for r in range(size)], op)
    _check(size, main, [want] * size)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("algorithm", algorithms("reduce"))
def test_reduce_and_bcast_at_every_root(size, algorithm):
    def main(mpi):
        comm = mpi.COMM_WORLD
        reduced = [comm.reduce(value(comm.rank), MAX, root, algorithm=algorithm) for root in range(size)]
        sent = [comm.bcast({"root": root} if comm.rank == root else None, root, algorithm=algorithm)
                for root in range(size)]
        return [None if r is None else r.tolist() for r in reduced], sent

    want_max = reference([value(r) for r in range(size)], MAX).tolist()
    expected = [([want_max if root == r else None for root in range(size)], [{"root": k} for k in range(size)])
                for r in range(size)]
    _check(size, main, expected)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("algorithm", algorithms("gather"))
def test_gather_and_gatherv(size, algorithm):
    root = size // 2

    def main(mpi):
        comm = mpi.COMM_WORLD
        same = comm.gather(("r", comm.rank), root, algorithm=algorithm)
        varied = comm.gatherv("x" * comm.rank, root, nbytes=comm.rank * 100, algorithm=algorithm)
        return same, varied

    expected = [([("r", k) for k in range(size)], ["x" * k for k in range(size)]) if r == root else (None, None)
                for r in range(size)]
    _check(size, main, expected)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("algorithm", algorithms("scatter"))
def test_scatter_and_scatterv(size, algorithm):
    root = size - 1

    def main(mpi):
        comm = mpi.COMM_WORLD
        blocks = [f"to {k}" for k in range(size)] if comm.rank == root else None
        a = comm.scatter(blocks, root, algorithm=algorithm)
        b = comm.scatterv(blocks, root, nbytes=[10 * k for k in range(size)], algorithm=algorithm)
        return a, b

    _check(size, main, [(f"to {r}", f"to {r}") for r in range(size)])


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("algorithm", algorithms("allgather"))
def test_allgather_and_allgatherv(size, algorithm):
    def main(mpi):
        comm = mpi.COMM_WORLD
        return comm.allgather(comm.rank * 3, algorithm=algorithm), \
            comm.allgatherv([comm.rank] * comm.rank, nbytes=8 * comm.rank, algorithm=algorithm)

    if algorithm == "recursive_doubling" and size & (size - 1):
        with pytest.raises(MPIError, match="power-of-two"):
            run(size, main)
        return
    want = ([3 * k for k in range(size)], [[k] * k for k in range(size)])
    _check(size, main, [want] * size)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("algorithm", algorithms("alltoall"))
def test_alltoall_and_alltoallv(size, algorithm):
    def main(mpi):
        comm = mpi.COMM_WORLD
        blocks = [(comm.rank, dest) for dest in range(size)]
        return comm.alltoall(blocks, algorithm=algorithm), \
            comm.alltoallv(blocks, nbytes=[dest * 1000 for dest in range(size)], algorithm=algorithm)

    _check(size, main, [([(src, r) for src in range(size)],) * 2 for r in range(size)])


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("algorithm", algorithms("reduce_scatter"))
def test_reduce_scatter(size, algorithm):
    def main(mpi):
        rank = mpi.rank
        return mpi.COMM_WORLD.reduce_scatter([value(rank) * (dest + 1) for dest in range(size)], SUM,
                                             algorithm=algorithm)

    _check(size, main, [sum(value(k) * (r + 1) for k in range(size)) for r in range(size)])


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("algorithm", algorithms("scan"))
def test_scan_and_exscan(size, algorithm):
    def main(mpi):
        comm = mpi.COMM_WORLD
        return comm.scan(value(comm.rank), algorithm=algorithm), comm.exscan(comm.rank + 1, algorithm=algorithm)

    got = run(size, main).returns
    for r, (inclusive, exclusive) in enumerate(got):
        np.testing.assert_array_equal(inclusive, sum(value(k) for k in range(r + 1)))
        assert exclusive == (None if r == 0 else sum(k + 1 for k in range(r)))


CONCAT = Op.create(lambda a, b: a + b, commute=False)


@pytest.mark.parametrize("size", [3, 6, 8])
def test_non_commutative_op_keeps_rank_order(size):
    def main(mpi):
        comm = mpi.COMM_WORLD
        s = str(comm.rank)
        return (comm.allreduce(s, CONCAT), comm.reduce(s, CONCAT, root=size - 1), comm.scan(s, CONCAT),
                comm.reduce_scatter([s * (d + 1) for d in range(size)], CONCAT))

    ordered = "".join(str(k) for k in range(size))
    expected = [(ordered, ordered if r == size - 1 else None, ordered[:r + 1], "".join(str(k) * (r + 1)
                 for k in range(size))) for r in range(size)]
    _check(size, main, expected)


def test_collectives_on_sub_communicators_and_beside_user_messages():
    size = 7

    def main(mpi):
        world = mpi.COMM_WORLD
        pending = world.isend("user", (world.rank + 1) % size, tag=0)    # never confused with collectives
        sub = world.split(world.rank % 3, world.rank)
        total = sub.allreduce(world.rank)
        members = sub.allgather(world.rank)
        first = sub.bcast(world.rank if sub.rank == 0 else None, 0)
        got = world.recv((world.rank - 1) % size, 0)
        pending.wait()
        return total, members, first, got

    expected = []
    for r in range(size):
        group = [k for k in range(size) if k % 3 == r % 3]
        expected.append((sum(group), group, group[0], "user"))
    _check(size, main, expected)


@pytest.mark.parametrize("size", [2, 4, 8, 16, 5, 13])
@pytest.mark.parametrize("nbytes", [8, 2000])
def test_binomial_bcast_takes_tree_depth_message_times(size, nbytes):
    """Each rank sends to all its children at once, so on a contention-free network the time is the
    tree depth x one message time: ceil(log2 P) for P = 2^k; in general the most one-bits of any
    relative rank below P (5 ranks: 2 levels, 13 ranks: 3)."""
    def main(mpi):
        mpi.COMM_WORLD.bcast(None, 0, nbytes=nbytes, algorithm="binomial")

    depth = max(bin(r).count("1") for r in range(size))
    if size & (size - 1) == 0:
        assert depth == math.ceil(math.log2(size))
    result = run(size, main)
    assert result.predicted_s == pytest.approx(depth * message_s(nbytes), rel=1e-12)


@pytest.mark.parametrize("size", [2, 6, 16])
def test_dissemination_barrier_takes_ceil_log2_p_rounds(size):
    def main(mpi):
        mpi.COMM_WORLD.barrier()

    assert run(size, main).predicted_s == pytest.approx(math.ceil(math.log2(size)) * message_s(0))


def test_job_level_algorithm_choice_changes_traffic():
    def main(mpi):
        mpi.COMM_WORLD.allreduce(None, nbytes=64)

    doubling = run(8, main).network["messages"]
    ring = run(8, main, algorithms={"allreduce": "ring"}).network["messages"]
    assert doubling == 8 * 3 and ring == 8 * 2 * 7


@pytest.mark.parametrize("calls, text", [
    ((lambda c: c.bcast(1, root=0), lambda c: c.bcast(1, root=1)), "collective mismatch"),
    ((lambda c: c.bcast(1, root=0), lambda c: c.reduce(1, root=0)), "collective mismatch"),
    ((lambda c: c.allreduce(1), lambda c: c.allgather(1)), "collective mismatch"),
])
def test_mismatched_collectives_are_reported(calls, text):
    def main(mpi):
        comm = mpi.COMM_WORLD
        calls[min(comm.rank, 1)](comm)

    with pytest.raises(MPIError, match=text):
        run(3, main)


@pytest.mark.parametrize("collective, alternative", [("allreduce", "recursive_doubling"),
                                                     ("reduce_scatter", "reduce_scatterv")])
def test_ring_algorithms_refuse_non_commutative_ops(collective, alternative):
    def main(mpi):
        comm = mpi.COMM_WORLD
        value = [str(comm.rank)] * comm.size if collective == "reduce_scatter" else str(comm.rank)
        getattr(comm, collective)(value, CONCAT, algorithm="ring")

    with pytest.raises(PPTError, match=f"ring {collective} needs a commutative op.*algorithm='{alternative}'"):
        run(4, main)


def _sendrecv_rounds(me: int, size: int, rounds, slots: int):
    """The schedule :meth:`Builder.sendrecv` makes of ``rounds``, ``(dest, slot, source, into, combine)`` each
    (``combine``: an OP's ``(dst, a, b)`` or None), one by one."""
    from ppt.mpi.collectives.schedule import OP, Builder
    b = Builder()
    for dest, slot, source, into, combine in rounds:
        b.sendrecv(dest, slot, source, into)
        if combine is not None:
            b.combine(OP, *combine)
    return b.schedule(slots)


def _ring_rounds(me: int, size: int, have: int, reduce: bool):
    """The ring's rounds as the literature states them: a reduce-scatter's (block have - 1 - k out, block
    have - 2 - k reduced with what came into the scratch slot) or an allgather's (block have - k out)."""
    right, left = (me + 1) % size, (me - 1) % size
    if reduce:
        return [(right, (have - 1 - k) % size, left, size, ((have - 2 - k) % size, size, (have - 2 - k) % size))
                for k in range(size - 1)]
    return [(right, (have - k) % size, left, (have - k - 1) % size, None) for k in range(size - 1)]


@pytest.mark.parametrize("size", [2, 3, 5, 8, 12])
def test_round_schedules_are_the_sendrecv_steps_they_stand_for(size):
    """The O(P) algorithms made as arrays (Rounds) are, step by step, the schedules Builder.sendrecv makes of
    the same rounds, and the engine reads the same flattened form from both."""
    from ppt.mpi.collectives import algorithms
    from ppt.mpi.collectives.schedule import Schedule
    from ppt.mpi.engine.replay import flatten
    for me in range(size):
        steps = range(1, size)
        partners = [(me ^ k, me ^ k) for k in steps] if size & (size - 1) == 0 else \
            [((me + k) % size, (me - k) % size) for k in steps]
        have = (me + 1) % size
        expected = {
            "alltoall_pairwise": _sendrecv_rounds(me, size, [(d, d, s, size + s, None) for d, s in partners], 2 * size),
            "allgather_ring": _sendrecv_rounds(me, size, _ring_rounds(me, size, me, False), size),
            "reduce_scatter_ring": _sendrecv_rounds(me, size, _ring_rounds(me, size, me, True), size + 1),
            "allreduce_ring": _sendrecv_rounds(me, size, _ring_rounds(me, size, have, True)
                                               + _ring_rounds(me, size, have, False), size + 1)}
        for name, want in expected.items():
            got = getattr(algorithms, name)(me, size)
            assert (got.slots, got.steps) == (want.slots, want.steps), (name, me)
            assert list(flatten(got)) == list(flatten(Schedule(got.slots, got.steps))), (name, me)

"""Nonblocking collectives (Iallreduce, Ibcast ...) progress while the rank computes: data as the blocking
calls', time as their schedules' in closed form on the analytic test network, overlapped with the
computation between the call and its wait."""
import numpy as np
import pytest

from mpi_helpers import message_s, run
from ppt.errors import DeadlockError
from ppt.mpi import MPIError

SEND_O, RECV_O = 1e-7, 2e-7
#: An allreduce of 4 doubles on 4 ranks: recursive doubling, two rounds of one message each way.
ALLREDUCE_S = 2 * (SEND_O + message_s(32) + RECV_O)


def _overlapped(MPI, compute_s, nonblocking):
    comm = MPI.COMM_WORLD
    x, y = np.full(4, comm.rank + 1.0), np.zeros(4)
    start = MPI.Wtime()
    if nonblocking:
        req = comm.Iallreduce(x, y)
        MPI.compute(compute_s)
        req.Wait()
    else:
        comm.Allreduce(x, y)
        MPI.compute(compute_s)
    return y.tolist(), MPI.Wtime() - start


@pytest.mark.parametrize("compute_s", [0.0, 1e-6, 2e-6, 1e-5])
def test_an_iallreduce_overlaps_the_computation_before_its_wait(compute_s):
    """The call owes its first sends' overhead, the wait the last receive's; between them the collective and
    the computation run side by side: max(C + o_s, t - o_r) + o_r, where the blocking call takes t + C."""
    got = run(4, _overlapped, compute_s, True, send_overhead_s=SEND_O, recv_overhead_s=RECV_O).returns
    blocking = run(4, _overlapped, compute_s, False, send_overhead_s=SEND_O, recv_overhead_s=RECV_O).returns
    assert all(y == [10.0] * 4 for y, _ in got + blocking)
    assert [t for _, t in blocking] == pytest.approx([ALLREDUCE_S + compute_s] * 4, rel=1e-12)
    overlapped = max(compute_s + SEND_O, ALLREDUCE_S - RECV_O) + RECV_O
    assert [t for _, t in got] == pytest.approx([overlapped] * 4, rel=1e-12)


def test_a_wait_right_after_the_call_takes_the_blocking_time_on_every_collective():
    def main(MPI, nonblocking):
        comm = MPI.COMM_WORLD
        rank, size = comm.rank, comm.size
        x = np.arange(4.0) + 10 * rank
        out = {name: np.zeros(n) for name, n in
               [("bcast", 4), ("reduce", 4), ("allreduce", 4), ("gather", 4 * size), ("scatter", 1),
                ("allgather", 4 * size), ("alltoall", 4), ("scan", 4), ("exscan", 4), ("rsb", 1)]}
        out["bcast"][:] = x
        calls = [("Bcast", (out["bcast"], 1)), ("Reduce", (x, out["reduce"], MPI.SUM, 2)),
                 ("Allreduce", (x, out["allreduce"], MPI.MAX)), ("Gather", (x, out["gather"], 3)),
                 ("Scatter", (np.arange(4.0) * 7, out["scatter"], 0)), ("Allgather", (x, out["allgather"])),
                 ("Alltoall", (x, out["alltoall"])), ("Scan", (x, out["scan"])), ("Exscan", (x, out["exscan"])),
                 ("Reduce_scatter_block", (x, out["rsb"]))]
        times = []
        for name, args in calls:
            start = MPI.Wtime()
            if nonblocking:
                getattr(comm, "I" + name.lower())(*args).Wait()
            else:
                getattr(comm, name)(*args)
            times.append(MPI.Wtime() - start)
        return {name: v.tolist() for name, v in out.items()}, times

    kw = dict(send_overhead_s=SEND_O, recv_overhead_s=RECV_O)
    got, blocking = run(4, main, True, **kw).returns, run(4, main, False, **kw).returns
    assert [d for d, _ in got] == [d for d, _ in blocking]
    assert [t for _, t in got] == [pytest.approx(t, rel=1e-9) for _, t in blocking]
    data = [d for d, _ in got]
    assert data[0]["bcast"] == [10.0, 11.0, 12.0, 13.0]                  # rank 1's
    assert data[2]["reduce"] == [60.0, 64.0, 68.0, 72.0]
    assert data[3]["allreduce"] == [30.0, 31.0, 32.0, 33.0]
    assert data[3]["gather"] == [float(i % 4 + 10 * (i // 4)) for i in range(16)]
    assert [d["scatter"] for d in data] == [[0.0], [7.0], [14.0], [21.0]]
    assert data[1]["alltoall"] == [1.0, 11.0, 21.0, 31.0]
    assert data[2]["scan"] == [30.0, 33.0, 36.0, 39.0] and data[2]["exscan"] == [10.0, 12.0, 14.0, 16.0]
    assert [d["rsb"] for d in data] == [[60.0], [64.0], [68.0], [72.0]]


def test_collectives_in_flight_together_complete_in_any_wait_order_and_a_test_sees_them_pending():
    def main(MPI):
        comm = MPI.COMM_WORLD
        a, b = np.zeros(1), np.zeros(2)
        first = comm.Iallreduce(np.array([comm.rank + 1.0]), a)
        second = comm.Ibcast(b if comm.rank else np.array([5.0, 6.0]), root=0)
        if comm.rank == 0:
            b[:] = [5.0, 6.0]
        early = first.Test()
        MPI.compute(1e-3)
        MPI.Request.Waitall([second, first])
        return early, a.tolist(), b.tolist(), MPI.Wtime()

    results = run(3, main).returns
    assert results == run(3, main).returns                         # the same twice
    for early, a, b, done in results:
        assert not early and a == [6.0] and b == [5.0, 6.0]
        assert done == pytest.approx(1e-3, rel=1e-12)             # both over during the computation


def test_a_collective_a_rank_never_joins_is_a_deadlock_naming_its_step():
    def main(MPI):
        comm = MPI.COMM_WORLD
        if comm.rank != 1:
            comm.Iallreduce(np.ones(1), np.zeros(1)).Wait()

    with pytest.raises(DeadlockError, match=r"rank 0 in MPI_Wait\(Iallreduce step 0, waiting for rank 1, comm=WORLD\)"):
        run(2, main)


def test_a_nonblocking_collective_receiving_another_calls_message_is_a_mismatch_at_its_wait():
    def main(MPI):
        comm = MPI.COMM_WORLD
        if comm.rank == 0:
            comm.Iallreduce(np.ones(1), np.zeros(1)).Wait()
        else:
            comm.Bcast(np.ones(1), root=1)                  # sends to rank 0, receives nothing

    with pytest.raises(MPIError, match=r"rank 0 in MPI_Wait: collective mismatch on WORLD: rank 1 called "
                                       r"MPI_Bcast\(root=1\) where this rank called MPI_Iallreduce"):
        run(2, main)

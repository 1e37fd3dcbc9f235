"""One-sided communication (MPI RMA windows): the data each synchronisation makes visible, and the time of
transfers, locks and flushes in closed form on the contention-free test network (mpi_helpers: latency L,
bandwidth BW, no software overheads)."""
import numpy as np
import pytest

from mpi_helpers import BANDWIDTH_BPS, LATENCY_S, run
from ppt.errors import DeadlockError
from ppt.mpi import MPIError
from ppt.mpi.constants import CONTROL_B, RMA
from ppt.mpi.surface.rma.sync import LOCK_EXCLUSIVE, LOCK_SHARED, TargetLock

#: One control message (a lock request, a grant, a release, an acknowledgement, a get's request).
CONTROL_S = LATENCY_S + CONTROL_B / BANDWIDTH_BPS


def _window(MPI, n: int, dtype="i"):
    """(window over n items, its memory) of every rank of COMM_WORLD."""
    memory = np.zeros(n, dtype=dtype)
    return MPI.Win.Create(memory, memory.itemsize, MPI.INFO_NULL, MPI.COMM_WORLD), memory


# -- timing in closed form ----------------------------------------------------------------------------------
@pytest.mark.parametrize("nbytes", [8, 100_000])
def test_a_put_is_one_transfer_of_its_bytes(nbytes):
    def main(MPI):
        win, _ = _window(MPI, nbytes, "u1")
        if MPI.COMM_WORLD.rank == 0:
            win.Lock(1)
            start = MPI.Wtime()
            win.Put(np.ones(nbytes, "u1"), 1)
            win.Flush(1)
            elapsed = MPI.Wtime() - start
            win.Unlock(1)
        MPI.COMM_WORLD.Barrier()
        win.Free()
        return elapsed if MPI.COMM_WORLD.rank == 0 else None

    assert run(2, main).returns[0] == pytest.approx(LATENCY_S + nbytes / BANDWIDTH_BPS, rel=1e-12)


@pytest.mark.parametrize("nbytes", [8, 100_000])
def test_a_get_is_a_request_and_the_data_back(nbytes):
    def main(MPI):
        win, memory = _window(MPI, nbytes, "u1")
        memory[:] = 7
        MPI.COMM_WORLD.Barrier()
        got = np.zeros(nbytes, "u1")
        if MPI.COMM_WORLD.rank == 0:
            win.Lock(1, MPI.LOCK_SHARED)
            start = MPI.Wtime()
            win.Get(got, 1)
            win.Flush(1)
            elapsed = MPI.Wtime() - start
            win.Unlock(1)
        MPI.COMM_WORLD.Barrier()
        win.Free()
        return (elapsed, int(got.sum())) if MPI.COMM_WORLD.rank == 0 else None

    elapsed, total = run(2, main).returns[0]
    assert total == 7 * nbytes
    assert elapsed == pytest.approx(CONTROL_S + LATENCY_S + nbytes / BANDWIDTH_BPS, rel=1e-12)


def test_lock_and_unlock_are_round_trips_and_exclusive_locks_queue_in_arrival_order():
    """Rank 1 locks rank 0 first; rank 2's request, arriving later, is granted once rank 1's release arrives."""
    def main(MPI):
        comm = MPI.COMM_WORLD
        win, _ = _window(MPI, 1)
        comm.Barrier()
        if comm.rank == 2:
            MPI.sleep(5 * LATENCY_S)              # its request arrives after rank 1's, before rank 1's release
        times = []
        if comm.rank > 0:
            times.append(MPI.Wtime())
            win.Lock(0, MPI.LOCK_EXCLUSIVE)
            times.append(MPI.Wtime())
            if comm.rank == 1:
                MPI.sleep(10 * LATENCY_S)         # holds the lock
            times.append(MPI.Wtime())
            win.Unlock(0)
            times.append(MPI.Wtime())
        comm.Barrier()
        win.Free()
        return times

    _, first, second = run(3, main).returns
    assert np.diff(first)[[0, 2]] == pytest.approx([2 * CONTROL_S] * 2, rel=1e-12)
    assert first[0] + CONTROL_S < second[0] + CONTROL_S < first[2] + CONTROL_S     # arrivals at rank 0
    assert second[1] == pytest.approx(first[2] + 2 * CONTROL_S, rel=1e-12)      # release there, grant back
    assert second[3] - second[2] == pytest.approx(2 * CONTROL_S, rel=1e-12)


def test_a_target_grants_shared_locks_together_and_exclusive_ones_alone_in_arrival_order():
    lock = TargetLock()
    assert lock.request(0, LOCK_SHARED, 10) and lock.request(1, LOCK_SHARED, 11)
    assert not lock.request(2, LOCK_EXCLUSIVE, 12)
    assert not lock.request(3, LOCK_SHARED, 13)          # behind the exclusive request: no overtaking
    assert lock.release(0) == []
    assert lock.release(1) == [(2, 12)]
    assert lock.release(2) == [(3, 13)]


def test_lock_under_mode_nocheck_sends_nothing():
    def main(MPI):
        win, _ = _window(MPI, 1)
        start = MPI.Wtime()
        win.Lock(1 - MPI.COMM_WORLD.rank, MPI.LOCK_SHARED, MPI.MODE_NOCHECK)
        locked = MPI.Wtime() - start
        win.Unlock(1 - MPI.COMM_WORLD.rank)
        win.Free()
        return locked, MPI.MODE_NOCHECK == RMA["MODE_NOCHECK"]

    assert run(2, main).returns == [(0.0, True)] * 2


def test_pscw_costs_a_notice_each_way_and_the_transfers_between():
    def main(MPI, nbytes):
        comm = MPI.COMM_WORLD
        win, _ = _window(MPI, nbytes, "u1")
        other = comm.Get_group().Incl([1 - comm.rank])
        comm.Barrier()
        times = [MPI.Wtime()]
        if comm.rank == 0:                      # target
            win.Post(other)
            win.Wait()
        else:                                   # origin
            win.Start(other)
            times.append(MPI.Wtime())
            win.Put(np.ones(nbytes, "u1"), 0)
            win.Complete()
        times.append(MPI.Wtime())
        win.Free()
        return times

    target, origin = run(2, main, 1000).returns
    posted, wait_end = target
    start_call, started, completed = origin
    assert started == pytest.approx(max(start_call, posted + CONTROL_S), rel=1e-12)
    assert completed == pytest.approx(started + LATENCY_S + 1000 / BANDWIDTH_BPS, rel=1e-12)
    assert wait_end == pytest.approx(completed + CONTROL_S, rel=1e-12)


def test_fence_costs_what_a_barrier_costs():
    def main(MPI):
        win, _ = _window(MPI, 1)
        start = MPI.Wtime()
        MPI.COMM_WORLD.Barrier()
        barrier = MPI.Wtime() - start
        start = MPI.Wtime()
        win.Fence()
        fence = MPI.Wtime() - start
        win.Fence()
        win.Free()
        return barrier, fence

    for barrier, fence in run(4, main).returns:
        assert fence == barrier > 0


# -- data ---------------------------------------------------------------------------------------------------
def test_shared_counter_with_fetch_and_op_under_exclusive_locks():
    def main(MPI, n):
        comm = MPI.COMM_WORLD
        win, counter = _window(MPI, 1, "i8")
        fetched = []
        one, old = np.ones(1, "i8"), np.zeros(1, "i8")
        for _ in range(n):
            win.Lock(0, MPI.LOCK_EXCLUSIVE)
            win.Fetch_and_op(one, old, 0, 0, MPI.SUM)
            win.Unlock(0)
            fetched.append(int(old[0]))
        comm.Barrier()
        win.Free()
        return int(counter[0]), fetched

    returns = run(4, main, 5).returns
    assert returns[0][0] == 5 * 4
    assert sorted(v for _, fetched in returns for v in fetched) == list(range(20))
    assert all(f == sorted(f) for _, f in returns)


def test_fence_halo_exchange_with_put():
    def main(MPI):
        comm = MPI.COMM_WORLD
        me, size = comm.rank, comm.size
        cells = np.full(6, -1, "d")               # ghost, 4 own cells, ghost
        cells[1:5] = 10 * me + np.arange(4)
        win = MPI.Win.Create(cells, cells.itemsize, comm=comm)
        win.Fence()
        win.Put(cells[1:2].copy(), (me - 1) % size, 5)     # my first cell: the left neighbour's right ghost
        win.Put(cells[4:5].copy(), (me + 1) % size, 0)     # my last cell: the right neighbour's left ghost
        win.Fence()
        win.Free()
        return cells.tolist()

    returns = run(4, main).returns
    for me, cells in enumerate(returns):
        left, right = (me - 1) % 4, (me + 1) % 4
        assert cells == [10 * left + 3] + [10 * me + i for i in range(4)] + [10 * right]


def test_get_based_gather_and_accumulate_sum_and_max():
    def main(MPI):
        comm = MPI.COMM_WORLD
        me, size = comm.rank, comm.size
        memory = np.array([me * me, 0, 0], "i")     # [own value, sum, max]
        win = MPI.Win.Create(memory, memory.itemsize, comm=comm)
        gathered = np.zeros(size, "i")
        win.Fence()
        if me == 0:
            for r in range(size):
                win.Get([gathered[r:r + 1], MPI.INT], r, (0, 1, MPI.INT))
        win.Accumulate(np.array([me + 1], "i"), 0, 1, MPI.SUM)
        win.Accumulate(np.array([3 * me - me * me], "i"), 0, 2, MPI.MAX)
        win.Fence()
        win.Free()
        return gathered.tolist(), memory.tolist()

    returns = run(5, main).returns
    assert returns[0][0] == [r * r for r in range(5)]
    assert returns[0][1][1:] == [15, max(3 * r - r * r for r in range(5))]


@pytest.mark.parametrize("op, expected", [
    ("SUM", [0 + 1 + 2 + 3, 11]), ("PROD", [0, 11]), ("MAX", [3, 11]), ("MIN", [0, 11]), ("BOR", [3, 11]),
    ("BAND", [0, 11]), ("BXOR", [0, 11]), ("REPLACE", [None, 11]), ("NO_OP", [0, 11])])
def test_accumulate_combines_with_each_predefined_operation(op, expected):
    def main(MPI):
        comm = MPI.COMM_WORLD
        win, memory = _window(MPI, 2)
        memory[1] = 11
        win.Fence()
        win.Accumulate(np.array([comm.rank], "i"), 0, 0, getattr(MPI, op))
        win.Fence()
        win.Free()
        return memory.tolist()

    got = run(4, main).returns[0]
    assert got == expected or op == "REPLACE" and got[0] in range(4) and got[1] == 11


def test_get_accumulate_fetches_the_old_value_atomically():
    def main(MPI):
        comm = MPI.COMM_WORLD
        win, memory = _window(MPI, 1)
        old, swapped = np.zeros(1, "i"), np.zeros(1, "i")
        win.Lock_all()
        win.Get_accumulate(np.array([comm.rank + 1], "i"), old, 0, None, MPI.SUM)
        win.Flush(0)
        MPI.COMM_WORLD.Barrier()
        win.Get_accumulate(np.array([comm.rank], "i"), swapped, 0, None, MPI.REPLACE)
        win.Unlock_all()
        comm.Barrier()
        seen = np.zeros(1, "i")
        win.Lock(0, MPI.LOCK_SHARED)
        win.Get_accumulate(None, seen, 0, (0, 1, MPI.INT), MPI.NO_OP)
        win.Unlock(0)
        win.Free()
        return int(old[0]), int(swapped[0]), int(seen[0])

    returns = run(3, main).returns
    order = sorted(range(3), key=lambda r: returns[r][0])      # each fetched the sum of those before it
    assert [returns[r][0] for r in order] == [0, order[0] + 1, order[0] + order[1] + 2]
    swapped = sorted(s for _, s, _ in returns)
    final = returns[0][2]
    assert sorted(swapped + [final]) == [0, 1, 2, 6] and all(seen == final for _, _, seen in returns)


def test_compare_and_swap_spin_lock_guards_a_read_modify_write():
    def main(MPI, n):
        comm = MPI.COMM_WORLD
        win, memory = _window(MPI, 2, "i8")        # [lock word, counter] at rank 0
        mine, free, old, value = np.array([comm.rank + 1], "i8"), np.zeros(1, "i8"), np.zeros(1, "i8"), \
            np.zeros(1, "i8")
        win.Lock_all()
        for _ in range(n):
            while True:
                win.Compare_and_swap(mine, free, old, 0, 0)
                win.Flush(0)
                if old[0] == 0:
                    break
            win.Get(value, 0, 1)
            win.Flush(0)
            value += 1
            win.Put(value, 0, 1)
            win.Flush(0)
            win.Accumulate(free, 0, 0, MPI.REPLACE)
            win.Flush(0)
        win.Unlock_all()
        comm.Barrier()
        win.Free()
        return memory.tolist()

    assert run(3, main, 4).returns[0] == [0, 12]


def test_post_start_complete_wait_between_pairs():
    def main(MPI):
        comm = MPI.COMM_WORLD
        me = comm.rank
        win, memory = _window(MPI, 2)
        partner = me ^ 1
        group = comm.Get_group().Incl([partner])
        if me % 2 == 0:                             # target, polling
            win.Post(group)
            polls = 0
            while not win.Test():
                polls += 1
            assert polls > 0
        else:                                       # origin
            MPI.sleep(1e-5)
            win.Start(group)
            win.Put(np.array([me, 100 + me], "i"), partner)
            win.Complete()
        win.Free()
        return memory.tolist()

    returns = run(4, main).returns
    assert returns == [[1, 101], [0, 0], [3, 103], [0, 0]]


def test_shared_windows_reach_each_others_memory_by_load_and_store():
    def main(MPI):
        node = MPI.COMM_WORLD.Split_type(MPI.COMM_TYPE_SHARED)
        win = MPI.Win.Allocate_shared(8 if node.rank else 0, 8, comm=node)
        own = np.frombuffer(win.tomemory(), "i8")
        if node.rank:
            own[0] = 100 + MPI.COMM_WORLD.rank
        win.Fence()
        memory, disp_unit = win.Shared_query(1)
        seen = int(np.frombuffer(memory, "i8")[0]), disp_unit, win.flavor == MPI.WIN_FLAVOR_SHARED
        win.Fence()
        win.Free()
        return seen

    assert run(4, main, ranks_per_node=2).returns == [(101, 8, True)] * 2 + [(103, 8, True)] * 2


def test_dynamic_windows_address_attached_memory():
    def main(MPI):
        comm = MPI.COMM_WORLD
        win = MPI.Win.Create_dynamic(comm=comm)
        memory = np.zeros(4, "i")
        win.Attach(memory)
        address = comm.bcast(MPI.Get_address(memory), root=1)
        win.Fence()
        if comm.rank == 0:
            win.Put(np.array([5, 6], "i"), 1, (MPI.Aint_add(address, 8), 2, MPI.INT))
        win.Fence()
        win.Detach(memory)
        win.Free()
        return memory.tolist()

    assert run(2, main).returns[1] == [0, 0, 5, 6]


def test_request_based_operations_complete_at_their_wait():
    def main(MPI):
        win, memory = _window(MPI, 2)
        memory[:] = [MPI.COMM_WORLD.rank, 1]
        MPI.COMM_WORLD.Barrier()
        got = np.zeros(2, "i")
        win.Lock_all()
        req = win.Rget(got, 1 - MPI.COMM_WORLD.rank)
        req.Wait()
        MPI.Request.Waitall([win.Rput(np.array([9], "i"), 1 - MPI.COMM_WORLD.rank, 1)])
        win.Unlock_all()
        MPI.COMM_WORLD.Barrier()
        win.Free()
        return got.tolist(), memory.tolist()

    assert run(2, main).returns == [([1, 1], [0, 9]), ([0, 1], [1, 9])]


def test_same_program_same_times_to_the_bit():
    def main(MPI):
        win, counter = _window(MPI, 1, "i8")
        one, old = np.ones(1, "i8"), np.zeros(1, "i8")
        for _ in range(3):
            win.Lock(0)
            win.Fetch_and_op(one, old, 0)
            win.Unlock(0)
        win.Free()
        return MPI.Wtime(), int(old[0])

    assert run(5, main).returns == run(5, main).returns


def test_a_window_tells_its_memory_group_flavor_and_model():
    def main(MPI):
        comm = MPI.COMM_WORLD
        win = MPI.Win.Allocate(8 * (comm.rank + 1), 8, comm=comm)
        base, size, disp_unit = win.attrs
        memory = np.frombuffer(win.tomemory(), "i8")
        facts = (size, disp_unit, memory.size, base == win.Get_attr(MPI.WIN_BASE) == memory.ctypes.data,
                 win.Get_attr(MPI.WIN_SIZE), win.flavor == MPI.WIN_FLAVOR_ALLOCATE, win.model == MPI.WIN_UNIFIED,
                 win.Get_group().Get_size(), win == MPI.WIN_NULL)
        win.Free()
        return facts + (win == MPI.WIN_NULL,)

    assert run(2, main).returns == [(8, 8, 1, True, 8, True, True, 2, False, True),
                                     (16, 8, 2, True, 16, True, True, 2, False, True)]


# -- erroneous use: one line --------------------------------------------------------------------------------
@pytest.mark.parametrize("body, message", [
    (lambda MPI, win: win.Put(np.ones(1, "i"), 1), "rank 0 in MPI_Put: no access epoch to rank 1 is open"),
    (lambda MPI, win: (win.Lock(1), win.Put(np.ones(1, "i"), 1, 4)),
     "rank 0 in MPI_Put: displacement 4 (+4 B) is outside rank 1's window of 16 B (MPI_ERR_RMA_RANGE)"),
    (lambda MPI, win: win.Unlock(1), "rank 0 in MPI_Win_unlock: the window is not locked at rank 1"),
    (lambda MPI, win: (win.Lock(1), win.Lock(1)), "rank 0 in MPI_Win_lock: the window is already locked at rank 1"),
    (lambda MPI, win: win.Complete(), "rank 0 in MPI_Win_complete: MPI_Win_complete without MPI_Win_start"),
    (lambda MPI, win: (win.Lock(1), win.Accumulate(np.ones(1, "i"), 1, 0, MPI.Op.Create(lambda a, b, t: b))),
     "one-sided accumulations take predefined operations only"),
    (lambda MPI, win: win.Sync(), "rank 0: MPI.Win.Sync is not supported by PPT's simulated MPI (RMA windows)"),
])
def test_erroneous_use_is_one_line_naming_the_call(body, message):
    def main(MPI):
        win, _ = _window(MPI, 4)
        if MPI.COMM_WORLD.rank == 0:
            body(MPI, win)
        MPI.COMM_WORLD.Barrier()

    with pytest.raises(MPIError) as error:
        run(2, main)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_null_window_refuses_calls_in_one_line():
    def main(MPI):
        null = MPI.Win()
        assert null == MPI.WIN_NULL and not null
        null.Fence()

    with pytest.raises(MPIError, match=r"^MPI_Win_fence: invalid handle: MPI.WIN_NULL is a null handle"):
        run(1, main)


def test_a_start_with_no_post_is_a_deadlock_naming_the_call():
    def main(MPI):
        win, _ = _window(MPI, 1)
        if MPI.COMM_WORLD.rank == 0:
            win.Start(MPI.COMM_WORLD.Get_group().Incl([1]))

    with pytest.raises(DeadlockError, match=r"rank 0 in MPI_Win_start\(waiting for rank 1, comm=dup#\d+\(WORLD\)\)"):
        run(2, main)

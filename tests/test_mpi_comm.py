"""Communicators, groups, Cartesian topologies, rank mapping, time and the LANL PPT aliases."""
import pytest

from mpi_helpers import run
from ppt.engine.process import ProcessError
from ppt.errors import ConfigError
from ppt.mpi import PROC_NULL, UNDEFINED, MPIError
from ppt.mpi.surface import lanl
from ppt.mpi.mapping import map_ranks


def test_split_orders_by_key_then_rank_and_undefined_gets_none():
    def main(mpi):
        comm = mpi.COMM_WORLD
        color = UNDEFINED if comm.rank == 5 else comm.rank % 2
        sub = comm.split(color, key=-(comm.rank // 2))
        if sub is None:
            return None
        return sub.rank, sub.size, list(sub.members)

    got = run(7, main).returns
    # colour 0: ranks 0,2,4,6 with keys 0,-1,-2,-3 -> order 6,4,2,0; colour 1: 1,3 (keys 0,-1) -> 3,1
    assert got[6] == (0, 4, [6, 4, 2, 0]) and got[0] == (3, 4, [6, 4, 2, 0])
    assert got[3] == (0, 2, [3, 1]) and got[1] == (1, 2, [3, 1]) and got[5] is None


def test_dup_has_its_own_message_space():
    def main(mpi):
        world = mpi.COMM_WORLD
        dup = world.dup()
        if world.rank == 0:
            dup.send("on dup", 1, 0)
            world.send("on world", 1, 0)
            return None
        return world.recv(0, 0), dup.recv(0, 0)

    assert run(2, main).returns[1] == ("on world", "on dup")


def _idup(comm):
    """The communicator MPI_Comm_idup makes, once its request is complete."""
    made, request = comm.Idup()
    request.Wait()
    return made


@pytest.mark.parametrize("make", [
    lambda MPI, comm: comm.Clone(),
    lambda MPI, comm: comm.Dup(MPI.INFO_NULL),
    lambda MPI, comm: comm.Dup_with_info(MPI.INFO_NULL),
    lambda MPI, comm: _idup(comm),
    lambda MPI, comm: comm.Idup_with_info(MPI.INFO_NULL)[0],
])
def test_a_clone_or_duplicate_has_its_own_message_space(make):
    def main(MPI):
        world = MPI.COMM_WORLD
        twin = make(MPI, world)
        if world.rank == 0:
            twin.send("on the twin", 1, 0)
            world.send("on world", 1, 0)
            return None
        return (world.recv(source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG), twin.recv(0, 0), twin.size, twin.rank,
                twin.Compare(world) == MPI.CONGRUENT)

    assert run(2, main).returns[1] == ("on world", "on the twin", 2, 1, True)


def test_a_clone_or_duplicate_of_a_cartesian_communicator_keeps_its_topology():
    def main(MPI):
        cart = MPI.COMM_WORLD.Create_cart([2, 3], periods=[True, False])
        return [(type(c).__name__, c.Get_topo(), c.Shift(0, 1)) for c in (cart.Clone(), cart.Dup(), _idup(cart))]

    got = run(6, main).returns
    assert got[4] == [("Cartcomm", ([2, 3], [1, 0], [1, 1]), (1, 1))] * 3       # periodic: rank 1 both ways


def test_idup_completes_at_once_in_the_time_of_dup():
    def main(MPI, nonblocking):
        world = MPI.COMM_WORLD
        if not nonblocking:
            return world.Dup().allreduce(world.rank)
        made, request = world.Idup()
        return request.Test(), made.allreduce(world.rank), request == MPI.REQUEST_NULL

    blocking, started = run(4, main, False), run(4, main, True)
    assert started.returns == [(True, 6, True)] * 4
    assert started.predicted_s == blocking.predicted_s
    assert started.calls["MPI_Comm_idup"] == 4 and "MPI_Comm_dup" not in started.calls


def test_an_info_other_than_info_null_is_a_type_error():
    def main(MPI):
        MPI.COMM_WORLD.Dup_with_info({"hint": "1"})

    with pytest.raises(ProcessError, match=r"raised TypeError: Argument 'info' has incorrect type \(expected "
                                           r"mpi4py.MPI.Info, got dict\)$"):
        run(1, main)


def test_create_group_is_made_by_the_groups_members_alone():
    def main(MPI):
        world = MPI.COMM_WORLD
        pending = world.Ibarrier()              # a collective of the parent in flight meanwhile
        if world.rank not in (4, 1, 3):          # the others exchange messages of any tag among themselves
            world.send(f"from {world.rank}", 2 if world.rank == 0 else 0, tag=5)
            heard = world.recv(source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG)
            pending.Wait()
            return heard
        sub = world.Create_group(world.Get_group().Incl([4, 1, 3]), tag=9)
        pending.Wait()
        back = sub.Get_group().Translate_ranks([0, 1, 2], world.Get_group())
        return (sub.rank, sub.size, back, sub.allgather(world.rank), sub.allreduce(world.rank), sub.ctx,
                world.ctx)

    first = run(5, main)
    got = first.returns
    assert [got[r][:5] for r in (4, 1, 3)] == [(i, 3, [4, 1, 3], [4, 1, 3], 8) for i in range(3)]
    assert got[0] == "from 2" and got[2] == "from 0" and first.calls["MPI_Comm_create_group"] == 3
    ids = {got[r][5] for r in (1, 3, 4)}
    assert len(ids) == 1 and ids != {got[1][6]} and run(5, main).returns == got        # one id, the same each run


def test_create_group_gives_comm_null_to_a_caller_outside_the_group():
    def main(MPI):
        world = MPI.COMM_WORLD
        sub = world.Create_group(world.Get_group().Incl([2, 0]))
        return None if sub == MPI.COMM_NULL else (sub.rank, sub.allreduce(world.rank))

    assert run(3, main).returns == [(1, 2), None, (0, 2)]


def test_create_group_of_processes_outside_the_communicator_is_an_error():
    def main(MPI):
        MPI.COMM_SELF.Create_group(MPI.COMM_WORLD.Get_group())

    with pytest.raises(MPIError, match="the group holds processes outside SELF"):
        run(2, main)


def test_context_ids_differ_for_overlapping_communicators_created_in_any_order():
    def main(mpi):
        world = mpi.COMM_WORLD
        low = world.split(0 if world.rank < 3 else UNDEFINED)      # ranks 0-2
        high = world.split(0 if world.rank >= 1 else UNDEFINED)    # ranks 1-3
        ids = []
        if low is not None:
            ids.append(("low", low.ctx))
        if high is not None:
            ids.append(("high", high.ctx))
        return ids

    for ids in run(4, main).returns:
        assert len({ctx for _, ctx in ids}) == len(ids)


def test_groups_incl_excl_translate_and_create():
    def main(mpi):
        world = mpi.COMM_WORLD
        group = world.group
        evens = group.incl([4, 2, 0])
        odds = group.excl([0, 2, 4])
        translated = evens.translate_ranks([0, 1, 2], group)
        back = group.translate_ranks([1, 2, PROC_NULL], evens)
        comm = world.create(evens)
        result = (evens.rank, odds.rank, evens.size, translated, back,
                  None if comm is None else (comm.rank, comm.allreduce(world.rank)))
        evens.free()
        return result

    got = run(5, main).returns
    assert got[4] == (0, UNDEFINED, 3, [4, 2, 0], [UNDEFINED, 1, PROC_NULL], (0, 6))
    assert got[3] == (UNDEFINED, 1, 3, [4, 2, 0], [UNDEFINED, 1, PROC_NULL], None)
    assert got[0][5] == (2, 6)


@pytest.mark.parametrize("use", [
    lambda world, c, g: c.send(None, 0),
    lambda world, c, g: c.barrier(),
    lambda world, c, g: g.incl([0]),
])
def test_using_a_freed_communicator_or_group_is_an_error(use):
    def main(mpi):
        world = mpi.COMM_WORLD
        comm = world.dup()
        group = world.group
        comm.free()
        group.free()
        use(world, comm, group)

    with pytest.raises(MPIError, match=r"rank [01] in MPI_\w+: .* was freed"):      # both ranks make the call
        run(2, main)


def test_group_rank_errors_name_the_call():
    def main(mpi):
        mpi.COMM_WORLD.group.incl([0, 9])

    with pytest.raises(MPIError, match="rank 0 in MPI_Group_incl: rank 9 is not in the group of 3"):
        run(3, main)


def test_cartesian_coordinates_and_shifts_at_edges():
    def main(mpi):
        cart = mpi.COMM_WORLD.cart_create([3, 4], periods=[False, True])
        if cart is None:
            return None
        return cart.coords, cart.cart_shift(0, 1), cart.cart_shift(1, 1), cart.cart_shift(1, -2)

    got = run(13, main).returns
    assert got[12] is None                       # outside the 3x4 grid
    assert got[0] == ((0, 0), (PROC_NULL, 4), (3, 1), (2, 2))
    assert got[11] == ((2, 3), (7, PROC_NULL), (10, 8), (9, 9))
    assert got[5] == ((1, 1), (1, 9), (4, 6), (7, 7))


def test_halo_exchange_with_proc_null_edges():
    def main(mpi):
        cart = mpi.COMM_WORLD.cart_create([4], periods=[False])
        source, dest = cart.cart_shift(0, 1)
        from_left = cart.sendrecv(cart.rank, dest, 0, source, 0, nbytes=800)
        return from_left

    assert run(4, main).returns == [None, 0, 1, 2]


def test_cart_create_rejects_a_grid_larger_than_the_communicator():
    def main(mpi):
        mpi.COMM_WORLD.cart_create([2, 3])

    with pytest.raises(MPIError, match="rank 0 in MPI_Cart_create: Cartesian grid \\[2, 3\\] has 6 cells"):
        run(4, main)


def test_compute_and_sleep_advance_time_and_count_as_compute():
    def main(mpi):
        mpi.compute(2e-3)
        mpi.sleep(1e-3)
        mpi.COMM_WORLD.barrier()
        return mpi.wtime()

    result = run(2, main)
    assert result.per_rank[0]["compute_s"] == pytest.approx(3e-3)
    assert result.per_rank[0]["comm_s"] == pytest.approx(result.predicted_s - 3e-3)
    assert result.calls == {"MPI_Barrier": 2}


def test_compute_of_a_tasklist_needs_a_node_model():
    def main(mpi):
        mpi.compute([("fALU", 1000)])

    with pytest.raises(MPIError, match="rank 0 in compute: compute\\(tasklist\\) needs a node model"):
        run(1, main)


@pytest.mark.parametrize("mapping, expected", [
    ("linear", [0, 0, 1, 1, 2]),
    ("round-robin", [0, 1, 2, 0, 1]),
])
def test_rank_mappings(mapping, expected):
    assert map_ranks(5, 2, 10, mapping) == expected


def test_random_mapping_is_seeded_and_respects_ranks_per_node():
    a, b, c = (map_ranks(12, 3, 100, "random", seed) for seed in (1, 1, 2))
    assert a == b and a != c
    assert max(a.count(n) for n in set(a)) <= 3 and len(set(a)) == 4


def test_mapping_from_file_and_errors(tmp_path):
    path = tmp_path / "map.txt"
    path.write_text("# node per rank\n3 3\n0\n")
    assert map_ranks(3, 2, 4, str(path)) == [3, 3, 0]
    with pytest.raises(ConfigError, match="puts 2 ranks on node 3"):
        map_ranks(3, 1, 4, str(path))
    with pytest.raises(ConfigError, match="need 3 nodes, but the system has 2"):
        map_ranks(5, 2, 2, "linear")


def test_lanl_style_program_ports():
    def app(comm_world, scale):
        n, p = lanl.mpi_comm_size(comm_world), lanl.mpi_comm_rank(comm_world)
        lanl.mpi_send((p + 1) % n, f"hello from {p}", 100, comm_world)
        msg = lanl.mpi_recv(comm_world)
        total = lanl.mpi_allreduce(p * scale, comm_world, op="max")
        req = lanl.mpi_irecv(comm_world, (p - 1) % n, "t")
        lanl.mpi_wait(lanl.mpi_isend((p + 1) % n, p, 8, comm_world, type="t"))
        got = lanl.mpi_wait(req)
        cart = lanl.mpi_cart_create(comm_world, [n], [False])
        lanl.mpi_ext_sleep(1e-6, comm_world)
        return msg["from_rank"], msg["data"], msg["data_size"], total, got["data"], \
            lanl.mpi_cart_shift(cart, 0, 1), lanl.mpi_bcast(0, p, comm_world)

    got = run(3, lanl.lanl_main(app), 10).returns
    assert got[0] == (2, "hello from 2", 100, 20, 2, (None, 1), 0)
    assert got[2] == (1, "hello from 1", 100, 20, 1, (1, None), 0)


# -- mpi4py's spellings ------------------------------------------------------------
def test_a_script_in_mpi4py_spellings_runs_on_the_simulated_mpi():
    import mpi4py_script
    result = run(4, mpi4py_script.main)
    got = result.returns
    assert got[1]["recv"] == [[0.0, 1.0, 2.0, 3.0], 0, 7, 4]
    assert [r["p2p"] for r in got] == [[3, [3.0, -3.0]], [0, [0.0, 0.0]], [1, [1.0, -1.0]], [2, [2.0, -2.0]]]
    assert [r["coll"] for r in got] == [[42.0, 6.0, 4.0, 12.0]] + [[42.0, 6.0, 0.0, 12.0]] * 3
    assert got[0]["comms"] == [1, 2, 4, 4, 0, 2, 3, 1, 2, [0, 0], 3, ["null", 1]]
    assert got[3]["comms"] == [0, 2, 4, 4, 3, 2, 3, 1, 2, [1, 1], 3, [2, "null"]]
    # the capitalised names are the PEP 8 calls: counted under the same MPI names
    assert result.calls["MPI_Comm_split"] == 4 and result.calls["MPI_Allreduce"] == 8
    assert result.calls["MPI_Comm_free"] == 12 and result.calls["MPI_Irecv"] == 4


@pytest.mark.mpiexec
def test_the_mpi4py_script_gives_the_same_results_on_mpi4py():
    import json
    import os
    import subprocess
    import sys

    import mpi4py_script
    from test_engine import _mpiexec
    real = subprocess.run([_mpiexec(), "-n", "4", sys.executable, mpi4py_script.__file__],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                          cwd=os.path.dirname(mpi4py_script.__file__))
    assert real.returncode == 0, real.stderr
    simulated = json.loads(json.dumps(run(4, mpi4py_script.main).returns))
    assert json.loads(real.stdout) == simulated


def test_mpi4py_buffer_calls_copy_sends_and_fill_receive_buffers():
    import numpy as np

    def main(MPI):
        comm = MPI.COMM_WORLD
        buf = np.full(3, float(comm.Get_rank()))
        if comm.Get_rank() == 0:
            comm.Send(buf, dest=1)
            buf[:] = -1.0                       # reusing the buffer must not change the sent message
            comm.Send([b"abc", MPI.BYTE], dest=1)
            comm.Send(7, dest=1)
            return None
        status, into = MPI.Status(), bytearray(3)
        comm.Recv([buf, 3, MPI.DOUBLE], source=0, status=status)
        comm.Irecv(into, source=0).Wait()      # filled when the wait retires the request
        with pytest.raises(MPIError, match="cannot receive into a tuple"):
            comm.Recv((1, 2), source=0)
        return buf.tolist(), status.Get_count(), status.Get_count(MPI.DOUBLE), bytes(into)

    assert run(2, main).returns[1] == ([0.0, 0.0, 0.0], 24, 3, b"abc")


def test_call_as_counts_and_times_one_call_under_the_given_name():
    def exchange(comm, value):
        return comm.sendrecv(value, dest=1 - comm.rank, source=1 - comm.rank, nbytes=1000)

    def main(mpi):
        comm = mpi.COMM_WORLD
        got = mpi.call_as("MPI_Traced_exchange", exchange, comm, comm.rank)
        group = mpi.group([1, 0])
        return got, group.rank, group.size

    result = run(2, main)
    assert result.returns == [(1, 1, 2), (0, 0, 2)]
    assert result.calls == {"MPI_Traced_exchange": 2}
    assert all(entry["comm_s"] > 0.0 for entry in result.per_rank)

"""mpi4py's API on the simulated MPI: programs print what they print on real mpi4py; gaps fail in one line.

The programs of ``mpi4py_api_programs`` run once under ``mpiexec -n 4`` (one
launch for all of them) and on 4 simulated ranks of one node; their results
(``repr`` strings) must be equal.  The other tests pin simulated behaviour
that real MPI leaves to timing: synchronous and buffered sends, the cost of
polling, errors.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import mpi4py_api_programs as programs
from mpi_helpers import as_recorded, message_s, network, run
from ppt.errors import DeadlockError
from ppt.hardware.systems import load_system
from ppt.machine import Machine
from ppt.mpi import MPIError, MPIJob
from ppt.mpi.errors import AbortCalled
from ppt.mpi.settings import POLL_OVERHEAD_S, MPISettings


def simulated(name: str) -> list:
    """Every rank's results of program ``name`` on 4 simulated ranks sharing a node."""
    return run(4, programs.PROGRAMS[name], ranks_per_node=4).returns


@pytest.fixture(scope="module")
def real_results():
    from test_engine import _mpiexec
    out = subprocess.run([_mpiexec(), "-n", "4", sys.executable, programs.__file__], stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=180, cwd=os.path.dirname(programs.__file__))
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


@pytest.mark.mpiexec
@pytest.mark.parametrize("name", list(programs.PROGRAMS))
def test_a_program_prints_what_it_prints_on_real_mpi4py(real_results, name):
    assert simulated(name) == real_results[name]


# -- results pinned without mpiexec (the values real mpi4py gives) ------------------------------
def test_buffer_collectives_move_and_reduce_the_data():
    got = [[eval(item) for item in rank] for rank in simulated("collectives_buffers")]
    zero, three = got[0], got[3]
    assert zero[0] == [0.0, 2.0, 4.0, 6.0]                  # Bcast from 1, then 2 items from 0
    assert [r[1] for r in got] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert three[2] == [9.0, 10.5, 12.0, 13.5]              # Scatterv: 4 items from displacement 6
    assert three[4] == [0, 0, 1, 1, 2, 4, 3, 9]             # Gather at root 3
    assert zero[5] == [0.0, 0.0, 0.25, 1.25, 1.25, 2.25, 2.25, 2.25, 3.25, 3.25, 3.25, 3.25]
    assert (zero[12], three[12]) == ([1000.0, 2000.0, 2001.0], [1003.0, 2003.0, 2004.0])   # Alltoallv
    assert zero[13:19] == [[6, 4, -6], [3, 1, 0], [24.0, 16.0], [0], [0, 1], [15]]
    assert [r[19] for r in got] == [[0.0, 10.0], [20.0, 30.0], [40.0, 50.0], [60.0, 70.0]]
    assert three[20:26] == [[24, 28, 32, 36], [1, 1, 1, 1], [24.0, 28.0], [24, 16], [6, 6], [10.0]]
    assert zero[24] == [-9, -9]                              # Exscan leaves rank 0's buffer alone
    assert zero[26:28] == [[10.0], [0, 1, 2, 3]]             # nonblocking collectives


def test_buffer_messages_take_counts_displacements_and_types():
    got = simulated("p2p_buffers")[1]
    assert got[3:6] == ["5", "20", "5"]                      # Get_count(INT), in bytes, Get_elements(INT)
    assert got[10:15] == ["[0.0, 1.0, 2.0, -1.0, -1.0, -1.0]", "3", "[4.0, 5.0, -1.0, -1.0, -1.0, -1.0]", "2",
                          "[0, 0, 1, 2]"]                    # [buf, 3, T], [buf, (2, 4), T], [buf, 2, 2, T]
    assert got[20:23] == ["[1.0, 2.0]", "16", "2"]           # doubles received as bytes
    assert got[28:30] == ["[0, 3, 1, 4, 2, 5]", "[[0, 2, 4], [1, 3, 5]]"]   # Fortran-ordered: memory order
    assert got[30:33] == ["[0.0, 0.0]", "[2, 4]", "[5.0, 5.0]"]   # Sendrecv(_replace), PROC_NULL


def test_derived_datatypes_pick_and_place_their_elements():
    got = simulated("derived_datatypes")[1]
    assert got[0] == "(32, (0, 104), (0, 104), 0, 104)"    # a column of a 4x4 double matrix
    assert got[1] == "(16, (0, 64), (20, 24), 0, 64)"      # a 2x2 subarray at (1, 1) of 4x4 ints
    assert got[6:10] == ["[[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 4.0, 0.0], [0.0, 0.0, 8.0, 0.0], [0.0, 0.0, 12.0, 0.0]]",
                         "1", "4", "4"]                     # column 0 of rank 0 into column 2
    assert got[10:15] == ["[5, 6, 9, 10]", "[[-1, -1, -1, -1], [-1, 10, 12, -1], [-1, 18, 20, -1], [-1, -1, -1, -1]]",
                          "[0, 1, -1, -1, -1, 2]", "[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]", "[1, 4]"]
    assert got[16] == "[0.0, 1.0, 0.0, 0.0, 4.0, 5.0, 0.0, 0.0]"   # hvector: 2 blocks of 2, 32 bytes apart


def test_requests_return_what_mpi4py_returns_and_persistent_ones_restart():
    got = simulated("requests")[1]
    assert got[18:24] == ["None", "None", "True", "True", "-32766", "(-32766, True)"]
    assert got[25:28] == ["False", "True", "True"]           # a request is REQUEST_NULL once waited for
    assert got[29:36] == ["[0, 0]", "[0, 1]", "[0, 2]", "True", "[0, 99]", "True", "True"]
    objects = simulated("p2p_objects")[1]
    assert objects[15:19] == ["None", "-1", "-1", "0"]       # a receive from PROC_NULL
    assert objects[19:21] == ["[0, None]", "[None, 0]"]      # waitall: payloads, None for sends


def test_user_ops_follow_mpi4py_conventions():
    got = [eval(item) for item in simulated("collectives_objects")[0]]
    assert got[14:17] == [((0, 1), (2, 3)), False, True]    # fn(a, b, None) on objects, rank order kept
    assert got[17:19] == [[33, 121], 8.0]                    # fn(inbuf, inoutbuf, datatype) on buffers
    assert got[8:10] == [(1, 1), (0, 1)]                     # MAXLOC / MINLOC: lowest index on ties


def test_cartesian_results_are_lists_as_in_mpi4py():
    got = simulated("communicators")[3]
    assert got[38:47] == ["[2, 2]", "[1, 0]", "[1, 1]", "[1, 1]", "([2, 2], [1, 0], [1, 1])", "2", "(1, 1)",
                          "(2, -1)", "(-1, 2)"]             # Shift: PROC_NULL is MPICH's -1


# -- what real MPI leaves to timing ------------------------------------------------------------
def test_ssend_waits_for_the_receiver_and_bsend_does_not():
    big = np.zeros(1 << 17)                                 # 1 MiB: rendezvous for Send

    def main(MPI):
        comm = MPI.COMM_WORLD
        if comm.rank == 0:
            comm.Ssend(np.zeros(1), dest=1, tag=1)
            after_ssend = MPI.Wtime()
            comm.Bsend(big, dest=1, tag=2)
            return after_ssend, MPI.Wtime()
        MPI.sleep(1e-3)
        comm.Recv(np.zeros(1), source=0, tag=1)
        MPI.sleep(1e-3)
        comm.Recv(np.zeros_like(big), source=0, tag=2)
        return None

    after_ssend, after_bsend = run(2, main).returns[0]
    assert after_ssend > 1e-3                                # matched only when rank 1 posts its receive
    assert after_bsend == pytest.approx(after_ssend)         # buffered: returns before rank 1 receives


def test_ibarrier_completes_once_all_entered_and_lets_the_rank_work_meanwhile():
    def main(MPI):
        comm = MPI.COMM_WORLD
        if comm.rank == 0:
            MPI.sleep(1e-3)
            comm.Ibarrier().Wait()
            return None
        if comm.rank == 2:
            comm.send("while waiting", dest=1)
        req = comm.Ibarrier()
        early = req.Test()
        got = comm.recv(source=2) if comm.rank == 1 else None
        got_at = MPI.Wtime()
        req.Wait()
        return early, got, got_at, MPI.Wtime()

    early, got, got_at, done = run(4, main).returns[1]
    assert not early and got == "while waiting"
    assert got_at < 1e-4 and 1e-3 < done < 1e-3 + 1e-4        # received during the barrier, which ends after rank 0


def test_a_sparse_exchange_with_ibarrier_ends():
    got = [[eval(item) for item in rank] for rank in simulated("sparse_exchange")]
    assert got == [[[[1, 0], [2, 0]], [1, 2]], [[[0, 1], [3, 1]], [0, 3]], [[[0, 2], [3, 2]], [0, 3]],
                   [[[1, 3], [2, 3]], [1, 2]]]


# -- persistent requests, matched probes and Ibarrier ----------------------------------------------------
def _ring_of_messages(MPI, persistent: bool, nbytes: int):
    """Three rounds of a ring of ``nbytes``-byte messages, by persistent requests or by the calls they stand
    for; each rank's clock after each round and what it received."""
    comm = MPI.COMM_WORLD
    right, left = (comm.rank + 1) % comm.size, (comm.rank - 1) % comm.size
    outgoing, incoming = np.zeros(nbytes // 8), np.zeros(nbytes // 8)
    if persistent:
        reqs = [comm.Recv_init(incoming, source=left, tag=3), comm.Ssend_init(outgoing, dest=right, tag=3)]
    clocks, got = [], []
    for step in range(3):
        MPI.sleep(1e-6 * comm.rank * step)
        outgoing[:] = comm.rank + step
        if not persistent:
            reqs = [comm.Irecv(incoming, source=left, tag=3), comm.Issend(outgoing, dest=right, tag=3)]
        else:
            MPI.Prequest.Startall(reqs)
        MPI.Request.Waitall(reqs)
        clocks.append(MPI.Wtime())
        got.append(incoming[0])
    return clocks, got


@pytest.mark.parametrize("nbytes", [64, 16384])
def test_a_persistent_request_times_as_the_call_it_starts(nbytes):
    overheads = {"send_overhead_s": 1e-6, "recv_overhead_s": 2e-6}
    started = run(3, _ring_of_messages, True, nbytes, ranks_per_node=2, **overheads)
    called = run(3, _ring_of_messages, False, nbytes, ranks_per_node=2, **overheads)
    assert started.returns == called.returns and started.predicted_s == called.predicted_s
    assert [got for _, got in started.returns] == [[2.0, 3.0, 4.0], [0.0, 1.0, 2.0], [1.0, 2.0, 3.0]]


def test_a_matched_message_goes_to_its_own_receive_only():
    def main(MPI):
        comm = MPI.COMM_WORLD
        if comm.rank == 0:
            large = comm.isend("large", dest=1, tag=5, nbytes=10000)  # rendezvous: received by its CTS
            comm.send("small", dest=1, tag=5, nbytes=8)
            large.wait()
            return None
        nothing = comm.improbe(source=0, tag=6)
        MPI.sleep(1e-4)
        status = MPI.Status()
        message = comm.mprobe(source=MPI.ANY_SOURCE, tag=5, status=status)
        after = comm.recv(source=0, tag=5)                          # the next message: the first is taken
        request = message.irecv()
        first = request.wait()
        null = comm.mprobe(source=MPI.PROC_NULL).recv()
        return nothing, status.bytes, after, first, null, MPI.Wtime()

    nothing, nbytes, after, first, null, done_s = run(2, main, send_overhead_s=1e-6, recv_overhead_s=1e-6).returns[1]
    assert (nothing, nbytes, after, first, null) == (None, 10000, "small", "large", None)
    assert done_s > 1e-4 + message_s(10000)                          # the data came after the Mrecv


def test_ibarrier_ends_after_the_last_rank_enters_on_any_communicator():
    def main(MPI):
        world = MPI.COMM_WORLD
        comm = world.split(world.rank % 2)
        MPI.sleep(1e-5 * world.rank)
        entered = MPI.Wtime()
        request = comm.ibarrier()
        request.wait()
        return comm.rank, entered, MPI.Wtime()

    result = run(5, main, ranks_per_node=2, send_overhead_s=1e-6, recv_overhead_s=1e-6).returns
    for parity in (0, 1):
        members = result[parity::2]
        assert all(done > max(entered for _, entered, _ in members) for _, _, done in members)


def test_an_ibarrier_a_rank_never_enters_is_a_deadlock():
    def main(MPI):
        if MPI.COMM_WORLD.rank != 2:
            MPI.COMM_WORLD.ibarrier().wait()

    with pytest.raises(DeadlockError, match=r"rank 0 in MPI_Wait\(Ibarrier round to rank 1, comm=WORLD\)"):
        run(3, main)


def test_an_ibarrier_against_a_barrier_is_a_mismatch():
    def main(MPI):
        comm = MPI.COMM_WORLD
        if comm.rank == 0:
            comm.barrier()
        else:
            comm.ibarrier().wait()

    with pytest.raises(MPIError, match="collective mismatch"):
        run(2, main)


@pytest.mark.parametrize("name", ["requests", "p2p_objects", "sparse_exchange"])
def test_persistent_matched_and_ibarrier_programs_run_as_recorded_on_the_packet_network(name):
    job = MPIJob.on_machine(Machine(load_system("fattree-4-3"), "packet"), 4, ranks_per_node=2)
    as_recorded(job.run(programs.PROGRAMS[name]))


def poll_job(poll_overhead_s: float):
    settings = MPISettings(4096, 0.0, 0.0, poll_overhead_s)
    return MPIJob(network(2), 2, comm=None, settings=settings)


@pytest.mark.parametrize("poll_overhead_s", [POLL_OVERHEAD_S, 1e-6])
def test_a_polling_loop_ends_and_pays_for_each_round(poll_overhead_s):
    def main(MPI):
        comm = MPI.COMM_WORLD
        if comm.rank == 0:
            MPI.sleep(1e-4)
            comm.Send(np.arange(3.0), dest=1)
            return None
        got = np.zeros(3)
        req, rounds = comm.Irecv(got, source=0), 0
        while not req.Test():
            rounds += 1
        probes = 0
        while not comm.Iprobe(source=0):
            probes += 1
            if probes == 5:
                break
        return rounds, MPI.Wtime(), got.tolist(), probes

    rounds, done_s, got, probes = poll_job(poll_overhead_s).run(main).returns[1]
    arrival = 1e-4 + message_s(24)
    assert got == [0.0, 1.0, 2.0] and probes == 5
    assert rounds == pytest.approx(arrival / poll_overhead_s, abs=2)
    assert arrival <= done_s <= arrival + poll_overhead_s + 5 * poll_overhead_s


def test_poll_overhead_is_an_mpi_setting():
    assert MPISettings.from_preset({}).poll_overhead_s == POLL_OVERHEAD_S == 1e-7
    assert MPISettings.from_preset({"mpi": {"poll_overhead_s": 2e-7}}).poll_overhead_s == 2e-7


def test_nonblocking_collectives_and_mprobe_are_counted_under_their_names():
    result = run(4, programs.collectives_buffers)
    calls = result.calls
    assert calls["MPI_Ibcast"] == calls["MPI_Ibarrier"] == calls["MPI_Iallreduce"] == 4
    assert calls["MPI_Reduce_scatter"] == 8 and calls["MPI_Reduce_scatter_block"] == 8
    assert "MPI_Allgather" in calls and calls["MPI_Allgather"] == 8   # Reduce_scatter's counts: not counted
    assert run(4, programs.p2p_objects).calls["MPI_Mprobe"] == 1


# -- errors --------------------------------------------------------------------------------------
def failure(main, ranks: int = 4):
    with pytest.raises(Exception) as caught:
        run(ranks, main)
    return caught.value


def test_unsupported_calls_fail_in_one_line_naming_the_call():
    def window(MPI):
        if MPI.COMM_WORLD.rank == 3:
            MPI.Win.Allocate(8).Sync()

    error = failure(window)
    assert isinstance(error, MPIError) and "\n" not in str(error)
    assert str(error).startswith("rank 3: MPI.Win.Sync is not supported by PPT's simulated MPI (RMA windows); ")

    for call, area in [(lambda MPI: MPI.COMM_WORLD.Spawn, "MPI.Comm.Spawn is not supported by PPT's simulated MPI "
                        "(dynamic process management)"),
                       (lambda MPI: MPI.File.Open, "MPI.File.Open is not supported by PPT's simulated MPI (MPI-IO)"),
                       (lambda MPI: MPI.DOUBLE.Create_struct, "MPI.Datatype.Create_struct is not supported"),
                       (lambda MPI: MPI.Request.Cancel, "MPI.Request.Cancel is not supported"),
                       (lambda MPI: MPI.Comm.Get_parent(), "MPI.Comm.Get_parent is not supported"),
                       (lambda MPI: MPI.COMM_WORLD.Psend_init, "(partitioned communication)")]:
        assert area in str(failure(call))


def test_names_mpi4py_lacks_too_are_attribute_errors():
    for lookup, text in [(lambda MPI: MPI.Not_a_call, "module 'mpi4py.MPI' has no attribute 'Not_a_call'"),
                         (lambda MPI: MPI.COMM_WORLD.not_a_method, "'Comm' object has no attribute 'not_a_method'"),
                         (lambda MPI: MPI.Status().Get_nothing, "'Status' object has no attribute 'Get_nothing'"),
                         (lambda MPI: MPI.Comm.Not_there, "'Comm' object has no attribute 'Not_there'")]:
        error = failure(lookup, 1)
        assert not isinstance(error, MPIError) and f"raised AttributeError: {text}" in str(error)


def test_abort_stops_the_job_with_the_rank_and_error_code():
    def main(MPI):
        if MPI.COMM_WORLD.rank == 2:
            MPI.COMM_WORLD.Abort(3)
        MPI.COMM_WORLD.Barrier()

    error = failure(main)
    assert isinstance(error, AbortCalled) and isinstance(error, MPIError)
    assert (error.rank, error.errorcode) == (2, 3)


def test_a_buffer_argument_without_a_buffer_is_an_error():
    def main(MPI):
        MPI.COMM_WORLD.Send([1, 2, 3], dest=0)

    assert "rank 0 in MPI_Send: cannot send from a list: give a numpy array" in str(failure(main, 1))


def test_a_message_longer_than_the_receive_buffer_is_an_error():
    def main(MPI):
        comm = MPI.COMM_WORLD
        if comm.rank == 0:
            comm.Send(np.arange(4, dtype="i"), dest=1)
        else:
            comm.Recv(np.zeros(3, dtype="i"), source=0)

    assert "message truncated: 16 bytes arrived for a receive buffer of 12 bytes" in str(failure(main, 2))


def test_environment_of_a_rank():
    def main(MPI):
        before = MPI.Is_finalized()
        MPI.sleep(2e-3)
        now = MPI.Wtime()
        MPI.Finalize()
        return MPI.Get_processor_name(), now, before, MPI.Is_finalized(), MPI.Get_version()

    got = run(4, main, ranks_per_node=2).returns
    assert [g[0] for g in got] == ["nid00000", "nid00000", "nid00001", "nid00001"]
    assert got[3][1:] == (pytest.approx(2e-3), False, True, (3, 1))

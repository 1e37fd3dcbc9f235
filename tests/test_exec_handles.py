"""``ppt exec``: mpi4py's null handles, and what MPICH refuses (calls after Finalize, a second Init,
freeing COMM_WORLD), with the messages and exit statuses MPICH gives (checked against a real run of
each by hand; ``test_exec_vs_mpiexec`` compares some live)."""
import pytest

from test_exec import ppt_exec, write

ANALYTIC = ("-n", "2", "--system", "edison", "--network", "analytic", "--compute", "none")


def run(tmp_path, source, *options):
    program = write(tmp_path, "prog.py", source)
    return ppt_exec(program, *ANALYTIC, "--summary", tmp_path / "summary.txt", *options)


def test_constructors_without_arguments_make_null_handles(tmp_path):
    status, out, err = run(tmp_path, """
        from mpi4py import MPI
        for make, null in [(MPI.Request, MPI.REQUEST_NULL), (MPI.Comm, MPI.COMM_NULL), (MPI.Group, MPI.GROUP_NULL),
                           (MPI.Datatype, MPI.DATATYPE_NULL), (MPI.Op, MPI.OP_NULL), (MPI.Message, MPI.MESSAGE_NULL)]:
            handle = make()
            print(make.__name__, handle == null, null == handle, bool(handle), handle != null,
                  type(handle).__name__)
    """)
    assert status == 0, err
    expected = [f"{name} True True False False {name}" for name in
                ("Request", "Comm", "Group", "Datatype", "Op", "Message")]
    assert out.splitlines() == expected * 2


def test_null_requests_complete_at_once_alone_and_among_others(tmp_path):
    status, out, err = run(tmp_path, """
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        other = 1 - comm.rank
        null = MPI.Request()
        print(null.Wait(), null.Test(), MPI.Request.Waitall([MPI.Request(), MPI.REQUEST_NULL]),
              MPI.Request.Waitany([MPI.Request()]), MPI.Request.Testany([null]), MPI.Request.Waitsome([null]),
              MPI.Request.Testall([null]))
        reqs = [MPI.Request(), comm.isend(comm.rank, dest=other), MPI.REQUEST_NULL, comm.irecv(source=other)]
        print(MPI.Request.waitall(reqs), reqs[1] == MPI.REQUEST_NULL, bool(reqs[3]))
    """)
    assert status == 0, err
    lines = out.splitlines()       # mpi4py's uppercase calls return what real mpi4py 4 returns
    assert lines[:2] == ["True True True -32766 (-32766, True) None True"] * 2
    assert sorted(lines[2:]) == ["[None, None, None, 0] True False", "[None, None, None, 1] True False"]


def test_a_call_on_a_null_handle_is_one_line(tmp_path):
    status, _, err = run(tmp_path, "from mpi4py import MPI\nMPI.Comm().Barrier()\n")
    assert status == 2 and err == ("ppt: error: MPI_Barrier: invalid handle: MPI.COMM_NULL is a null handle; "
                                   "make the object with an MPI call before using it\n")


@pytest.mark.parametrize("call, routine", [("MPI.COMM_WORLD.Barrier()", "Barrier"), ("MPI.Wtime()", "Wtime"),
                                           ("MPI.Finalize()", "Finalize"), ("MPI.COMM_WORLD.send(1, 0)", "Send")])
def test_a_call_after_finalize_ends_the_rank_as_mpich_ends_it(tmp_path, call, routine):
    status, out, err = run(tmp_path, f"""
        import time
        from mpi4py import MPI
        MPI.Finalize()
        print(MPI.Is_finalized(), time.time() > 0)        # the program's clocks still tell time
        {call}
        print("not reached")
    """)
    assert status == 1 and out == "True True\n" * 2
    line = f"Attempting to use an MPI routine (internal_{routine}) before initializing or after finalizing MPICH\n"
    assert err == line * 2


def test_init_is_refused_after_mpi4pys_own_and_allowed_without_it(tmp_path):
    status, _, err = run(tmp_path, "from mpi4py import MPI\nMPI.Init()\n")
    assert status == 2 and err == ("ppt: error: rank 0 in MPI_Init: cannot call MPI_INIT or MPI_INIT_THREAD more "
                                   "than once (mpi4py initialises MPI when it is imported unless "
                                   "mpi4py.rc.initialize is False)\n")
    status, out, err = run(tmp_path, """
        import mpi4py
        mpi4py.rc(initialize=False)
        from mpi4py import MPI
        before = MPI.Is_initialized()
        MPI.Init_thread()
        print(before, MPI.Is_initialized(), MPI.COMM_WORLD.allreduce(1))
    """)
    assert status == 0 and out == "False True 2\n" * 2, err


@pytest.mark.parametrize("comm, name", [("COMM_WORLD", "MPI_COMM_WORLD"), ("COMM_SELF", "MPI_COMM_SELF")])
def test_freeing_a_predefined_communicator_is_refused(tmp_path, comm, name):
    status, _, err = run(tmp_path, f"from mpi4py import MPI\nMPI.{comm}.Free()\n")
    assert status == 2
    assert err == f"ppt: error: rank 0 in MPI_Comm_free: cannot free permanent communicator {name}\n"


def test_a_message_never_received_is_a_warning_naming_both_ranks(tmp_path):
    status, out, err = run(tmp_path, """
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        if comm.rank == 0:
            comm.isend(b"x" * 10, dest=1, tag=5)
            comm.send(b"y", dest=1, tag=6)
        dup = comm.Dup()
        if comm.rank == 1:
            dup.isend(3, dest=0, tag=9)
            comm.recv(source=0, tag=6)
    """)
    assert status == 0 and out == ""
    assert err.splitlines() == [
        "ppt: warning: rank 1's send to rank 0 (tag 9, 8 B, communicator #2) was never received: the program "
        "ended with it pending",
        "ppt: warning: rank 0's send to rank 1 (tag 5, 10 B, communicator WORLD) was never received: the program "
        "ended with it pending"]

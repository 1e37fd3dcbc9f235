"""``ppt record`` of an mpi4py program against ``ppt exec`` of the same program: each rank's point-to-point and
collective calls counted alike (mpi4py's pickled calls by the documented mapping), and the recording replays on
the ``host`` preset (a synthetic one: no calibration needed)."""
import sys
from collections import Counter
from pathlib import Path

import pytest

from ppt.errors import PPTError
from ppt.exec.validation import recorded
from ppt.record import build

from host_preset import write_host_preset

CALLS = str(Path(__file__).resolve().parent / "validate_programs" / "calls.py")


def have_mpi() -> bool:
    """Whether the mpich wheel's mpiexec and mpicc are here (the recording library is built with mpicc)."""
    try:
        build.mpi_tool("mpicc")
    except PPTError:
        return False
    return (Path(sys.executable).parent / "mpiexec").exists()


needs_mpi = pytest.mark.skipif(not have_mpi(), reason="no mpiexec or mpicc (pip install mpich mpi4py)")


@pytest.fixture
def host(tmp_path, monkeypatch):
    """A ``host`` preset in a temporary PPT_HOME, and a cache of its own for the recording library."""
    write_host_preset(tmp_path / "systems")
    monkeypatch.setenv("PPT_HOME", str(tmp_path))
    monkeypatch.setenv("PPT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PPT_QUIET", "1")


def test_a_pickled_recv_is_compared_as_one_recv_and_bookkeeping_calls_are_left_out():
    seen = Counter({"MPI_Init_thread": 1, "MPI_Comm_rank": 3, "MPI_Comm_size": 5, "MPI_Comm_dup": 1, "MPI_Send": 2,
                    "MPI_Mprobe": 4, "MPI_Mrecv": 4, "MPI_Recv": 1, "MPI_Alltoallv": 2, "MPI_Ialltoall": 1,
                    "MPI_Waitall": 3, "MPI_Finalize": 1})
    assert recorded.compared(seen) == {"MPI_Send": 2, "MPI_Recv": 5, "MPI_Alltoallv": 2, "MPI_Ialltoall": 1,
                                       "MPI_Waitall": 3}
    assert recorded.differences([Counter(MPI_Send=2)], [Counter(MPI_Send=2)]) == {}
    assert recorded.differences([Counter(MPI_Bcast=2)], [Counter(MPI_Bcast=1, MPI_Recv=1)]) == {
        "0": {"MPI_Bcast": 1, "MPI_Recv": -1}}


@needs_mpi
@pytest.mark.mpiexec
def test_a_recorded_mpi4py_program_makes_the_calls_ppt_exec_counts_and_replays(host, tmp_path):
    steps = 3
    result = recorded.check(CALLS, [str(steps)], 2, str(tmp_path))
    for calls in result["recorded_calls"]:
        # every buffer call of calls.py, the Alltoallv and Allgather of them by their large-count (_c) variants
        for name in ("MPI_Sendrecv", "MPI_Isend", "MPI_Irecv", "MPI_Waitall", "MPI_Allreduce", "MPI_Allgather",
                     "MPI_Alltoall", "MPI_Alltoallv", "MPI_Send", "MPI_Recv"):
            assert calls[name] == steps, (name, calls)
        assert calls["MPI_Barrier"] == calls["MPI_Gather"] == 1
    # mpi4py's pickled bcast is two MPI_Bcast (the size, then the bytes) and its pickled gather an MPI_Gather of
    # the sizes then an MPI_Gatherv, on every rank; ppt exec counts each as one call. Nothing else differs.
    assert result["count_differences"] == {str(r): {"MPI_Bcast": 1, "MPI_Gatherv": 1} for r in (0, 1)}
    assert not result["counts_equal"]
    assert result["recorded_only_calls"]["MPI_Init_thread"] == result["recorded_only_calls"]["MPI_Finalize"] == 2
    assert 0 < result["replay_predicted_s"] < 10 and result["compute_clock"] == "cpu"
    assert result["replay_unreceived_messages"] == 0

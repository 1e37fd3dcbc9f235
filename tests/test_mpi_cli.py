"""``ppt run``: JSON output, deadlock exit status, and identical results under ``mpiexec -n 2``."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ppt.cli.main import main
from ppt.provenance import comparable

ROOT = Path(__file__).resolve().parents[1]
DEADLOCK = ROOT / "examples" / "deadlock.py"
PROGRAM = """
def main(mpi):
    comm = mpi.COMM_WORLD
    mpi.compute([("fALU", 10**5 * (comm.rank + 1))])
    total = comm.allreduce(comm.rank, nbytes=8)
    right = (comm.rank + 1) % comm.size
    comm.sendrecv(None, right, source=(comm.rank - 1) % comm.size, nbytes=20000)
    comm.alltoall(None, nbytes=512)
    return total
"""
ARGS = ["--system", "edison", "--ranks", "24", "--ranks-per-node", "2", "--mapping", "random", "--seed", "5",
        "--network", "analytic", "--json"]


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "program.py"
    path.write_text(PROGRAM)
    return path


def test_run_prints_the_documented_json(program, capsys):
    assert main(["run", str(program), *ARGS]) == 0
    out = json.loads(capsys.readouterr().out)
    assert sorted(out) == ["calls", "network", "per_rank", "predicted_s", "provenance", "ranks"]
    assert out["ranks"] == 24 and len(out["per_rank"]) == 24
    assert out["calls"] == {"MPI_Allreduce": 24, "MPI_Alltoall": 24, "MPI_Sendrecv": 24}
    assert out["predicted_s"] == max(r["finish_s"] for r in out["per_rank"])
    first = out["per_rank"][0]
    assert first["compute_s"] > 0 and first["comm_s"] > 0
    assert first["compute_s"] + first["comm_s"] == pytest.approx(first["finish_s"])
    assert out["network"]["messages"] >= sum(r["messages_sent"] for r in out["per_rank"])


def test_deadlocked_script_exits_non_zero_with_the_report(capsys):
    status = main(["run", str(DEADLOCK), "--system", "edison", "--ranks", "2", "--network", "analytic"])
    err = capsys.readouterr().err
    assert status != 0
    assert err.splitlines()[0] == ("ppt: error: deadlock at t=0 s: 2 of 2 ranks blocked: rank 0 in MPI_Recv("
                                   "source=1, tag=7, comm=WORLD); rank 1 in MPI_Recv(source=0, tag=7, comm=WORLD)")


def test_script_without_main_is_a_one_line_error(tmp_path, capsys):
    path = tmp_path / "empty.py"
    path.write_text("x = 1\n")
    assert main(["run", str(path), "--system", "edison", "--ranks", "2", "--network", "analytic"]) == 2
    assert "defines no main(mpi) function" in capsys.readouterr().err


def test_parallel_engine_gives_the_serial_json(program):
    mpiexec = Path(sys.executable).with_name("mpiexec")
    if not mpiexec.exists():
        pytest.skip("no mpiexec next to the Python interpreter")
    command = [sys.executable, "-m", "ppt.cli.main", "run", str(program), *ARGS]
    serial = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True).stdout
    parallel = subprocess.run([str(mpiexec), "-n", "2", *command], capture_output=True, text=True,
                              timeout=120, check=True).stdout
    nodes = {r["node"] for r in json.loads(serial)["per_rank"]}
    assert min(nodes) < 5576 // 2 <= max(nodes)          # ranks on both halves: traffic crosses ranks
    assert comparable(parallel) == comparable(serial)     # the same but for the wall time

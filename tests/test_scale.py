"""``ppt scale``: speedup and efficiency per system for a model script or an mpi4py program, its plot, and
which command a script is for.  Tiny rank counts on the analytic network."""
import json
from pathlib import Path

import pytest

from ppt.cli.main import main
from ppt.cli.predict.scale import kind_of
from ppt.errors import PPTError

MODEL = """
def main(mpi):
    comm = mpi.COMM_WORLD
    mpi.compute([("fALU", 8_000_000 // comm.size)])
    comm.allreduce(1.0, nbytes=8)
"""
PROGRAM = """
from mpi4py import MPI


def main():
    comm = MPI.COMM_WORLD
    print(comm.allreduce(comm.Get_rank()))


if __name__ == "__main__":
    main()
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_script_is_a_model_if_it_defines_main_and_a_program_if_it_imports_mpi4py(tmp_path):
    assert kind_of(str(write(tmp_path, "m.py", MODEL))) == "run"
    assert kind_of(str(write(tmp_path, "p.py", PROGRAM))) == "exec"          # its main() does not make it a model
    assert kind_of(str(write(tmp_path, "q.py", "import mpi4py.MPI as MPI\n"))) == "exec"
    with pytest.raises(PPTError, match="neither defines main"):
        kind_of(str(write(tmp_path, "x.py", "x = 1\n")))
    with pytest.raises(PPTError, match="syntax error"):
        kind_of(str(write(tmp_path, "s.py", "def main(:\n")))


def scale(capsys, *argv):
    code = main(["scale", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_model_speedup_and_efficiency_per_system_relative_to_the_fewest_ranks(tmp_path, capsys):
    plot = tmp_path / "scale.png"
    code, out, err = scale(capsys, write(tmp_path, "m.py", MODEL), "--ranks", "4,1,2",
                           "--system", "fattree-4-3,edison", "--network", "analytic", "--jobs", "2",
                           "--plot", plot, "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["command"] == "run" and summary["provenance"]["command"].startswith("ppt scale ")
    results = summary["results"]
    assert [(r["system"], r["ranks"]) for r in results] == [("fattree-4-3", 1), ("fattree-4-3", 2),
                                                             ("fattree-4-3", 4), ("edison", 1), ("edison", 2),
                                                             ("edison", 4)]
    for first, r in zip([results[0]] * 3 + [results[3]] * 3, results):
        assert r["speedup"] == pytest.approx(first["predicted_s"] / r["predicted_s"])
        assert r["efficiency"] == pytest.approx(r["speedup"] * first["ranks"] / r["ranks"])
        assert r["network"] == "analytic" and r["compute_s"] > 0
    assert results[0]["speedup"] == 1.0 and 1 < results[2]["speedup"] <= 4.0
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_program_runs_under_exec_and_prints_a_table_per_system(tmp_path, capsys):
    code, out, err = scale(capsys, write(tmp_path, "p.py", PROGRAM), "--ranks", "2,4", "--system", "fattree-4-3",
                           "--network", "analytic", "--compute", "none")
    assert code == 0, err
    assert "(ppt exec)" in out and "fattree-4-3 (analytic network):" in out
    assert [line.split()[0] for line in out.splitlines() if line.strip()[:1].isdigit()] == ["2", "4"]


@pytest.mark.parametrize("argv, message", [
    (["--ranks", "2,4"], "give --ranks N1,N2,... and --system"),
    (["--ranks", "2,0", "--system", "fattree-4-3"], "'0' is not a rank count"),
    (["--ranks", "2", "--system", "fattree-4-3,nosuch"], "unknown system 'nosuch'"),
    (["--ranks", "2,64", "--system", "fattree-4-3", "--ranks-per-node", "1"], "--ranks 64 on fattree-4-3"),
])
def test_bad_values_are_one_line_before_anything_runs(tmp_path, capsys, argv, message):
    plot = tmp_path / "never.png"
    code, out, err = scale(capsys, write(tmp_path, "m.py", MODEL), *argv, "--network", "analytic",
                           "--out", tmp_path / "out", "--plot", plot)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err, err
    assert not plot.exists() and not (tmp_path / "out").exists()


@pytest.mark.mpiexec
def test_scale_under_mpiexec_says_to_use_jobs(tmp_path):
    import shutil
    import subprocess
    import sys
    mpiexec = shutil.which("mpiexec", path=str(Path(sys.executable).parent)) or shutil.which("mpiexec")
    if not mpiexec:
        pytest.skip("mpiexec not installed")
    job = subprocess.run([mpiexec, "-n", "2", sys.executable, "-m", "ppt.cli.main", "scale",
                          str(write(tmp_path, "m.py", MODEL)), "--ranks", "1,2", "--system", "fattree-4-3"],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    lines = [line for line in job.stderr.splitlines() if line.strip()]
    assert job.returncode == 2 and len(lines) == 1 and "ppt scale runs its points as separate processes" in lines[0]

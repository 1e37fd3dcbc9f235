"""``ppt validate``: a tiny program of the project's own run for real under mpiexec and under ``ppt exec``
on a synthetic ``host`` preset (no real calibration needed), and every error path as one line."""
import json
import sys
from pathlib import Path

import pytest

from ppt.cli.main import main
from ppt.exec.validation import hostload
from ppt.hardware import mpirun

from host_preset import write_host_preset

TINY = str(Path(__file__).resolve().parent / "validate_programs" / "tiny.py")
MPIEXEC = Path(sys.executable).parent / "mpiexec"
needs_mpiexec = pytest.mark.skipif(not MPIEXEC.exists(), reason="no mpiexec beside this Python (pip install mpich mpi4py)")


@pytest.fixture
def host(tmp_path, monkeypatch):
    """A ``host`` preset in a temporary PPT_HOME."""
    write_host_preset(tmp_path / "systems")
    monkeypatch.setenv("PPT_HOME", str(tmp_path))
    monkeypatch.setenv("PPT_QUIET", "1")


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("ppt: error: ") and "\n" not in err and "Traceback" not in err, err
    return err


@needs_mpiexec
@pytest.mark.mpiexec
def test_validate_compares_a_real_run_with_the_prediction(host, capsys):
    assert main(["validate", TINY, "4", "-n", "2", "--repeats", "1", "--quiet-wait", "0", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["command"] == "validate" and result["system"] == "host" and result["seed"] == 0
    assert result["version"] and result["provenance"]["system"] == "host"
    assert result["args"] == ["4"] and result["ranks"] == 2 and len(result["real_s"]) == len(result["predicted_s"]) == 1
    assert 0 < result["real_cpu_min_s"] and 0 < result["real_min_s"] < 10 and 0 < result["predicted_median_s"] < 10
    assert result["error_pct"] == pytest.approx(100 * (result["predicted_median_s"] / result["real_min_s"] - 1))
    assert isinstance(result["warnings"], list) and result["other_runnable_of_min"] >= 0


@needs_mpiexec
@pytest.mark.mpiexec
def test_validate_prints_a_table_of_80_columns(host, capsys, monkeypatch):
    monkeypatch.setattr(hostload, "runnable", lambda: 9)        # a busy host: a one-line warning
    assert main(["validate", TINY, "-n", "2", "--repeats", "1", "--quiet-wait", "0"]) == 0
    out, err = capsys.readouterr()
    assert "predicted" in out and "real_min" in out and all(len(line) <= 80 for line in out.splitlines())
    assert err.startswith("validate: warning: other processes wanted a core") and err.count("\n") == 1


@needs_mpiexec
@pytest.mark.mpiexec
def test_a_program_failing_under_mpiexec_is_one_line_with_its_status_and_last_message(host, capsys):
    assert main(["validate", TINY, "fail", "-n", "2", "--repeats", "1", "--quiet-wait", "0"]) == 2
    err = one_line_error(capsys)
    assert "tiny.py under 'mpiexec -n 2' failed (exit status 1): tiny.py: asked to fail" in err


def test_a_missing_program_is_one_line(host, capsys):
    assert main(["validate", "no_such_program.py", "-n", "2"]) == 2
    assert one_line_error(capsys) == "ppt: error: no_such_program.py: no such file"


def test_no_host_preset_says_to_calibrate(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PPT_HOME", str(tmp_path))
    assert main(["validate", TINY, "-n", "2"]) == 2
    assert "run 'ppt calibrate'" in one_line_error(capsys)


def test_no_mpiexec_is_one_line(host, monkeypatch, capsys):
    monkeypatch.setattr(sys, "executable", str(Path(sys.executable).parent / "no" / "python"))
    monkeypatch.setenv("PATH", "")
    assert main(["validate", TINY, "-n", "2"]) == 2
    assert "mpiexec not found" in one_line_error(capsys)


def test_no_program_or_ranks_is_one_line(host, capsys):
    assert main(["validate", TINY]) == 2
    assert "give PROGRAM.py and -n N" in one_line_error(capsys)


def test_a_run_past_its_deadline_is_stopped(tmp_path):
    with pytest.raises(mpirun.PPTError, match="did not finish within 0.5 s; stopped it"):
        mpirun.run([sys.executable, "-c", "import time; time.sleep(30)"], 0.5, "sleeper")

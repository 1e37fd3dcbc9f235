"""Ranks of ``ppt exec`` as separate as processes: a rank's writes to shared modules are its own
(ppt.exec.cow; tests/exec_vs_mpiexec/module_writes.py compares them with mpiexec), a KeyboardInterrupt a
rank raises ends that rank as under mpiexec (ppt.exec.interrupts), and Ctrl-C still stops ppt."""
import json
import math
import re
import signal
import subprocess
import sys
import types
from pathlib import Path

import pytest
from test_exec_vs_mpiexec import _env

from ppt.cli.main import main

TESTS = Path(__file__).resolve().parent
PROGRAMS = TESTS / "exec_isolation"
MPIEXEC = Path(sys.executable).parent / "mpiexec"
OPTIONS = ["-n", "2", "--system", "edison", "--network", "analytic", "--compute", "none"]
#: MPICH's report of a process a signal ended, on stdout after the ranks' lines (it names a PID).
BANNER = re.compile(r"\n=+\n=   BAD TERMINATION.*", re.S)
NOTE = ("ppt: note: rank 0 raised KeyboardInterrupt, so its process ends by SIGINT and mpiexec reports "
        "status 2 for it\n")


def test_a_rank_raising_keyboard_interrupt_ends_as_under_mpiexec(tmp_path, monkeypatch, capfd):
    program = str(PROGRAMS / "keyboard_interrupt.py")
    monkeypatch.chdir(tmp_path)
    status = main(["exec", program, *OPTIONS, "--summary", "summary.txt"])
    out, err = capfd.readouterr()
    assert status == 2
    assert sorted(out.splitlines()) == ["rank 0 before", "rank 1 after", "rank 1 before"]
    assert err.endswith(NOTE)
    assert err.startswith("Traceback (most recent call last):\n")
    assert err[:-len(NOTE)].endswith(", line 7, in <module>\n    raise KeyboardInterrupt(\"stop\")\n"
                                     "KeyboardInterrupt: stop\n")
    if MPIEXEC.exists():
        real = subprocess.run([str(MPIEXEC), "-n", "2", sys.executable, program], capture_output=True,
                              text=True, timeout=60, env=_env())
        assert real.returncode == status
        assert sorted(BANNER.sub("", real.stdout).splitlines()) == sorted(out.splitlines())
        assert real.stderr + NOTE == err


def test_ctrl_c_on_ppt_exec_still_stops_it_while_a_rank_runs_its_code():
    ppt = subprocess.Popen([sys.executable, "-m", "ppt.cli.main", "exec", str(PROGRAMS / "spin.py"), *OPTIONS],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert ppt.stdout.readline() == "rank 0 started\n"
        ppt.send_signal(signal.SIGINT)
        out, err = ppt.communicate(timeout=60)
    finally:
        ppt.kill()
    assert ppt.returncode == 130
    assert err == "ppt: interrupted\n"


def test_ppt_and_later_runs_see_the_modules_a_rank_wrote_to_as_they_were(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["exec", str(TESTS / "exec_vs_mpiexec" / "module_writes.py"), *OPTIONS, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)           # PPT's own json, after a rank replaced json.dumps
    assert summary["ranks"] == 2
    assert json.dumps([1]) == "[1]" and math.pi == 3.141592653589793 and hasattr(math, "e")
    assert type(json) is types.ModuleType and type(math) is types.ModuleType


@pytest.mark.parametrize("write, error", [("del math.nothing", "AttributeError: 'module' object has no attribute 'nothing'"),
                                          ("setattr(math, 1, 2)", "TypeError: attribute name must be string, not 'int'")])
def test_a_rank_s_bad_write_to_a_shared_module_fails_as_python_does(write, error, tmp_path, monkeypatch, capfd):
    program = tmp_path / "bad_write.py"
    program.write_text(f"import math\nfrom mpi4py import MPI\nif MPI.COMM_WORLD.rank == 0:\n    {write}\n"
                       "print(MPI.COMM_WORLD.rank, 'done')\n")
    monkeypatch.chdir(tmp_path)
    assert main(["exec", str(program), *OPTIONS, "--summary", "summary.txt"]) == 1
    out, err = capfd.readouterr()
    assert out == "1 done\n"
    assert error in err.splitlines()[-1]

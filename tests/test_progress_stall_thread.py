"""A run that fails ends its progress report's stall watch (ppt.progress.closed_on_failure): the watching
thread must not outlive the run and write, 30 s later, to a stream that may be gone."""
import threading

from ppt.cli.main import main

DEADLOCK = "def main(mpi):\n    comm = mpi.COMM_WORLD\n    comm.recv(source=(comm.rank + 1) % comm.size)\n"


def watchers() -> int:
    return sum(thread.name == "ppt-progress-stall" and thread.is_alive() for thread in threading.enumerate())


def test_a_failed_run_leaves_no_stall_watch(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("PPT_QUIET", raising=False)
    model = tmp_path / "deadlock.py"
    model.write_text(DEADLOCK)
    before = watchers()
    assert main(["run", str(model), "-n", "2", "--system", "edison", "--network", "analytic"]) != 0
    assert "deadlock" in capsys.readouterr().err.lower()
    for thread in threading.enumerate():      # the watch wakes every stall interval / 4 to see it should stop
        if thread.name == "ppt-progress-stall":
            thread.join(timeout=15)
    assert watchers() == before

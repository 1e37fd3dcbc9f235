"""The README's code examples run as written."""
import re
from pathlib import Path

from ppt.cli.main import main

README = (Path(__file__).parent.parent / "README.md").read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)


def test_engine_example_runs_ten_hops():
    namespace = {}
    exec(BLOCKS[1], namespace)
    assert namespace["sim"].events == 11 and namespace["sim"].now == 10e-6


def test_application_model_example_runs(tmp_path, capsys):
    script = tmp_path / "model.py"
    script.write_text(BLOCKS[0])
    assert main(["run", str(script), "--system", "edison", "--ranks", "16", "--network", "analytic", "--json"]) == 0
    assert '"MPI_Allreduce": 160' in capsys.readouterr().out


def test_tour_commands_exist():
    commands = {line.split()[1] for line in README.splitlines() if line.startswith("ppt ")}
    assert commands == {"systems", "describe", "topology", "pingpong", "latency-survey", "traffic", "run", "replay",
                        "snap", "bench", "sweep", "scale", "plot", "calibrate", "exec", "convert", "samples",
                        "record", "validate"}


def test_the_tours_traffic_lines_measure_after_the_network_has_filled(tmp_path, monkeypatch, capsys):
    """Every tour line of ppt traffic that sets its warm-up ends it after the packets' latency (no warning that
    the network may still have been filling), or saturates, where the stop is the result."""
    import shlex
    tour = README.split("## A five-minute tour", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    lines = [line.split("  #")[0] for line in tour.splitlines() if line.startswith("ppt traffic ") and "--warmup" in line]
    assert len(lines) >= 3
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PPT_QUIET", "1")                  # the bar; notes and warnings still come
    for line in lines:
        assert main(shlex.split(line)[1:]) == 0, line
        err = capsys.readouterr().err
        assert "warm-up" not in err, (line, err)

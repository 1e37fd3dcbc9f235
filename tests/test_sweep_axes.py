"""``ppt sweep`` over systems and rank counts, cache keys that see edited inputs, and axis values checked
before the first point runs.  Tiny rank counts on the analytic network: each point is mostly start-up."""
import json
import os
import shutil
from pathlib import Path

import pytest

from ppt.cli.main import main
from ppt.errors import ConfigError
from ppt.hardware.systems import SYSTEMS_DIR
from ppt.sweep import runner
from ppt.sweep.grid import Grid

MODEL = """
def main(mpi):
    comm = mpi.COMM_WORLD
    mpi.compute([("fALU", {work} // comm.size)])
    comm.allreduce(1.0, nbytes=8)
"""


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(MODEL.format(work=4_000_000))
    return path


def sweep(capsys, *argv):
    code = main(["sweep", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def started(monkeypatch):
    """The command lines of the points the sweeps start (a list that grows)."""
    calls = []
    real = runner.subprocess.Popen

    def counting(argv, **kwargs):
        calls.append(argv)
        return real(argv, **kwargs)

    monkeypatch.setattr(runner.subprocess, "Popen", counting)
    return calls


def test_system_and_ranks_reach_each_command_where_it_takes_them():
    grid = Grid([], None, "edison,hopper", "16,64")
    assert [a.name for a in grid.axes] == ["system", "ranks"]
    run = grid.points("run", ["m.py", "--network", "analytic"])
    assert [p.params for p in run][:2] == [{"system": "edison", "ranks": "16"}, {"system": "edison", "ranks": "64"}]
    assert run[1].argv == ("run", "m.py", "--network", "analytic", "--system", "edison", "--ranks", "64")
    snap = grid.points("snap", ["--study", "1"])
    assert snap[3].argv == ("snap", "hopper", "--study", "1", "--cores", "64")
    exec_ = grid.points("exec", ["prog.py", "--", "--steps", "3"])   # every sweep argument before the program's
    assert exec_[0].argv == ("exec", "--system", "edison", "--ranks", "16", "prog.py", "--", "--steps", "3")
    replay = Grid([], None, "edison", "4,8").points("replay", ["traces/cg_n{ranks}"])
    assert [p.argv[1] for p in replay] == ["traces/cg_n4", "traces/cg_n8"]
    assert Grid([], None, "edison").points("traffic", ["--load", "0.5"])[0].argv[:2] == ("traffic", "edison")


@pytest.mark.parametrize("systems, ranks, message", [
    ("edison,", None, "empty value"),
    ("edison,edison", None, "edison is listed twice"),
    (None, "16,0", "'0' is not a rank count"),
    (None, "16,x", "'x' is not a rank count"),
    (None, "-4", "'-4' is not a rank count"),
])
def test_bad_axis_lists_are_refused(systems, ranks, message):
    with pytest.raises(ConfigError, match=message):
        Grid([], None, systems, ranks)


@pytest.mark.parametrize("extra, message", [
    (["--system", "fattree-4-3,nosuch", "--ranks", "2"], "unknown system 'nosuch'"),
    (["--system", "fattree-4-3", "--ranks", "2,x"], "'x' is not a rank count"),
    (["--system", "fattree-4-3", "--ranks", "2,1000"], "--ranks 1000 on fattree-4-3: 1000 ranks at 16 per node"),
    (["--system", "fattree-4-3", "--ranks", "2", "--set", "network.routng=a,b"], "routng"),
])
def test_every_axis_value_is_checked_before_the_first_point_runs(model, tmp_path, capsys, started, extra, message):
    out = tmp_path / "out"
    code, stdout, err = sweep(capsys, "run", model, "--network", "analytic", *extra, "--out", out)
    assert code == 2 and stdout == "" and err.count("\n") == 1 and message in err, err
    assert started == [] and not out.exists()                   # nothing ran, nothing written


@pytest.mark.parametrize("argv, message", [
    (["traffic", "--system", "fattree-4-3", "--ranks", "2", "--load", "0.5"], "traffic runs on every node"),
    (["replay", "some/trace", "--system", "fattree-4-3", "--ranks", "4"], "write {ranks} in the trace's path"),
    (["run", "{model}", "--system", "fattree-4-3", "--ranks", "2,4", "--ranks-per-node", "0"], "ranks-per-node"),
    (["snap", "--system", "edison", "--ranks", "24,30"], "30 cores is not a whole number of edison nodes"),
    (["snap", "--system", "edison,hopper", "--cores", "24,30"], "ranks 30 on edison: 30 cores is not a whole"),
    (["exec", "{model}", "-n", "64", "--ranks-per-node", "1", "--system", "fattree-4-3"],
     "ranks 64 on fattree-4-3: 64 ranks at 1 per node need 64 nodes"),
])
def test_axes_a_command_cannot_take_are_one_line(model, capsys, started, argv, message):
    code, stdout, err = sweep(capsys, *[str(model) if a == "{model}" else a for a in argv])
    assert code == 2 and stdout == "" and err.count("\n") == 1 and message in err, err
    assert started == []


def test_a_rerun_after_editing_the_script_or_the_preset_recomputes(model, tmp_path, capsys, started):
    preset = tmp_path / "small.json"
    shutil.copy(SYSTEMS_DIR / "fattree-4-3.json", preset)
    argv = ["run", model, "--network", "analytic", "--system", f"fattree-4-3,{preset}", "--ranks", "2,4",
            "--out", tmp_path / "out", "--json"]

    def predicted():
        code, out, err = sweep(capsys, *argv)
        assert code == 0, err
        return [row["predicted_s"] for row in json.loads(out)["rows"]]

    first = predicted()
    assert len(started) == 4 and first[0] == first[2]          # the copy is the same machine
    assert predicted() == first and len(started) == 4           # a rerun reuses every point
    model.write_text(MODEL.format(work=40_000_000))             # ten times the work
    edited = predicted()
    assert len(started) == 8 and all(new > old for new, old in zip(edited, first))
    data = json.loads(preset.read_text())
    data["node"]["cores"] = 1                                   # one rank per node: the ranks talk over links
    preset.write_text(json.dumps(data))
    again = predicted()
    assert len(started) == 10 and again[:2] == edited[:2] and again[2:] != edited[2:]
    stored = [json.loads(p.read_text()) for p in (tmp_path / "out").glob("run-*.json")]
    assert len(stored) == 10 and all(set(r["inputs"]) == {"version", "preset_sha256", "files"} for r in stored)


def test_sweep_rows_carry_provenance_in_the_csv_and_each_point(model, tmp_path, capsys):
    code, out, err = sweep(capsys, "run", model, "--network", "analytic", "--system", "fattree-4-3",
                           "--ranks", "2,4", "--out", tmp_path / "out", "--plot", tmp_path / "p.png")
    assert code == 0, err
    header = (tmp_path / "out" / "sweep.csv").read_text().splitlines()[0].split(",")
    fields = ["version", "system", "preset_sha256", "network", "routing", "seed", "command", "wall_s"]
    assert sorted(c for c in header if c.startswith("provenance.")) == sorted(f"provenance.{f}" for f in fields)
    for path in (tmp_path / "out").glob("run-*.json"):
        record = json.loads(path.read_text())
        assert set(record["result"]["provenance"]) == set(fields)
        assert record["result"]["provenance"]["command"].startswith("ppt run --json ")
    assert "provenance" not in out and (tmp_path / "p.png").stat().st_size > 5000     # not in the table


def test_the_readme_scaling_sweep_model_runs(tmp_path, capsys):
    example = Path(__file__).resolve().parents[1] / "examples" / "stencil_strong.py"
    code, out, err = sweep(capsys, "run", example, "--network", "analytic", "--script-args", "16 16 16 1",
                           "--system", "fattree-4-3", "--ranks", "1,8", "--json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    assert [r["ranks"] for r in rows] == [1, 8] and rows[1]["predicted_s"] < rows[0]["predicted_s"]
    assert os.path.basename(rows[0]["provenance.command"].split()[3]) == "stencil_strong.py"


def test_inputs_cover_the_scripts_a_job_list_runs(tmp_path):
    from argparse import Namespace

    from ppt.sweep.inputs import inputs_of
    (tmp_path / "a.py").write_text(MODEL.format(work=1))
    (tmp_path / "jobs.json").write_text(json.dumps({"jobs": [{"name": "a", "kind": "script", "script": "a.py",
                                                               "ranks": 2}]}))
    args = Namespace(job_list=str(tmp_path / "jobs.json"), script=None, mapping="linear", fail_file=None)
    before = inputs_of("run", args, None)
    (tmp_path / "a.py").write_text(MODEL.format(work=2))
    after = inputs_of("run", args, None)
    assert before["files"]["job_list"] == after["files"]["job_list"]
    assert before["files"]["job a script"] != after["files"]["job a script"]


def test_a_programs_own_arguments_after_double_dash_stay_the_programs():
    from argparse import Namespace

    from ppt.cli.predict.sweep import _given, _options
    args = _options(Namespace(args=["prog.py", "--ranks", "2,4", "--", "--ranks", "9"], sets=[], ranks=None))
    assert args.ranks == "2,4" and args.args == ["prog.py", "--", "--ranks", "9"]
    assert not _given(args.args, "--ranks", "-n") and _given(["p.py", "-n", "2", "--"], "-n")

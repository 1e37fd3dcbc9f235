"""``ppt sweep``: the grid, resuming an interrupted sweep, the CSV and plot, and bad input."""
import csv
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from ppt.cli.main import main
from ppt.errors import ConfigError
from ppt.sweep import runner
from ppt.sweep.grid import Grid, split_values
from ppt.sweep.table import flatten

#: Four short points on the 16-node fat-tree (about a second each, mostly process start-up).
SWEEP = ["sweep", "traffic", "fattree-4-3", "--warmup", "5e-6", "--time", "5e-6",
         "--set", "network.routing=mlid,single", "--loads", "0.2,0.6"]


def test_values_split_at_top_level_commas_only():
    assert split_values('min,ugal') == ["min", "ugal"]
    assert split_values('[4,4],[2,8],"a,b"') == ["[4,4]", "[2,8]", '"a,b"']


def test_grid_is_every_combination_last_axis_fastest_with_fixed_overrides_in_every_point():
    grid = Grid(["network.routing=min,val", "topology.p=4", "topology.q=5,7"], "0.1,0.5")
    points = grid.points("traffic", ["slimfly-3k"])
    assert [a.name for a in grid.axes] == ["network.routing", "topology.q", "load"]
    assert [tuple(p.params.values()) for p in points][:3] == [("min", "5", "0.1"), ("min", "5", "0.5"),
                                                              ("min", "7", "0.1")]
    assert len(points) == 8 and len({p.key for p in points}) == 8
    assert all(p.argv[:4] == ("traffic", "slimfly-3k", "--set", "topology.p=4") for p in points)
    assert points[1].argv[-2:] == ("--load", "0.5")


@pytest.mark.parametrize("sets, loads, message", [
    (["topology.q=5,x"], None, "'x' is not a number like the others"),
    (["topology.q=5,,7"], None, "empty value"),
    (["topology.dims=[4,4,[2,2]"], None, "does not parse"),
    (["topology.q"], None, "--set takes KEY=VALUE"),
    (["topology.q=5,7", "topology.q=9,11"], None, "given twice"),
    ([], "0.1,abc", "'abc' is not a number"),
    ([], "0.5,1.5", "outside (0, 1]"),
])
def test_a_list_that_does_not_parse_is_refused(sets, loads, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Grid(sets, loads)


def without_wall_time(csv_path):
    """The CSV's rows without the provenance.wall_s column (the one field that differs between identical runs)."""
    rows = list(csv.reader(csv_path.read_text().splitlines()))
    drop = rows[0].index("provenance.wall_s")
    return [row[:drop] + row[drop + 1:] for row in rows]


def run_sweep(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    cases = [
        (["--set", "topology.link_latency_s=1e-7,slow"], "is not a number like the others"),
        (["--out", str(blocker / "sweep")], "is a file"),
        (["--out", str(blocker)], "is a file, not a folder"),
        (["--set", "network.routng=mlid,single"], "routng"),                    # misspelled key
        (["--set", "topology.mm=4,6"], "unknown setting topology.mm"),          # misspelled topology key
        (["--set", "topology.m=4,5"], "topology.m"),                            # a value the topology refuses
        (["--plot", str(tmp_path / "no" / "plot.png")], "does not exist"),
    ]
    for extra, message in cases:
        code, out, err = run_sweep([*SWEEP, "--out", str(tmp_path / "out"), *extra], capsys)
        assert code == 2 and message in err and err.count("\n") == 1 and out == "", (extra, err)
    assert sorted(os.listdir(tmp_path)) == ["file"]          # no output folder, nothing half-written
    code, out, err = run_sweep(["sweep", "run", "examples/halo3d.py", "--system", "hopper", "--loads", "0.5"],
                               capsys)
    assert code == 2 and "--loads sweeps traffic" in err


def test_an_interrupted_sweep_resumes_runs_only_missing_points_and_gives_the_same_csv(tmp_path, capsys,
                                                                                      monkeypatch):
    whole, resumed = tmp_path / "whole", tmp_path / "resumed"
    assert run_sweep([*SWEEP, "--out", str(whole), "--jobs", "2"], capsys)[0] == 0
    stored = sorted(p.name for p in whole.glob("traffic-*.json"))
    assert len(stored) == 4

    # interrupt a one-at-a-time sweep once its first point is stored
    # (a test run started in the background inherits an ignored SIGINT; the sweep must see it)
    child = subprocess.Popen([sys.executable, "-m", "ppt.cli.main", *SWEEP, "--out", str(resumed)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, "PPT_QUIET": "1"},
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while not list(resumed.glob("traffic-*.json")) and time.monotonic() < deadline:
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    assert child.wait(timeout=30) == 130
    kept = sorted(p.name for p in resumed.glob("traffic-*.json"))
    assert 1 <= len(kept) < 4 and set(kept) <= set(stored)
    assert not list(resumed.glob(".*")) and not (resumed / "sweep.csv").exists()   # nothing half-written

    started = []
    real_popen = runner.subprocess.Popen

    def counting_popen(argv, **kwargs):
        started.append(argv)
        return real_popen(argv, **kwargs)

    monkeypatch.setattr(runner.subprocess, "Popen", counting_popen)
    assert run_sweep([*SWEEP, "--out", str(resumed), "--jobs", "2"], capsys)[0] == 0
    assert len(started) == 4 - len(kept)                       # finished points are not run again
    assert without_wall_time(resumed / "sweep.csv") == without_wall_time(whole / "sweep.csv")
    assert run_sweep([*SWEEP, "--out", str(resumed)], capsys)[0] == 0
    assert len(started) == 4 - len(kept)                       # a finished sweep runs nothing


def test_sweep_json_rows_plot_and_options_after_the_command(tmp_path, capsys):
    plot = tmp_path / "sweep.png"
    code, out, _ = run_sweep([*SWEEP, "--json", "--plot", str(plot)], capsys)
    assert code == 0 and plot.stat().st_size > 10_000
    summary = json.loads(out)
    assert summary["axes"] == {"network.routing": ["mlid", "single"], "load": [0.2, 0.6]}
    rows = summary["rows"]
    assert [(r["network.routing"], r["load"]) for r in rows] == [("mlid", 0.2), ("mlid", 0.6),
                                                                 ("single", 0.2), ("single", 0.6)]
    assert [r["routing"] for r in rows] == ["mlid", "mlid", "dmodk", "dmodk"]      # single is dmodk's alias
    assert all(r["offered_load"] == r["load"] for r in rows)
    # each point is exactly the single command's result
    capsys.readouterr()
    assert main(["traffic", "fattree-4-3", "--warmup", "5e-6", "--time", "5e-6", "--set", "network.routing=single",
                 "--load", "0.6", "--json"]) == 0
    single = json.loads(capsys.readouterr().out)
    columns = {k: v for k, v in flatten(single).items() if not k.startswith("provenance.")}
    assert "link_classes.terminal.utilization" in columns and {k: rows[3][k] for k in columns} == columns
    assert rows[3]["provenance.system"] == "fattree-4-3" and rows[3]["provenance.routing"] == "single"


def test_a_point_that_fails_while_running_stops_the_sweep_in_one_line_keeping_finished_points(tmp_path, capsys):
    out = tmp_path / "out"
    argv = [*SWEEP[:-4], "--set", "network.routing=mlid,nonsense", "--load", "0.2", "--out", str(out)]
    code, stdout, err = run_sweep(argv, capsys)
    assert code == 2 and stdout == "" and err.count("\n") == 1
    assert "sweep point network.routing=nonsense: unknown routing 'nonsense'" in err
    assert len(list(out.glob("traffic-*.json"))) == 1 and not (out / "sweep.csv").exists()

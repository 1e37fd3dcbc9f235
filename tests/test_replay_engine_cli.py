"""``ppt replay --engine``: the compiled and the Python MPI engine predict the same and report the same
errors, and the compiled one refuses in one line a replay it cannot run."""
import json
from pathlib import Path

import numpy as np
import pytest

from ppt.cli.main import main
from ppt.provenance import comparable
from ppt.traces import replay as replay_mod

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"
if not (TRACES / "MANIFEST.json").is_file():
    pytest.skip(f"shared traces not found at {TRACES} (expected next to the repository)", allow_module_level=True)


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def ideal_replay(capsys, name, *extra):
    return run_cli(capsys, "replay", str(TRACES / name), "--system", "edison", "--network", "ideal",
                   "--ranks-per-node", "1", *extra)


def test_engine_choices_follow_the_library():
    from ppt.cli import replay as replay_cli_mod
    assert replay_cli_mod.ENGINES == replay_mod.ENGINES


@pytest.mark.parametrize("name", ["hpccg_n4", "amg_n4"])     # amg_n4 creates communicators
def test_compiled_and_python_engines_print_the_same_json(capsys, monkeypatch, name):
    monkeypatch.setenv("PPT_QUIET", "1")
    results = {}
    for engine in ("python", "compiled"):
        code, out, err = ideal_replay(capsys, name, "--json", "--engine", engine)
        assert code == 0 and err == ""
        results[engine] = out
    # only the wall time and the command line (which names the engine) may differ
    assert comparable(results["python"], "command") == comparable(results["compiled"], "command")
    got = json.loads(results["compiled"])
    assert got["predicted_s"] > 0 and got["records"] > 0
    assert got["provenance"]["command"].endswith("--engine compiled")


def test_compiled_and_python_engines_sample_a_replay_alike(capsys, monkeypatch, tmp_path):
    from ppt.drivers.sampling import read_samples
    monkeypatch.setenv("PPT_QUIET", "1")
    results, samples = {}, {}
    for engine in ("python", "compiled"):
        path = tmp_path / f"{engine}.npz"
        code, results[engine], err = run_cli(capsys, "replay", str(TRACES / "hpccg_n4"), "--system", "fattree-4-3",
                                             "--network", "packet", "--ranks-per-node", "1", "--sample-every", "1e-5",
                                             "--samples", str(path), "--json", "--engine", engine)
        assert code == 0 and err.startswith("samples: ")
        samples[engine] = read_samples(str(path))
    assert comparable(results["python"], "command") == comparable(results["compiled"], "command")
    (python_meta, python), (meta, arrays) = samples["python"], samples["compiled"]
    assert meta == python_meta and sorted(arrays) == sorted(python) and len(arrays["t_s"]) > 3
    assert all(np.array_equal(arrays[name], python[name]) for name in python)


def test_a_job_list_replays_the_same_on_both_engines(capsys, tmp_path):
    traces = [{"kind": "trace", "trace": str(TRACES / "hpccg_n4"), "ranks": 4},
              {"kind": "trace", "trace": str(TRACES / "osu_latency_n2"), "ranks": 2}]
    (tmp_path / "jobs.json").write_text(json.dumps({"jobs": traces}))
    args = ["replay", "--job-list", str(tmp_path / "jobs.json"), "--system", "fattree-4-3", "--ranks-per-node", "1",
            "--json"]
    python, compiled = (run_cli(capsys, *args, "--engine", engine) for engine in ("python", "compiled"))
    assert python[0] == compiled[0] == 0 and comparable(compiled[1], "command") == comparable(python[1], "command")


def test_a_job_list_with_traffic_replays_the_same_on_both_engines(capsys, tmp_path):
    jobs = [{"kind": "trace", "trace": str(TRACES / "hpccg_n4"), "ranks": 4},
            {"kind": "traffic", "pattern": "ur", "load": 0.3, "ranks": "rest"}]
    (tmp_path / "jobs.json").write_text(json.dumps({"jobs": jobs}))
    args = ["replay", "--job-list", str(tmp_path / "jobs.json"), "--system", "fattree-4-3", "--ranks-per-node", "1",
            "--json"]
    python, compiled = (run_cli(capsys, *args, "--engine", engine) for engine in ("python", "compiled"))
    assert python[0] == compiled[0] == 0 and comparable(compiled[1], "command") == comparable(python[1], "command")
    assert json.loads(compiled[1])["jobs"][1]["packets"] > 0


def test_both_engines_report_a_deadlock_in_the_same_line(capsys, monkeypatch, tmp_path):
    """A replay that deadlocks: the compiled engine reports it itself, as the Python one does."""
    from ppt.traces.opstream import MemoryTrace, Op, save
    monkeypatch.setenv("PPT_QUIET", "1")
    trace = MemoryTrace("deadlock", 2)
    for rank in range(2):
        trace.builder(rank).add(int(Op.INIT), "MPI_Init", gap_wall_s=1e-6, call_s=1e-7)
        trace.builder(rank).add(int(Op.RECV), "MPI_Recv", peer=1 - rank, tag=rank, nbytes=8, gap_wall_s=1e-6)
    save(trace, tmp_path / "deadlock")
    errors = {}
    for engine in ("python", "compiled"):
        # an absolute path: TRACES / it is the path itself
        code, out, errors[engine] = ideal_replay(capsys, tmp_path / "deadlock", "--json", "--engine", engine)
        assert code != 0 and out == ""
    assert errors["compiled"] == errors["python"]
    assert errors["compiled"].count("\n") == 1 and "deadlock" in errors["compiled"]
    assert "rank 0 in MPI_Recv(source=1, tag=0" in errors["compiled"]

"""The Python API (ppt.api): the same results as the command line, and results as dicts and data frames."""
import json
import logging
import sys
from pathlib import Path

import pytest

import ppt.api
from ppt.cli.main import main as cli
from ppt.errors import PPTError

ROOT = Path(__file__).resolve().parents[1]
HELLO = ROOT / "examples" / "hello_allreduce.py"


def cli_json(capsys, *argv) -> dict:
    """What ``ppt ARGV --json`` prints."""
    assert cli([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def same_prediction(result, printed: dict) -> bool:
    """True if a ppt.api result holds what the command printed: the same fields and values, and the same
    provenance apart from the command line and the wall time."""
    mine = result.to_dict()
    ours, theirs = mine.pop("provenance"), printed.pop("provenance")
    for key in ("command", "wall_s"):
        del ours[key], theirs[key]
    return mine == printed and ours == theirs


def test_a_model_runs_as_ppt_run_runs_it(capsys):
    machine = ppt.api.machine("edison", set={"network.routing": "ugal"}, network="packet", seed=0)
    assert (machine.name, machine.network, machine.cores_per_node) == ("edison", "packet", 24)
    result = machine.run(str(HELLO), ranks=8, ranks_per_node=4)
    assert result.kind == "run" and result.returns == [28] * 8
    expected = cli_json(capsys, "run", str(HELLO), "--system", "edison", "--set", "network.routing=ugal",
                        "--ranks", "8", "--ranks-per-node", "4")
    assert same_prediction(result, dict(expected))
    assert result.predicted_s == expected["predicted_s"] > 0 and result["calls"] == {"MPI_Allreduce": 8}
    assert result["provenance"]["command"] == "ppt.api Machine.run" and result["provenance"]["routing"] == "ugal"


def test_a_function_is_a_model_and_its_ranks_return_values():
    def main(mpi):
        mpi.compute(1e-3)
        return mpi.COMM_WORLD.allgather(mpi.rank, nbytes=8)

    result = ppt.api.machine("hopper", network="analytic").run(main, ranks=4, ranks_per_node=1)
    assert result.returns == [[0, 1, 2, 3]] * 4
    assert result.predicted_s > 1e-3 and len(result["per_rank"]) == 4


def test_overrides_take_json_values_and_a_misspelled_key_is_one_line():
    machine = ppt.api.machine("dragonfly-booksim", set={"topology.g": 9, "network.routing": "val"})
    assert machine.preset["topology"]["g"] == 9 and machine.num_nodes == 4 * 8 * 9
    with pytest.raises(PPTError, match="routng"):
        ppt.api.machine("edison", set={"network.routng": "ugal"}).run(lambda mpi: None, ranks=1)
    with pytest.raises(PPTError, match="unknown network kind"):
        ppt.api.machine("edison", network="packets")


def test_an_mpi4py_program_runs_as_ppt_exec_runs_it(tmp_path, capsys):
    program = tmp_path / "ring.py"
    program.write_text("import sys\nfrom mpi4py import MPI\ncomm = MPI.COMM_WORLD\n"
                       "total = comm.allreduce(comm.Get_rank() * int(sys.argv[1]))\n"
                       "if comm.Get_rank() == 0:\n    print('total', total)\n")
    machine = ppt.api.machine("edison", network="analytic")
    result = machine.exec(program, ranks=4, args=[10], ranks_per_node=2, compute="none")
    assert "total 60\n" in capsys.readouterr().out
    assert result.kind == "exec" and result["program_args"] == ["10"] and result["calls"]["MPI_Allreduce"] == 4
    expected = cli_json(capsys, "exec", str(program), "10", "-n", "4", "--system", "edison", "--network", "analytic",
                        "--ranks-per-node", "2", "--compute", "none")
    assert same_prediction(result, expected)


def test_a_trace_replays_as_ppt_replay_replays_it(capsys):
    trace = "sample:master_worker_n6"
    result = ppt.api.machine("edison", network="analytic").replay(trace, ranks_per_node=1)
    expected = cli_json(capsys, "replay", trace, "--system", "edison", "--network", "analytic",
                        "--ranks-per-node", "1")
    assert result.kind == "replay" and result.predicted_s == expected["predicted_s"]
    assert result["calls"] == expected["calls"] and len(result.to_pandas()) == 6
    assert result["provenance"]["preset_sha256"] == expected["provenance"]["preset_sha256"]


def test_traffic_measures_as_ppt_traffic_does(capsys):
    small = {"topology.q": 5, "topology.p": 4}
    result = ppt.api.machine("slimfly-3k", set=small).traffic(pattern="ur", load=0.3, warmup=1e-6, time=1e-6)
    expected = cli_json(capsys, "traffic", "slimfly-3k", "--set", "topology.q=5", "--set", "topology.p=4",
                        "--pattern", "ur", "--load", "0.3", "--warmup", "1e-6", "--time", "1e-6")
    assert same_prediction(result, expected) and result.predicted_s is None
    row = result.to_pandas()
    assert len(row) == 1 and row["accepted_fraction"][0] == pytest.approx(expected["accepted_fraction"])


def test_traffic_options_are_checked_as_the_command_checks_them():
    machine = ppt.api.machine("fattree-4-3")
    with pytest.raises(PPTError, match="at least 2 sub-windows"):
        machine.traffic(load=0.5, converge=0.02, windows=1)
    with pytest.raises(PPTError, match="must be above 1"):
        machine.traffic(load=0.5, latency_factor=0.5)


def test_per_rank_data_frame_has_one_row_per_rank_and_a_column_per_call():
    result = ppt.api.machine("edison", network="analytic").run(str(HELLO), ranks=6, ranks_per_node=3)
    frame = result.to_pandas()
    assert list(frame["rank"]) == list(range(6)) and list(frame["node"]) == [0, 0, 0, 1, 1, 1]
    assert set(frame["calls.MPI_Allreduce"]) == {1}


def test_to_pandas_without_pandas_names_the_install_in_one_line(monkeypatch):
    result = ppt.api.Result("run", {"per_rank": []})
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"^Result.to_pandas\(\) needs pandas.*: pip install pandas$"):
        result.to_pandas()


def test_notes_go_to_the_ppt_logger_and_can_be_silenced(caplog):
    machine = ppt.api.machine("edison", network="analytic")
    with caplog.at_level(logging.INFO, logger="ppt"):
        machine.run(str(HELLO), ranks=4)
    notes = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "ppt"]
    assert ("INFO", "4 ranks on 1 node (at most 24 per node)") in notes
    assert any(level == "WARNING" and "whole job sits on one node" in text for level, text in notes)
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="ppt"):
        machine.run(str(HELLO), ranks=4)
    assert not [r for r in caplog.records if r.name == "ppt"]


def test_the_readme_example_of_the_api_runs(monkeypatch, capsys):
    import re
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    example = next(block for block in blocks if "ppt.api" in block)
    monkeypatch.chdir(ROOT)
    namespace = {}
    exec(example, namespace)
    assert namespace["result"].predicted_s > 0 and len(namespace["frame"]) == 64
    assert capsys.readouterr().out.split()[1] == "192"       # 3 steps x 64 ranks

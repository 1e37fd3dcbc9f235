"""ppt app: the registered models listed, their parameters shown, their strong scaling run."""
import json

import pytest

from ppt.apps import registry
from ppt.cli.main import main


def test_list_names_every_registered_model_first_on_its_line(capsys):
    assert main(["app", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()[2:]
    assert [line.split()[0] for line in lines] == [m.name for m in registry.models()]
    assert all(len(line) <= 80 for line in lines)
    assert set(registry.MODULES) <= {m.name for m in registry.models()}


def test_params_lists_defaults_without_building(capsys, monkeypatch):
    snap = registry.get("snap")
    monkeypatch.setattr(registry, "_MODELS", {**registry._MODELS, "snap": registry.AppModel(
        snap.name, snap.summary, snap.params, build=lambda *a: pytest.fail("built"), source=snap.source)})
    assert main(["app", "snap", "--params", "--json"]) == 0
    params = json.loads(capsys.readouterr().out)["params"]
    assert params["angles"]["default"] == 192 and params["nz"]["default"] == 48


def test_app_snap_gives_the_results_of_ppt_snap(capsys):
    argv = ["edison", "-n", "24,48", "--network", "analytic", "--json", "--jobs", "1"]
    assert main(["snap", *argv]) == 0
    snap = json.loads(capsys.readouterr().out)["results"]
    assert main(["app", "snap", *argv]) == 0
    app = json.loads(capsys.readouterr().out)
    assert app["results"] == snap
    assert app["params"]["ng"] == 8 and app["system"] == "edison"


def test_app_parameters_and_preset_overrides_are_told_apart(capsys):
    argv = ["app", "snap", "edison", "-n", "24", "--network", "analytic", "--json"]
    assert main([*argv, "--set", "app.ng=4", "--set", "mpi.eager_threshold_B=1024"]) == 0
    four = json.loads(capsys.readouterr().out)
    assert four["params"]["ng"] == 4
    assert main(argv) == 0
    eight = json.loads(capsys.readouterr().out)
    assert 0.4 < four["results"][0]["compute_s"] / eight["results"][0]["compute_s"] < 0.6   # half the groups


@pytest.mark.parametrize("argv, message", [
    (["app", "nosuch", "--params"], "unknown app 'nosuch'"),
    (["app", "snap", "edison", "-n", "24", "--set", "app.foo=1"], "no parameter 'foo'"),
    (["app", "snap", "edison", "-n", "24", "--set", "app.ng=x"], "give int"),
    (["app", "snap", "edison", "-n", "24", "--set", "app.=1"], "app.PARAM=VALUE"),
    (["app", "snap", "edison"], "give a system and rank counts"),
    (["app"], "give a model name"),
])
def test_bad_input_is_one_line(argv, message, capsys):
    assert main([*argv, "--network", "analytic"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_the_model_example_of_the_docs_registers_and_runs(monkeypatch):
    import re
    from pathlib import Path

    from ppt.hardware.systems import load_system
    from ppt.machine import Machine
    page = Path(__file__).resolve().parents[1] / "docs" / "apps" / "index.md"
    monkeypatch.setattr(registry, "_MODELS", dict(registry._MODELS))
    exec(compile(re.findall(r"```python\n(.*?)```", page.read_text(), re.S)[0], str(page), "exec"), {})
    model = registry._MODELS["ring"]
    result = model.build(4, model.resolve({"nbytes": "1024"})).run(Machine(load_system("edison"),
                                                                              network_kind="analytic"))
    assert result.as_json()["messages"] == 4 and result.predicted_s > 0

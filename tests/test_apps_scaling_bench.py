"""benchmarks/apps_scaling.py: every model has a sweep, speed-up and efficiency are consistent, the table fits."""
import importlib.util
import pathlib
import sys

import pytest

from ppt.apps import registry

PATH = pathlib.Path(__file__).resolve().parent.parent / "benchmarks" / "apps_scaling.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("apps_scaling", PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["apps_scaling"] = module          # dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    del sys.modules["apps_scaling"]


def test_every_registered_model_has_a_sweep(bench):
    assert set(bench.SWEEPS) == {model.name for model in registry.models()}


def test_points_are_whole_nodes_or_the_cores_of_one(bench):
    assert bench.rank_counts(bench.SWEEPS["hpl"], 24, quick=False) == [24, 96, 384]
    assert bench.rank_counts(bench.SWEEPS["stream"], 24, quick=False) == [1, 2, 4, 8, 16, 24]
    assert bench.rank_counts(bench.SWEEPS["stream"], 16, quick=True)[-1] == 16


def test_a_small_sweep_speeds_up_at_most_ideally(bench):
    # SNAP's study-1 sweep (no cache effects at these sizes) on 2 and 8 cores of one edison node:
    # T(2) / T(8) > 1, efficiency = speed-up x 2 / 8 <= 1, the communication share within [0, 1].
    model = registry.get("snap")
    sweep = bench.scale(model, "edison", model.resolve({}), [2, 8], network="analytic")
    first, second = sweep["results"]
    assert second["speedup"] == pytest.approx(first["predicted_s"] / second["predicted_s"], rel=1e-12)
    assert second["speedup"] > 1
    assert second["efficiency"] == pytest.approx(second["speedup"] * 2 / 8, rel=1e-12)
    assert second["efficiency"] <= 1 + 1e-9 and first["efficiency"] == 1
    assert [r["nodes"] for r in sweep["results"]] == [1, 1] and sweep["network"] == "analytic"
    assert all(0 <= bench.comm_share(r) <= 1 for r in sweep["results"])
    assert max(len(line) for line in bench.table([sweep]).splitlines()) <= 80

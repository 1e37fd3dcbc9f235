"""Step sampling: which steps a sampled run simulates, and the run's times scaled from their logs."""
from collections import Counter

import pytest

from ppt.apps.stepsampling import sample_kinds, scale_steps
from ppt.errors import ConfigError


def test_sample_takes_regular_steps_then_one_of_each_other_kind():
    counts = Counter({"plain": 95, "neigh": 4, "thermo+neigh": 1})
    assert sample_kinds(counts, "plain", 3) == ["plain"] * 3 + ["neigh", "thermo+neigh"]
    assert sample_kinds(Counter({"plain": 2, "neigh": 1}), "plain", 5) == ["plain", "plain", "neigh"]


def test_times_scale_by_step_counts():
    # Two ranks; step ends (last rank) at 1.0, 2.0 (regular, 1 s each) and 3.5 (special, 1.5 s).
    logs = [[("a", 0.0, 1.0, 0.8), ("a", 1.0, 2.0, 0.8), ("b", 2.0, 3.5, 1.0)],
            [("a", 0.0, 0.9, 0.6), ("a", 0.9, 1.9, 0.6), ("b", 1.9, 3.4, 1.2)]]
    times = scale_steps(logs, Counter({"a": 10, "b": 3}))
    assert times.predicted_s == pytest.approx(10 * 1.0 + 3 * 1.5)
    assert times.compute_s == pytest.approx(10 * 0.7 + 3 * 1.1)
    # Time in a step outside compute, mean over ranks: kind a 0.25 and 0.30 s, kind b 0.4 s.
    assert times.comm_s == pytest.approx(10 * (0.25 + 0.30) / 2 + 3 * 0.4)
    assert times.kinds == {"a": {"steps": 10, "step_s": 1.0}, "b": {"steps": 3, "step_s": 1.5}}


def test_a_kind_never_simulated_is_an_error():
    with pytest.raises(ConfigError, match="no step of kind b"):
        scale_steps([[("a", 0.0, 1.0, 1.0)]], Counter({"a": 5, "b": 1}))

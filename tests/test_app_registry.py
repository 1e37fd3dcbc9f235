"""The app registry: parameters read as their defaults' types, unknown names refused."""
import pytest

from ppt.apps.registry import AppModel, Param
from ppt.errors import ConfigError

MODEL = AppModel("toy", "a toy", {"n": Param(100, "cells per rank"), "dt": Param(0.5, "step, s"),
                                  "variant": Param("ring", "broadcast variant")}, build=lambda ranks, p: None)


def test_overrides_take_the_default_type():
    assert MODEL.resolve({"n": "2e3", "dt": "1e-3", "variant": "long"}) == {"n": 2000, "dt": 1e-3, "variant": "long"}
    assert MODEL.resolve({}) == {"n": 100, "dt": 0.5, "variant": "ring"}


def test_unknown_parameter_is_named_with_the_known_ones():
    with pytest.raises(ConfigError, match=r"no parameter 'nn' \(its parameters: dt, n, variant\)"):
        MODEL.resolve({"nn": "3"})


def test_unreadable_value_says_the_type():
    with pytest.raises(ConfigError, match="give int"):
        MODEL.resolve({"n": "2.5"})

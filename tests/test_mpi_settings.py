"""The ``mpi`` section's ``object_overhead_s``: read by call kind, checked, and shown by ``ppt describe``."""
import pytest

from ppt.cli.main import main
from ppt.errors import ConfigError
from ppt.mpi.settings import MPISettings


def test_object_costs_are_read_by_kind_and_zero_costs_dropped():
    settings = MPISettings.from_preset({"mpi": {"object_overhead_s": {"recv": 2e-6, "send": 1e-6, "bcast": 0}}})
    assert settings.object_costs == {"send": 1e-6, "recv": 2e-6}
    assert settings == MPISettings(object_overhead_s={"recv": 2e-6, "send": 1e-6})    # hashable, order-free
    assert len({settings, MPISettings.from_preset({})}) == 2
    assert MPISettings.from_preset({}).object_costs == {} == MPISettings.from_preset(
        {"mpi": {"object_overhead_s": {}}}).object_costs


@pytest.mark.parametrize("costs, words", [({"Send": 1e-6}, "names 'Send', not one of send"),
                                          ({"send": -1e-6}, r"object_overhead_s\.send must be a number"),
                                          ({"send": "1us"}, r"object_overhead_s\.send must be a number"),
                                          ([1e-6], "must be a mapping")])
def test_a_bad_object_cost_is_a_config_error(costs, words):
    with pytest.raises(ConfigError, match=words):
        MPISettings.from_preset({"mpi": {"object_overhead_s": costs}})


def test_describe_shows_the_setting(capsys):
    assert main(["describe", "mpi"]) == 0
    out = capsys.readouterr().out
    assert "object_overhead_s" in out and "mapping of kind to s" in out

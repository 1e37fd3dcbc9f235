"""Quantities with units: read from --set and options into SI numbers, written back with units."""
from __future__ import annotations

import pytest

from ppt.cli.main import main
from ppt.errors import ConfigError
from ppt.units import dimension_of, format_rate, format_time, parse_quantity


@pytest.mark.parametrize("text, dimension, value", [
    ("10GB/s", "rate", 10e9), ("100Gb/s", "rate", 12.5e9), ("25 Gbit/s", "rate", 25e9 / 8),
    ("1GiB/s", "rate", 2.0 ** 30), ("5e9", "rate", 5e9), ("12.5GBps", "rate", 12.5e9),
    ("1us", "time", 1e-6), ("1.5 ns", "time", 1.5e-9), ("250µs", "time", 250e-6), ("2ms", "time", 2e-3),
    ("3e-7", "time", 3e-7), ("4KiB", "size", 4096), ("4kB", "size", 4000), ("2MiB", "size", 2 << 20),
    ("1GB", "size", 10 ** 9), ("64", "size", 64),
])
def test_quantities_are_read_in_si_units(text, dimension, value):
    assert parse_quantity(text, dimension, "x") == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize("text, dimension, words", [
    ("10GB/s", "time", "is a time, but '10GB/s' is a bandwidth"),
    ("1us", "size", "is a size, but '1us' is a time"),
    ("4KiB", "rate", "is a bandwidth, but '4KiB' is a size"),
    ("3 furlongs", "time", "unknown unit 'furlongs'"),
    ("fast", "rate", "'fast' is not a bandwidth"),
    ("1.5B", "size", "not a whole number of bytes"),
])
def test_a_wrong_unit_is_refused_in_words(text, dimension, words):
    with pytest.raises(ConfigError, match="^x") as error:
        parse_quantity(text, dimension, "x")
    assert words in str(error.value)


def test_a_preset_field_has_the_dimension_its_name_ends_with():
    assert [dimension_of(k) for k in ("network.nic_latency_s", "nic_bandwidth_Bps", "vc_buffer_B", "routing")] == \
        ["time", "rate", "size", None]


@pytest.mark.parametrize("seconds, text", [
    (4.82561e-07, "482.6 ns"), (1.30581e-06, "1.306 µs"), (0.00172205, "1.722 ms"), (2.5, "2.5 s"),
    (0.9999996, "1 s"), (9.99996e-7, "1 µs"), (0.0, "0 s"), (5e-10, "0.5 ns"), (123456.0, "123,456 s"),
    (-2e-6, "-2 µs"),
])
def test_times_are_written_with_a_unit_and_four_digits(seconds, text):
    assert format_time(seconds) == text


def test_bandwidths_are_written_in_decimal_units():
    assert [format_rate(v) for v in (5.25e9, 12.5e6, 999.0, 1.6e13)] == ["5.25 GB/s", "12.5 MB/s", "999 B/s",
                                                                       "16 TB/s"]


def test_set_takes_values_with_units(capsys):
    from ppt.cli.common import read_system
    preset = read_system("edison", ["network.nic_bandwidth_Bps=100Gb/s", "network.nic_latency_s=1.5 ns",
                                    "network.vc_buffer_B=4KiB", "mpi.eager_threshold_B=4kB"])
    assert preset["network"]["nic_bandwidth_Bps"] == 12.5e9
    assert preset["network"]["nic_latency_s"] == pytest.approx(1.5e-9)
    assert preset["network"]["vc_buffer_B"] == 4096 and preset["mpi"]["eager_threshold_B"] == 4000


def test_a_unit_of_the_wrong_dimension_in_set_is_one_line(capsys):
    assert main(["topology", "edison", "--set", "network.nic_latency_s=10GB/s"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "network.nic_latency_s is a time" in err and "bandwidth" in err


def test_sizes_and_times_of_options_take_units(capsys, monkeypatch):
    from ppt.cli.common import parse_sizes, seconds
    assert parse_sizes("8,1k,4M,4kB,4KiB") == [8, 1024, 4 << 20, 4000, 4096]
    assert seconds("2us") == pytest.approx(2e-6) and seconds("1e-6") == 1e-6
    assert main(["pingpong", "darter", "--sizes", "8,4kb/s"]) == 2
    assert "bad size '4kb/s'" in capsys.readouterr().err
    assert main(["traffic", "dragonfly-booksim", "--load", "0.3", "--time", "10GB/s"]) == 2
    assert "must be a finite number of seconds >= 0 or a time with a unit" in capsys.readouterr().err

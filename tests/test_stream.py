"""STREAM: bytes counted by McCalpin's rules, kernel times from the node model's bandwidth bounds,
the node's bandwidth shared as ranks are added."""
import pytest

from ppt.apps.stream import KERNELS, StreamSim, counted_bytes, kernel_tasklist
from ppt.errors import ConfigError
from ppt.hardware.systems import load_system
from ppt.machine import Machine


@pytest.fixture(scope="module")
def edison():
    return Machine(load_system("edison"), network_kind="analytic")


def test_bytes_counted_per_element_follow_stream():
    assert {k: counted_bytes(k, 1) for k in KERNELS} == {"copy": 16, "scale": 16, "add": 24, "triad": 24}


@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("active", [1, 4, 24])
def test_kernel_time_is_the_memory_bound_closed_form(edison, kernel, active):
    node = edison.node_model
    n = 1_000_000
    reads, writes, _ = KERNELS[kernel]
    dram_B = 8 * n * (reads + 2 * writes)           # reads, plus the stored lines' fills and write-backs
    expected = dram_B * max(1 / node.core_bandwidth_Bps, active / node.memory_bandwidth_Bps)
    assert node.time_compute(kernel_tasklist(kernel, n), active) == pytest.approx(expected, rel=1e-12)
    streaming = kernel_tasklist(kernel, n, write_allocate=False)
    assert node.breakdown(streaming, active).dram_bytes == pytest.approx(counted_bytes(kernel, n), rel=1e-12)


def test_node_bandwidth_saturates_as_ranks_share_it(edison):
    node = edison.node_model
    rates = {}
    for ranks in (1, 2, 4, 8, 24):
        result = StreamSim(ranks, 80_000_000, ntimes=2).run(edison).as_json()
        rates[ranks] = result["triad_MBps"]
        per_rank = min(node.core_bandwidth_Bps, node.memory_bandwidth_Bps / ranks)
        assert rates[ranks] == pytest.approx(ranks * per_rank * 24 / 32 / 1e6, rel=1e-3)   # 24 of 32 B counted
    assert rates[2] == pytest.approx(2 * rates[1], rel=1e-3)
    assert rates[24] == pytest.approx(rates[8], rel=1e-3) and rates[24] < 8 * rates[1]


def test_bad_parameters_are_one_line_errors():
    with pytest.raises(ConfigError, match="at least 2"):
        StreamSim(4, 1000, ntimes=1)
    with pytest.raises(ConfigError, match="no element"):
        StreamSim(4, 3)

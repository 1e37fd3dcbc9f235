"""The CPU meter of ``ppt exec --compute measured``: a rank is charged its own code's CPU time, and not
the cost of reading the clock that measures it."""
from time import thread_time
from types import SimpleNamespace

import pytest

from ppt.exec import meter as meter_module
from ppt.exec.meter import CpuMeter, read_cost_s

#: CPU time a read of the fake clock below takes, half of it before the value is taken (s).
READ_S = 1e-6


class FakeClock:
    """A thread CPU clock whose every read costs READ_S, and code that runs ``work`` seconds."""

    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        self.t += READ_S / 2
        value = self.t
        self.t += READ_S / 2
        return value

    def work(self, seconds: float) -> None:
        self.t += seconds


def _rank():
    return SimpleNamespace(cpu_mark=0.0, owed_s=0.0, stats=SimpleNamespace(compute_s=0.0))


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr(meter_module, "thread_time", fake)
    return fake


def test_the_read_cost_is_the_gap_between_two_back_to_back_reads(clock):
    assert read_cost_s(11) == pytest.approx(READ_S)


@pytest.mark.parametrize("work_s", [0.0, 3e-7, 2.5e-3])
def test_a_rank_is_charged_its_code_and_not_the_clock_reads(clock, work_s):
    """Each measured interval carries one read's cost (the second half of the first read and the first
    half of the second); the meter takes it off, at 2x the host's time for a target twice as slow."""
    meter, rank = CpuMeter(scale=2.0), _rank()
    for _ in range(3):
        meter.start(rank)
        clock.work(work_s)
        meter.stop(rank)
    assert rank.stats.compute_s == pytest.approx(3 * 2.0 * work_s, abs=1e-15)
    assert rank.owed_s == rank.stats.compute_s
    meter.start(rank)
    clock.work(work_s)
    meter.lap(rank)                   # a lap charges the same and goes on measuring from there
    assert rank.stats.compute_s == pytest.approx(4 * 2.0 * work_s, abs=1e-15)


def test_busy_code_is_charged_in_full_on_the_real_clock():
    """20 ms of CPU between start and stop, on a target twice as slow: 40 ms charged."""
    meter, rank = CpuMeter(scale=2.0), _rank()
    meter.start(rank)
    until = thread_time() + 0.020
    while thread_time() < until:
        pass
    meter.stop(rank)
    assert 0.0399 <= rank.stats.compute_s <= 0.044      # a coarse CPU clock may overshoot a tick

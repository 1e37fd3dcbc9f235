"""Traffic runs measured in sub-windows: saturation stops them early, convergence optionally too."""
import json

import pytest

from ppt.cli.main import main
from ppt.hardware.systems import load_system
from ppt.drivers.steadystate import CONVERGED, SATURATED, Window, WindowMonitor
from ppt.drivers.traffic import run_traffic
from ppt.machine import Machine

SHORT = {"warmup_s": 1e-6, "time_s": 3e-6, "windows": 6, "comm": None}


def slimfly_3k():
    return Machine(load_system("slimfly-3k"))


def test_worst_case_min_at_half_load_saturates_and_stops_early():
    result = run_traffic(slimfly_3k(), "wc", 0.5, "min", **SHORT)
    assert result["saturated"] and result["stopped_early"] == "saturated"
    assert result["measured_s"] == pytest.approx(1.5e-6)          # three windows of 0.5 us piled up
    assert "source backlog grew" in result["stop_reason"]
    assert result["accepted_fraction"] < 1 / 18 * 1.05               # WC MIN carries at most 1/(2p)


def test_uniform_random_min_at_0_3_is_not_saturated_and_measures_the_whole_window():
    result = run_traffic(slimfly_3k(), "ur", 0.3, "min", **SHORT)
    assert not result["saturated"] and result["stopped_early"] is None and result["stop_reason"] is None
    assert result["measured_s"] == pytest.approx(3e-6) and len(result["windows_accepted_fraction"]) == 6
    assert result["accepted_fraction"] == pytest.approx(0.3, rel=0.02)


def test_without_early_stop_saturation_is_reported_and_the_whole_window_measured():
    result = run_traffic(slimfly_3k(), "wc", 0.5, "min", early_stop=False, **SHORT)
    assert result["saturated"] and result["stopped_early"] is None and result["measured_s"] == pytest.approx(3e-6)


def test_convergence_stops_once_both_means_are_known_to_the_stated_precision():
    machine = slimfly_3k()
    full = run_traffic(machine, "ur", 0.3, "min", **{**SHORT, "windows": 12})
    early = run_traffic(machine, "ur", 0.3, "min", precision=0.01, **{**SHORT, "windows": 12})
    assert early["stopped_early"] == "converged" and early["measured_s"] < full["measured_s"]
    assert early["accepted_fraction"] == pytest.approx(full["accepted_fraction"], rel=0.01)
    assert early["mean_latency_s"] == pytest.approx(full["mean_latency_s"], rel=0.01)
    measured = len(early["windows_accepted_fraction"])
    assert early["windows_accepted_fraction"] == full["windows_accepted_fraction"][:measured]


def feed(monitor, windows):
    """(index, verdict) of the first window that gave a verdict; (None, None) if none did."""
    for index, window in enumerate(windows):
        verdict = monitor.add(Window(*window))
        if verdict:
            return index, verdict
    return None, None


def test_monitor_needs_patience_windows_of_growth_and_ignores_poisson_noise():
    offered = 10_000
    steady = [(offered + d, 1e-6, 0.3) for d in (-300, 250, -390, 100, -380, -10)]     # within 4 sigma (400)
    assert feed(WindowMonitor(offered, 1e-6), steady) == (None, None)
    piling = [(offered - 600, 1e-6, 0.3), (offered - 600, 1e-6, 0.3), (offered, 1e-6, 0.3)] + \
        [(offered - 600, 1e-6, 0.3)] * 3
    assert feed(WindowMonitor(offered, 1e-6), piling) == (5, SATURATED)       # growth interrupted: count restarts


def test_monitor_reads_a_runaway_latency_as_saturation():
    latencies = [1.0, 1.2, 1.1, 1.5, 1.9, 2.3]                            # rising for three windows, to > 2x
    windows = [(10_000, t * 1e-6, 0.3) for t in latencies]
    assert feed(WindowMonitor(10_000, 1e-6), windows) == (5, SATURATED)
    assert feed(WindowMonitor(10_000, 1e-6, latency_factor=3.0), windows) == (None, None)
    assert feed(WindowMonitor(10_000, 0.5e-6), windows) == (None, None)     # first window still filling
    ramping = [(10_000 - 3000 + 1000 * k, t * 1e-6, 0.3) for k, t in enumerate(latencies)]
    assert feed(WindowMonitor(10_000, 1e-6), ramping) == (None, None)       # deliveries still rising


def test_monitor_converges_only_when_asked_and_after_enough_windows():
    windows = [(10_000, (1 + 0.001 * (-1) ** k) * 1e-6, 0.3 * (1 + 0.001 * (-1) ** k)) for k in range(8)]
    assert feed(WindowMonitor(10_000, 1e-6), windows) == (None, None)
    assert feed(WindowMonitor(10_000, 1e-6, precision=0.01), windows) == (4, CONVERGED)
    assert feed(WindowMonitor(10_000, 1e-6, precision=1e-5), windows) == (None, None)


def test_the_command_says_so_on_stderr_and_a_sweep_marks_the_saturated_point(tmp_path, capsys):
    small = ["slimfly-3k", "--set", "topology.q=5", "--set", "topology.p=4", "--pattern", "wc",
             "--warmup", "1e-6", "--time", "3e-6", "--windows", "6"]
    assert main(["traffic", *small, "--load", "0.5", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["stopped_early"] == "saturated"
    assert err.startswith("saturated: the source backlog grew") and "stopped early after 1.5 of 3 us" in err
    assert main(["sweep", "traffic", *small, "--loads", "0.05,0.5", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [(r["load"], r["saturated"]) for r in rows] == [(0.05, False), (0.5, True)]


def test_a_network_still_filling_is_not_taken_for_a_saturated_one():
    """Windows far shorter than a packet's crossing see deliveries lag creations without saturation."""
    machine = Machine(load_system("slimfly-3k", ["topology.q=5", "topology.p=4"]))
    result = run_traffic(machine, "ur", 0.1, "min", warmup_s=1e-7, time_s=2e-7, windows=10, comm=None)
    assert not result["saturated"] and result["measured_s"] == pytest.approx(2e-7)

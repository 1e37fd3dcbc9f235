"""``ppt.hardware.segments``: the piecewise fit of a ping-pong curve finds known breakpoints and lines on
exact data, and on data with noise."""
import numpy as np
import pytest

from ppt.hardware import calibrate
from ppt.hardware.segments import fit_line, fit_segments, line_time_s, segment_of

SIZES = calibrate.SIZES_B
#: (last size, latency s, bandwidth B/s) of three segments: eager, rendezvous, pipelined large messages.
TRUTH = [(8192, 1.5e-6, 6e9), (131072, 4e-6, 5e9), (SIZES[-1], 10e-6, 8e9)]
BOUNDS = [(0, 8192), (12288, 131072), (262144, SIZES[-1])]


def truth_s(n):
    return next(lat + n / bw for last, lat, bw in TRUTH if n <= last)


def bounds(fit):
    return [(s["from_B"], s["to_B"]) for s in fit["segments"]]


def test_exact_segments_are_recovered():
    fit = fit_segments(SIZES, [truth_s(n) for n in SIZES])
    assert bounds(fit) == BOUNDS
    for segment, (_, latency, bandwidth) in zip(fit["segments"], TRUTH):
        assert segment["latency_s"] == pytest.approx(latency, rel=1e-6)
        assert segment["bandwidth_Bps"] == pytest.approx(bandwidth, rel=1e-6)
        assert segment["rms_relative_error"] < 1e-9
    assert segment_of(fit["segments"], 8192) == 0 and segment_of(fit["segments"], 10000) == 1
    assert line_time_s(fit["segments"][2], 1 << 20) == pytest.approx(truth_s(1 << 20))


def test_one_line_is_one_segment():
    fit = fit_segments(SIZES, [2e-6 + n / 7e9 for n in SIZES])
    assert bounds(fit) == [(0, SIZES[-1])] and fit["segments"][0]["bandwidth_Bps"] == pytest.approx(7e9)


def test_noisy_segments_are_recovered():
    rng = np.random.default_rng(7)
    exact = np.array([truth_s(n) for n in SIZES])
    recovered = 0
    for _ in range(20):
        fit = fit_segments(SIZES, exact * (1 + 0.03 * rng.standard_normal(len(SIZES))))    # 3 % rms noise
        assert len(fit["segments"]) == 3
        if bounds(fit) == BOUNDS:
            recovered += 1
            for segment, (_, latency, bandwidth) in zip(fit["segments"], TRUTH):
                assert segment["bandwidth_Bps"] == pytest.approx(bandwidth, rel=0.15)
            assert 0.01 < fit["rms_relative_error"] < 0.05
    assert recovered >= 18


def test_a_line_never_has_negative_latency_or_bandwidth():
    latency, slope, _ = fit_line([0, 8, 64, 256], [2.0e-6, 1.9e-6, 1.95e-6, 1.9e-6])   # falls with size: flat
    assert slope == 0.0 and latency == pytest.approx(1.93e-6, rel=0.02)
    latency, slope, _ = fit_line([1000, 2000, 4000], [0.9e-6, 2.0e-6, 4.1e-6])        # below the origin
    assert latency == 0.0 and slope > 0


def test_too_few_sizes_cannot_be_fitted():
    with pytest.raises(ValueError, match="at least 3 sizes"):
        fit_segments([8, 64], [1e-6, 1e-6])

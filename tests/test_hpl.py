"""HPL: messages against the closed form of its communication, compute time as the sum of its
tasklists, HPL's Gflop/s formula, the node peak, and the sampled run against the full one."""
import math

import pytest

from ppt.apps import hpl_counts
from ppt.apps.hpl import HPLSim, pivot_B, trapezoid_sum
from ppt.apps.hpl_counts import (dgemm_tasklist, hpl_flops, near_square_grid, owned, panel_column_tasklist,
                                 panel_width, trsm_tasklist)
from ppt.errors import ConfigError
from ppt.hardware.systems import load_system
from ppt.machine import Machine
from ppt.mpi.collectives.calls import cost

INT_B = 4


@pytest.fixture(scope="module")
def edison():
    return Machine(load_system("edison"), network_kind="analytic")


def test_owned_counts_match_a_brute_force_deal():
    for n, nb, nprocs in ((1000, 64, 3), (257, 16, 4), (64, 64, 2)):
        for first in range(hpl_counts.panel_steps(n, nb)):
            for proc in range(nprocs):
                brute = sum(1 for i in range(first * nb, n) if (i // nb) % nprocs == proc)
                assert owned(n, nb, first, proc, nprocs) == brute


def expected_messages(sim: HPLSim) -> int:
    """Closed form: two communicator splits; per step, jb pivot allreduces on the panel's column (P
    ranks), the panel along every row (1ring: Q - 1 messages; long: a binomial scatter and a ring
    allgather of Q pieces) and U round every column (a ring allgather: P (P - 1) messages)."""
    P, Q = sim.p, sim.q
    total = 2 * cost("allgather", P * Q, 3 * INT_B)[0]
    for j in range(sim.steps):
        jb = panel_width(sim.n, sim.nb, j)
        if P > 1:
            total += jb * cost("allreduce", P, pivot_B(jb))[0]
            total += Q * P * (P - 1)
        if sim.bcast == "1ring":
            total += P * (Q - 1)
        else:
            total += P * ((Q - 1) + Q * (Q - 1))
    return total


@pytest.mark.parametrize("p, q", [(2, 2), (2, 3), (1, 3)])
@pytest.mark.parametrize("lookahead", [0, 1])
@pytest.mark.parametrize("bcast", ["1ring", "long"])
def test_messages_follow_the_closed_form(edison, p, q, lookahead, bcast):
    sim = HPLSim(600, 64, p, q, lookahead, bcast)
    assert cost("allreduce", 2, pivot_B(64))[0] == 2          # recursive doubling on a column of two
    assert sim.run(edison).messages == expected_messages(sim)


def assert_compute_is_the_tasklists(sim: HPLSim, machine, result) -> None:
    """Each rank's compute time is the sum of its steps' tasklists (panel columns on the panel's process
    column, TRSM and DGEMM on every rank), split over its threads on a node with all their cores busy."""
    node = machine.node_model.core_view(sim.ranks * sim.threads)
    eff = machine.node_model.dgemm_efficiency

    def time(tasklist):
        return node.time_compute(tasklist, sim.threads)

    for rank, stats in enumerate(result.job.per_rank):
        p, q = divmod(rank, sim.q)
        expected = 0.0
        for j in range(sim.steps):
            jb = panel_width(sim.n, sim.nb, j)
            if q == j % sim.q:
                rows = owned(sim.n, sim.nb, j, p, sim.p)
                expected += sum(time(panel_column_tasklist(rows, jb - c - 1, jb)) for c in range(jb))
            m, n = owned(sim.n, sim.nb, j + 1, p, sim.p), owned(sim.n, sim.nb, j + 1, q, sim.q)
            expected += time(trsm_tasklist(jb, n, eff)) + time(dgemm_tasklist(m, n, jb, eff))
        assert stats["compute_s"] == pytest.approx(expected, rel=1e-9)


def test_compute_time_is_the_sum_of_the_tasklists(edison):
    sim = HPLSim(700, 64, 2, 3, lookahead=0)
    assert_compute_is_the_tasklists(sim, edison, sim.run(edison))


def test_threads_share_each_ranks_tasklists_and_count_in_rpeak(edison):
    """Six ranks of four threads fill one Edison node: each rank's compute is its tasklists' time split
    over four cores of a full node, and Rpeak counts every thread's core."""
    sim = HPLSim(700, 64, 2, 3, lookahead=0, threads=4)
    result = sim.run(edison)
    assert_compute_is_the_tasklists(sim, edison, result)
    report = result.as_json()
    assert (report["cores"], report["threads"]) == (24, 4)
    assert report["rpeak_gflops"] == pytest.approx(24 * 2.4 * 8)         # 24 Ivy Bridge cores, 8 flops/cycle


def test_gflops_follow_hpl_formula_and_rpeak_the_node_peak(edison):
    assert hpl_flops(1000) == pytest.approx(2 / 3 * 1e9 + 1.5e6)
    result = HPLSim(800, 64, 2, 2).run(edison).as_json()
    assert result["gflops"] == pytest.approx(hpl_flops(800) / result["predicted_s"] / 1e9)
    assert result["rpeak_gflops"] == pytest.approx(4 * 2.4 * 8)          # 4 Ivy Bridge cores, 8 flops/cycle
    assert 0 < result["rmax_over_rpeak"] < edison.node_model.dgemm_efficiency
    slower = HPLSim(800, 64, 2, 2, dgemm_efficiency=0.5).run(edison).as_json()
    assert slower["dgemm_efficiency"] == 0.5 and slower["predicted_s"] > result["predicted_s"]


def test_fma_issue_and_node_peaks():
    from ppt.hardware.presets import load_processor
    peaks = {"haswell": 1177.6, "ivybridge": 460.8, "sandybridge": 345.6, "magnycours": 201.6, "bgq-a2": 204.8}
    for name, gflops in peaks.items():
        node = load_processor(name)
        assert node.peak_flops_per_s / 1e9 == pytest.approx(gflops)
        seconds = node.time_compute(dgemm_tasklist(1000, 1000, 1000))      # 1e9 multiply-adds on one core
        assert 2e9 / seconds == pytest.approx(node.peak_flops_per_s / node.cores, rel=1e-6)


@pytest.mark.parametrize("lookahead, bcast", [(0, "1ring"), (1, "1ring"), (1, "long")])
def test_sampled_run_is_within_two_percent_of_the_full_one(edison, lookahead, bcast):
    full = HPLSim(4000, 64, 2, 3, lookahead, bcast).run(edison)
    sampled = HPLSim(4000, 64, 2, 3, lookahead, bcast, sample_steps=12).run(edison)
    assert sampled.extra["steps_simulated"] == 12 < full.extra["steps"]
    assert sampled.predicted_s == pytest.approx(full.predicted_s, rel=0.02)


def test_recursive_panel_levels():
    assert [hpl_counts.panel_levels(jb) for jb in (4, 5, 8, 64, 192)] == [0, 1, 1, 4, 6]


def test_trapezoid_sum_is_exact_for_linear_step_times():
    steps = [0, 3, 9]
    assert trapezoid_sum(steps, [10 - s for s in steps]) == pytest.approx(sum(10 - j for j in range(10)))


def test_grid_and_bad_inputs():
    assert near_square_grid(24) == (4, 6) and near_square_grid(7) == (1, 7) and near_square_grid(16) == (4, 4)
    for kwargs, message in (({"nb": 700}, "exceeds N"), ({"lookahead": 2}, "0 or 1"), ({"bcast": "2ring"}, "1ring"),
                            ({"sample_steps": 1}, "at least 2"), ({"dgemm_efficiency": 1.5}, "fraction")):
        with pytest.raises(ConfigError, match=message):
            HPLSim(**{"n": 600, "nb": 64, "p": 2, "q": 2, **kwargs})

"""CloverLeaf model: chunk decomposition, halo message counts and sizes, compute vs tasklists, sampling."""
import pytest

from ppt.apps.cloverleaf import (HALOS, KERNELS, WORD_B, CloverLeafSim, Kernel, decompose, kernel_tasklist,
                                 pack_tasklist)
from ppt.apps.registry import get
from ppt.errors import ConfigError
from ppt.hardware.systems import load_system
from ppt.machine import Machine


@pytest.fixture(scope="module")
def edison():
    return Machine(load_system("edison"), network_kind="analytic")


def brute_force_chunks(ranks, x_cells, y_cells):
    """Every factor pair, the smallest perimeter, the smallest chunks_x on a tie."""
    pairs = [(cx, ranks // cx) for cx in range(1, ranks + 1) if ranks % cx == 0]
    return min(pairs, key=lambda p: (x_cells / p[0] + y_cells / p[1], p[0]))


@pytest.mark.parametrize("ranks, x, y", [(6, 60, 40), (16, 3840, 3840), (12, 100, 400), (7, 70, 70), (24, 960, 96)])
def test_decomposition_minimises_the_chunk_perimeter(ranks, x, y):
    assert decompose(ranks, x, y) == brute_force_chunks(ranks, x, y)


def test_halo_messages_match_the_closed_form(edison):
    # 2x3 chunks (6 ranks on a 40x60 mesh): corner ranks have 2 neighbours, the middle row 3.
    sim = CloverLeafSim(6, x_cells=40, y_cells=60, steps=3, summary_frequency=2)
    assert sim.chunks == (2, 3)
    result = sim.run(edison)
    for entry in result.job.per_rank:
        rank = entry["rank"]
        i, j = rank % 2, rank // 2
        neighbours = (i > 0) + (i < 1) + (j > 0) + (j < 2)
        assert entry["calls"]["MPI_Isend"] == 3 * 6 * neighbours == sim.sends_per_rank(rank)
        assert entry["calls"]["MPI_Irecv"] == entry["calls"]["MPI_Isend"]
        assert entry["calls"]["MPI_Allreduce"] == 3 * 3          # calc_dt and two PdV error checks
        assert entry["calls"]["MPI_Reduce"] == 2 * 5             # summaries after step 2 and the last


def test_halo_bytes_match_fields_depth_and_face_length(edison):
    # 2x1 chunks of 20x8 cells: per step each rank sends one x message per update_halo of
    # fields * depth * (ny + 2 depth) doubles, and one 8-byte message per allreduce (2 ranks).
    # The difference between a 2-step and a 1-step run is one step (set-up traffic cancels).
    sent = []
    for steps in (1, 2):
        sim = CloverLeafSim(2, x_cells=40, y_cells=8, steps=steps, summary_frequency=5)
        assert sim.chunks == (2, 1)
        sent.append([entry["bytes_sent"] for entry in sim.run(edison).job.per_rank])
    expected = sum(f * d * (8 + 2 * d) for f, d in HALOS.values()) * WORD_B + 3 * WORD_B
    assert [b - a for a, b in zip(*sent)] == [expected, expected]


def test_one_rank_time_is_the_sum_of_its_tasklists(edison):
    sim = CloverLeafSim(1, x_cells=30, y_cells=20, steps=4, summary_frequency=2)
    node = edison.node_model
    hydro = sum(node.time_compute(kernel_tasklist(KERNELS[name], 30, 20), 1) * count for name, count in
                {"ideal_gas": 2, "viscosity": 1, "calc_dt": 1, "pdv_predict": 1, "revert": 1, "accelerate": 1,
                 "pdv": 1, "flux_calc": 1, "advec_cell": 2, "advec_mom_first": 2, "advec_mom_second": 2,
                 "reset_field": 1}.items())
    summary = sum(node.time_compute(kernel_tasklist(KERNELS[name], 30, 20), 1)
                  for name in ("ideal_gas", "field_summary"))
    assert sim.step_sequence() == ["hydro", "summary", "hydro", "summary2"]   # step 4: periodic and final
    result = sim.run(edison, ranks_per_node=1)
    assert result.compute_s == pytest.approx(4 * hydro + 3 * summary, rel=1e-12)
    assert result.predicted_s == pytest.approx(result.compute_s, rel=1e-9)
    assert node.time_compute(pack_tasklist(100), 1) > 0


def test_memory_traffic_follows_the_streamed_arrays(edison):
    # A chunk far larger than the caches streams every read array once and every written one twice.
    node = edison.node_model
    nx = ny = 2000
    kernel = KERNELS["advec_cell"]
    dram = node.breakdown(kernel_tasklist(kernel, nx, ny), 24).dram_bytes
    assert dram == pytest.approx(nx * ny * WORD_B * (kernel.read + 2 * kernel.written))
    small = node.breakdown(kernel_tasklist(kernel, 20, 20), 24).dram_bytes
    assert small == 0                                          # a small chunk stays in cache: strong-scaling gain


def test_streamed_bytes_do_not_depend_on_the_line_size():
    # Blue Gene/Q's 128-byte lines move the same nx ny 8 (read + 2 written) bytes as x86's 64-byte ones.
    node = Machine(load_system("mira"), network_kind="analytic").node_model
    assert node.line_B == 128
    kernel = KERNELS["advec_mom_first"]
    dram = node.breakdown(kernel_tasklist(kernel, 2000, 2000), 16).dram_bytes
    assert dram == pytest.approx(2000 * 2000 * WORD_B * (kernel.read + 2 * kernel.written))


@pytest.mark.parametrize("system", ["stampede", "edison", "trinity"])
def test_a_vector_divide_costs_two_scalar_divides(system):
    # Sandy Bridge to Haswell divide 2 doubles per divide_cycles: a kernel's divides add
    # cells * divides / 2 * divide_cycles / clock_hz seconds to its issue bound.
    node = Machine(load_system(system), network_kind="analytic").node_model
    kernel = KERNELS["viscosity"]
    without = Kernel(kernel.read, kernel.written, kernel.stencil, kernel.flops, 0)
    cells = 100 * 60
    extra_s = (node.breakdown(kernel_tasklist(kernel, 100, 60), 1).issue_s
               - node.breakdown(kernel_tasklist(without, 100, 60), 1).issue_s)
    assert extra_s == pytest.approx(cells * kernel.divides / 2 * node.divide_cycles / node.clock_hz, rel=1e-12)


def test_sampled_steps_predict_the_full_run(edison):
    full = CloverLeafSim(6, x_cells=120, y_cells=90, steps=25, summary_frequency=10).run(edison)
    sampled = CloverLeafSim(6, x_cells=120, y_cells=90, steps=25, summary_frequency=10, sample_steps=3).run(edison)
    assert sampled.sampled and not full.sampled
    assert sampled.predicted_s == pytest.approx(full.predicted_s, rel=0.01)
    assert sampled.compute_s == pytest.approx(full.compute_s, rel=0.01)
    assert sampled.steps["summary"]["steps"] == 3 and sampled.steps["hydro"]["steps"] == 22
    assert sampled.steps["summary"]["step_s"] > sampled.steps["hydro"]["step_s"]


def test_runs_are_deterministic(edison):
    first = CloverLeafSim(4, x_cells=40, y_cells=40, steps=2).run(edison, seed=3).as_json()
    assert CloverLeafSim(4, x_cells=40, y_cells=40, steps=2).run(edison, seed=3).as_json() == first


@pytest.mark.parametrize("kwargs, message", [
    ({"steps": 0}, "steps must be a positive integer"),
    ({"x_cells": -5}, "x_cells must be a positive integer"),
    ({"ranks": 64, "x_cells": 8, "y_cells": 8}, "thinner than CloverLeaf's depth-2 halo"),
    ({"ranks": 7, "x_cells": 4, "y_cells": 4}, "more than it has cells"),
    ({"sample_steps": -1}, "sample_steps must be an integer >= 0"),
])
def test_bad_parameters_are_one_line_errors(kwargs, message):
    fields = {"ranks": 4, "x_cells": 40, "y_cells": 40} | kwargs
    with pytest.raises(ConfigError, match=message) as error:
        CloverLeafSim(**fields)
    assert "\n" not in str(error.value)


def test_registered_with_its_parameters():
    model = get("cloverleaf")
    sim = model.build(4, model.resolve({"x_cells": "64", "y_cells": "32", "steps": "3"}))
    assert (sim.x_cells, sim.y_cells, sim.steps, sim.ranks) == (64, 32, 3, 4)

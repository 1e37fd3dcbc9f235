"""Branson-like IMC model: escape probabilities, particle conservation, messages per round, determinism."""
import math

import pytest

from ppt.apps.imc import FACES, REPLICATED_ALLREDUCES, TALLY_DOUBLES, WORD_B, IMCSim
from ppt.apps.registry import get
from ppt.errors import ConfigError
from ppt.hardware.systems import load_system
from ppt.machine import Machine


@pytest.fixture(scope="module")
def trinity():
    return Machine(load_system("trinity"), network_kind="analytic")


def test_outcomes_follow_wigners_rational_approximation():
    sim = IMCSim(8, nx=12, ny=12, nz=12, mfp=3.0, census_length=6.0)
    p = sim.outcomes()
    length = 1 / (1 / 3 + 1 / 6)
    escape = 1 / (1 + (2 * 6 / 3) / length)            # cube of side 6: mean chord 4V/S = 2L/3
    assert p.sum() == pytest.approx(1.0)
    assert p[:FACES].sum() == pytest.approx(escape)
    assert p[FACES] / p[FACES + 1] == pytest.approx(6.0 / 3.0)       # absorbed : census = census_length : mfp
    assert sim.crossings() == pytest.approx(length * (1 - escape))


def test_emission_is_shared_by_source_weight():
    sim = IMCSim(4, nx=16, ny=8, nz=8, photons=100_000, source_fraction=0.25, source_ratio=9.0)
    assert sim.grid == [2, 2, 1]
    # x halves of 8 cells: the first holds the 4 source columns (weight 4*9 + 4), the second weight 8.
    hot, cold = sim.emitted(0), sim.emitted(2)
    assert hot == round(100_000 * 40 / 2 / 48) and cold == round(100_000 * 8 / 2 / 48)
    assert sum(sim.emitted(r) for r in range(4)) == pytest.approx(100_000, abs=4)


def test_particles_are_conserved_and_passed_ones_received(trinity):
    sim = IMCSim(8, nx=8, ny=8, nz=8, photons=20_000, steps=3, batch=500)
    result = sim.run(trinity)
    logs = result.job.returns
    for step in range(sim.steps):
        rows = [log[step] for log in logs]
        born = sum(r["emitted"] + r["census_in"] for r in rows)
        ended = sum(r["absorbed"] + r["escaped"] + r["census_out"] for r in rows)
        assert born == ended
        assert len({r["rounds"] for r in rows}) == 1                 # the global count ends every rank's loop
        if step:
            assert sum(r["census_in"] for r in rows) == sum(log[step - 1]["census_out"] for log in logs)
    assert result.extra["particles_passed"] > 0


def test_messages_are_one_per_neighbour_and_round_with_large_buffers(trinity):
    sim = IMCSim(12, nx=12, ny=12, nz=12, photons=5_000, steps=2, batch=10**6)
    assert sim.grid == [3, 2, 2]
    result = sim.run(trinity)
    for entry, log in zip(result.job.per_rank, result.job.returns):
        x, y, z = sim.coords(entry["rank"])
        neighbours = (x > 0) + (x < 2) + (y > 0) + (y < 1) + (z > 0) + (z < 1)
        rounds = sum(step["rounds"] for step in log)
        assert entry["calls"]["MPI_Isend"] == rounds * neighbours
        assert entry["calls"]["MPI_Recv"] == rounds * neighbours
        assert entry["calls"]["MPI_Allreduce"] == rounds + sim.steps


def test_small_buffers_split_particles_into_batches(trinity):
    kwargs = dict(nx=8, ny=8, nz=8, photons=20_000, steps=1)
    big = IMCSim(8, batch=10**6, **kwargs).run(trinity)
    small = IMCSim(8, batch=50, **kwargs).run(trinity)
    sent = big.extra["particles_passed"]
    assert small.extra["particles_passed"] == sent                   # same seed, same draws
    isends = sum(e["calls"]["MPI_Isend"] for e in small.job.per_rank)
    base = sum(e["calls"]["MPI_Isend"] for e in big.job.per_rank)
    assert math.ceil(sent / 50) <= isends <= base + sent / 50


def test_one_rank_compute_is_the_sum_of_its_tasklists(trinity):
    sim = IMCSim(1, nx=6, ny=6, nz=6, photons=3000, steps=3)
    result = sim.run(trinity)
    node = trinity.node_model
    expected = 0.0
    for step in result.job.returns[0]:
        held = step["emitted"] + step["census_in"]
        assert step["rounds"] == 1 and step["sent"] == 0                  # no neighbours: every leaver escapes
        expected += (node.time_compute(sim.emission_tasklist(step["emitted"]), 1)
                     + node.time_compute(sim.transport_tasklist(held, held), 1)
                     + node.time_compute(sim.update_tasklist(), 1))
    assert result.compute_s == pytest.approx(expected, rel=1e-12)


def test_runs_are_deterministic_per_seed(trinity):
    sim = IMCSim(8, nx=8, ny=8, nz=8, photons=10_000, steps=2)
    first = sim.run(trinity, seed=1).as_json()
    assert sim.run(trinity, seed=1).as_json() == first
    assert sim.run(trinity, seed=2).as_json()["particles_passed"] != first["particles_passed"]


def test_replicated_messages_are_the_end_of_step_reductions_only(trinity):
    sim = IMCSim(4, nx=6, ny=5, nz=7, photons=1001, steps=3, mode="replicated")
    result = sim.run(trinity)
    # Recursive doubling (payload / ranks below the ring cut-off): log2(4) = 2 exchanges of the whole
    # vector per allreduce; per step 8 B (source energy) + 2 x 8 B per cell (tallies) + the energy tallies.
    per_step_B = WORD_B + 2 * WORD_B * sim.cells + TALLY_DOUBLES * WORD_B
    for entry in result.job.per_rank:
        assert entry["calls"] == {"MPI_Allreduce": REPLICATED_ALLREDUCES * sim.steps}
        assert entry["messages_sent"] == 2 * REPLICATED_ALLREDUCES * sim.steps
        assert entry["bytes_sent"] == 2 * sim.steps * per_step_B
    for step in range(sim.steps):
        rows = [log[step] for log in result.job.returns]
        assert sum(r["emitted"] for r in rows) == sim.photons                # 251 + 3 x 250
        assert sum(r["emitted"] + r["census_in"] for r in rows) == sum(
            r["absorbed"] + r["escaped"] + r["census_out"] for r in rows)
        assert all(r["rounds"] == 1 and r["sent"] == 0 for r in rows)
    assert result.extra["fom_photons_per_s"] == pytest.approx(sim.photons / result.predicted_s)


def test_replicated_ranks_see_the_whole_mesh():
    whole = IMCSim(1, nx=6, ny=5, nz=7)
    replicated = IMCSim(12, nx=6, ny=5, nz=7, mode="replicated")      # 12 ranks could not split 6x5x7
    assert replicated.grid == [1, 1, 1] and replicated.local == (6, 5, 7)
    assert replicated.outcomes() == pytest.approx(whole.outcomes())
    assert [replicated.emitted(r) for r in (0, 11)] == [whole.photons // 12 + 1, whole.photons // 12]


def test_replicated_on_one_rank_computes_what_decomposed_does(trinity):
    kwargs = dict(nx=6, ny=6, nz=6, photons=3000, steps=3)
    decomposed = IMCSim(1, **kwargs).run(trinity, seed=4)
    replicated = IMCSim(1, mode="replicated", **kwargs).run(trinity, seed=4)
    assert replicated.job.returns == decomposed.job.returns            # same draws, same accounting
    assert replicated.compute_s == pytest.approx(decomposed.compute_s, rel=1e-12)


@pytest.mark.parametrize("kwargs, message", [
    ({"steps": 0}, "steps must be a positive integer"),
    ({"ranks": 3, "nx": 8}, "does not divide its 8 cells"),
    ({"mfp": -1.0}, "mfp must be a number > 0"),
    ({"source_fraction": 1.5}, "source_fraction must lie in"),
    ({"batch": 0}, "batch must be a positive integer"),
    ({"mode": "mesh"}, "mode must be one of decomposed, replicated"),
])
def test_bad_parameters_are_one_line_errors(kwargs, message):
    fields = {"ranks": 2, "nx": 8, "ny": 8, "nz": 8} | kwargs
    with pytest.raises(ConfigError, match=message) as error:
        IMCSim(**fields)
    assert "\n" not in str(error.value)


def test_registered_with_its_parameters():
    model = get("imc")
    sim = model.build(8, model.resolve({"photons": "1e4", "batch": "100", "mfp": "2", "mode": "replicated"}))
    assert (sim.photons, sim.batch, sim.mfp, sim.ranks, sim.mode) == (10_000, 100, 2.0, 8, "replicated")

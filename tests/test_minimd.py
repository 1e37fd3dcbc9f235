"""miniMD-style LJ model: closed-form neighbour and ghost counts, messages per step kind, sampling, errors."""
import math

import pytest

from ppt.apps.minimd import (MDProblem, MiniMDSim, force_tasklist, integrate_tasklist, neighbour_tasklist,
                             copy_tasklist)
from ppt.apps.registry import get
from ppt.errors import ConfigError
from ppt.hardware.systems import load_system
from ppt.machine import Machine


@pytest.fixture(scope="module")
def edison():
    return Machine(load_system("edison"), network_kind="analytic")


def test_neighbour_counts_from_density_and_cutoff():
    p = MDProblem()
    assert p.lattice == pytest.approx(1.6796, abs=1e-4)              # in.lj's log: lattice spacing 1.6796
    # Half list with skin: 4/3 pi 2.8^3 0.8442 / 2; LAMMPS' in.lj log reports 37.6 neighbours per atom.
    assert p.half_neighbours(2.8) == pytest.approx(38.8, abs=0.05)
    assert p.half_neighbours(2.8) == pytest.approx(37.5885, rel=0.04)
    assert p.half_neighbours(2.5) == pytest.approx(27.6, abs=0.05)


def test_ghost_shell_is_the_halo_volume():
    # The staged slabs add up to rho * ((L + 2 rg)^3 - L^3) in a cubic sub-domain.
    sim = MiniMDSim(8, nx=20, ny=20, nz=20)
    L = sim.box[0] / 2
    rg, rho = sim.problem.ghost_cutoff, sim.problem.density
    assert sim.ghosts() == pytest.approx(rho * ((L + 2 * rg) ** 3 - L ** 3))
    # One rank: in.lj's log has 19,657 ghosts for 32,000 atoms; the shell estimate is within 5 %.
    assert MiniMDSim(1).ghosts() == pytest.approx(19657, rel=0.05)


def test_thin_subdomains_need_several_swaps():
    sim = MiniMDSim(8, nx=8, ny=3, nz=3)            # grid 2x2x2; y and z sub-domains 2.52 sigma < rg = 2.8
    assert sim.grid == [2, 2, 2]
    assert [len(s) for s in sim.swaps()] == [1, 2, 2]
    assert sum(sim.swaps()[1]) == pytest.approx(sim.problem.density * 2.8 * (sim.local[0] + 5.6) * sim.local[2])


def test_messages_per_step_kind_match_the_closed_form(edison):
    # 2x2x1 grid of 12x12x6 cells, no thermo: setup traffic cancels between a 2- and a 5-step run.
    counts = []
    for steps in (2, 5):
        sim = MiniMDSim(4, nx=12, ny=12, nz=6, steps=steps, reneigh=4, thermo=1000)
        counts.append([entry["messages_sent"] for entry in sim.run(edison).job.per_rank])
    sim = MiniMDSim(4, nx=12, ny=12, nz=6, steps=5, reneigh=4, thermo=1000)
    assert sim.grid == [2, 2, 1] and [len(s) for s in sim.swaps()] == [1, 1, 0]
    # steps 3, 4 (rebuild), 5: 4 swaps x 2 ... per the module's count: plain 4 S, rebuild 4 E + 6 S (S = E = 2).
    assert sim.sends_per_step("plain") == 8 and sim.sends_per_step("neigh") == 20
    expected = 2 * sim.sends_per_step("plain") + sim.sends_per_step("neigh")
    assert [b - a for a, b in zip(*counts)] == [expected] * 4


def test_thermo_steps_add_three_allreduces(edison):
    result = MiniMDSim(4, nx=12, ny=12, nz=6, steps=6, reneigh=3, thermo=2).run(edison)
    for entry in result.job.per_rank:
        assert entry["calls"]["MPI_Allreduce"] == 3 * 3
        assert entry["calls"]["MPI_Sendrecv"] == 2 * 20 + 4 * 8    # steps 3 and 6 rebuild


def test_one_rank_time_is_the_sum_of_its_tasklists(edison):
    sim = MiniMDSim(1, nx=6, ny=6, nz=6, steps=4, reneigh=2, thermo=4)
    node = edison.node_model
    t = node.time_compute
    copies = sum(t(copy_tasklist(2 * sum(slabs) * 3)) for slabs in sim.slabs())
    plain = 2 * t(integrate_tasklist(sim)) + t(force_tasklist(sim, False)) + 2 * copies
    rebuild = plain + t(neighbour_tasklist(sim))
    thermo_rebuild = rebuild - t(force_tasklist(sim, False)) + t(force_tasklist(sim, True))
    result = sim.run(edison, ranks_per_node=1)
    assert result.compute_s == pytest.approx(2 * plain + rebuild + thermo_rebuild, rel=1e-12)
    assert result.predicted_s == pytest.approx(result.compute_s, rel=1e-9)


def test_force_work_counts_pairs():
    sim = MiniMDSim(1)
    work = force_tasklist(sim, False)
    pairs = 32000 * sim.problem.half_neighbours(2.5)
    assert work.divides == pytest.approx(pairs)                         # one 1/r^2 per pair inside the cut-off
    assert force_tasklist(sim, True).float_ops > work.float_ops


def test_sampled_steps_predict_the_full_run(edison):
    kwargs = dict(nx=12, ny=12, nz=12, steps=40, reneigh=10, thermo=20)
    full = MiniMDSim(8, **kwargs).run(edison)
    sampled = MiniMDSim(8, sample_steps=3, **kwargs).run(edison)
    assert sampled.predicted_s == pytest.approx(full.predicted_s, rel=0.01)
    assert sampled.comm_s == pytest.approx(full.comm_s, rel=0.05)
    assert {kind: v["steps"] for kind, v in sampled.steps.items()} == {"plain": 36, "neigh": 2, "thermo+neigh": 2}
    for kind, entry in full.steps.items():
        assert sampled.steps[kind]["step_s"] == pytest.approx(entry["step_s"], rel=0.02)
    assert len(sampled.job.returns[0]) == 3 + 2                      # 3 plain steps + one of each other kind


def test_runs_are_deterministic(edison):
    first = MiniMDSim(4, nx=8, ny=8, nz=8, steps=3).run(edison, seed=5).as_json()
    assert MiniMDSim(4, nx=8, ny=8, nz=8, steps=3).run(edison, seed=5).as_json() == first


@pytest.mark.parametrize("kwargs, message", [
    ({"steps": 0}, "steps must be a positive integer"),
    ({"reneigh": 0}, "reneigh must be a positive integer"),
    ({"ranks": 64, "nx": 3, "ny": 3, "nz": 3}, "4 sub-domains along x on 3 lattice cells"),
    ({"nx": 1}, "not wider than the ghost cut-off"),
])
def test_bad_parameters_are_one_line_errors(kwargs, message):
    fields = {"ranks": 1, "nx": 4, "ny": 4, "nz": 4} | kwargs
    with pytest.raises(ConfigError, match=message) as error:
        MiniMDSim(**fields)
    assert "\n" not in str(error.value)


def test_registered_with_its_parameters():
    model = get("minimd")
    sim = model.build(8, model.resolve({"nx": "10", "steps": "5"}))
    assert (sim.nx, sim.ny, sim.steps, sim.atoms) == (10, 20, 5, 4 * 10 * 20 * 20)
    assert math.isclose(sim.problem.cutoff, 2.5)

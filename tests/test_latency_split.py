"""MPI software overheads apart from NIC hardware latency: one preset gives both the MPI ping-pong latency
users measure and the NIC-to-NIC latency vendors publish."""
import json

import pytest

from ppt.apps.microbench import pingpong
from ppt.cli.main import main
from ppt.hardware.systems import load_system
from ppt.drivers.survey import latency_survey
from ppt.machine import Machine
from ppt.mpi.settings import MPISettings

#: Kerbyson et al., ICPADS 2012: measured minimum 0-byte MPI latency on BG/Q, s (two significant figures).
BGQ_MPI_MIN_S = 2.6e-6
#: The PPT validation's end-to-end (message unit to message unit) latency on one BG/Q midplane: nearest
#: neighbour and farthest node (9 hops), s.
BGQ_MIDPLANE_NEAREST_S, BGQ_MIDPLANE_FARTHEST_S = 718e-9, 1264e-9
#: IBM, 'Blue Gene/Q Overview and Update' (2011): hardware latency across the full 96-rack machine (31 hops), s.
BGQ_FARTHEST_S, BGQ_FARTHEST_HOPS = 3e-6, 31
#: Chen et al., SC11: on-chip latency per hop, s.
BGQ_ON_CHIP_HOP_S = 40e-9


@pytest.fixture(scope="module")
def sequoia():
    machine = Machine(load_system("sequoia"))
    return machine, latency_survey(machine)


def test_sequoia_mpi_level_minimum_stays_the_measured_2_6_us(sequoia):
    _, survey = sequoia
    assert survey["min_s"] == pytest.approx(BGQ_MPI_MIN_S, rel=0.02)


def test_sequoia_network_level_stays_inside_ibms_full_machine_band(sequoia):
    machine, survey = sequoia
    assert machine.topology.diameter() == BGQ_FARTHEST_HOPS
    assert survey["network_min_s"] == pytest.approx(BGQ_MIDPLANE_NEAREST_S, rel=0.005)
    assert survey["network_max_s"] <= BGQ_FARTHEST_S


def test_bgq_midplane_network_band_reproduces_the_end_to_end_band():
    """NIC to NIC is message unit to message unit: 718 ns to the nearest neighbour and 1,264 ns to the
    farthest node, 546 ns over 8 further hops; each further hop costs more than the on-chip 40 ns
    (Chen et al.): its link, router and the cut-through header's serialization."""
    machine = Machine(load_system("bgq-midplane"))
    survey = latency_survey(machine)
    further_hops = machine.topology.diameter() - 1
    assert survey["network_min_s"] == pytest.approx(BGQ_MIDPLANE_NEAREST_S, rel=0.005)
    assert survey["network_max_s"] == pytest.approx(BGQ_MIDPLANE_FARTHEST_S, rel=0.005)
    assert (survey["network_max_s"] - survey["network_min_s"]) / further_hops > BGQ_ON_CHIP_HOP_S


@pytest.mark.parametrize("system", ["bgq-midplane", "darter", "hopper", "fattree-4-3"])
def test_mpi_pingpong_is_the_network_level_plus_both_overheads(system):
    """A lone message: MPI one-way latency = NIC-to-NIC latency + o_send + o_recv (nodes 0 and 1 are nearest)."""
    machine = Machine(load_system(system))
    settings = MPISettings.from_preset(machine.preset)
    survey = latency_survey(machine)
    (mpi,) = pingpong(machine, [8], repetitions=1, nodes=(0, 1))
    assert mpi["latency_s"] == pytest.approx(survey["network_min_s"] + settings.send_overhead_s
                                             + settings.recv_overhead_s, rel=1e-9)
    assert survey["min_s"] == pytest.approx(mpi["latency_s"], rel=1e-9)


def test_latency_survey_cli_reports_both_levels(capsys):
    assert main(["latency-survey", "darter", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["network_min_s"] <= out["network_mean_s"] <= out["network_max_s"]
    overhead = out["send_overhead_s"] + out["recv_overhead_s"]
    assert overhead > 0
    for level in ("min_s", "mean_s", "max_s"):
        assert out[level] == pytest.approx(out[f"network_{level}"] + overhead, rel=1e-12)

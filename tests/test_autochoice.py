"""``--network auto``: the packet network unless its estimated cost is over the budget, said on stderr."""
import json

import pytest

from ppt.apps.scaling import packet_hops, study_sim
from ppt.cli.main import main
from ppt.hardware.systems import load_system
from ppt.drivers import autochoice
from ppt.drivers.autochoice import PACKET_HOPS_PER_S, Estimate, Estimator, choose, trace_estimate
from ppt.machine import Machine
from ppt.mpi.mapping import map_ranks
from ppt.traces.readers.dumpi import TraceSet

from shared_traces import needs_real, path, real

#: A shipped DUMPI sample whose replay the packet network runs well within the budget.
SMALL_TRACE = path("master_worker_n6")
#: Messages per second of the MPI layer and packet-hops per second of the packet network measured on
#: one machine (ppt/drivers/autochoice.py): the test's cost scale, not this machine's wall time.
MEASURED_MESSAGES_PER_S, MEASURED_PACKET_HOPS_PER_S = 3e4, 1.3e6
#: ... and of a trace's replay (on the compiled MPI engine).
MEASURED_REPLAY_MESSAGES_PER_S = 4.5e5


def test_choice_is_packet_exactly_up_to_the_budget():
    hops = 1e6
    assert choose(hops, budget_s=hops / PACKET_HOPS_PER_S)[0] == "packet"
    kind, reason = choose(hops, budget_s=0.999 * hops / PACKET_HOPS_PER_S)
    assert kind == "flow" and "over the" in reason


def test_estimate_counts_packets_times_routers_crossed_and_skips_same_node_messages():
    """Fat-tree 4-port 3-tree: nodes 0 and 1 share a leaf switch (one switch crossed), nodes 0 and 15 meet
    at a core switch (five crossed)."""
    machine = Machine(load_system("fattree-4-3"))
    payload = machine.preset["network"]["packet"]["max_payload_B"]
    estimator = Estimator(machine, node_of=[0, 1, 15, 15])
    assert estimator.pairs([(2, 3, 10 * payload, 7)]) == 0
    assert estimator.pairs([(0, 1, 3 * payload + 1, 2)]) == 2 * 4 * 1
    assert estimator.pairs([(0, 2, 0, 5)]) == 5 * 1 * 5


def test_an_alltoall_counts_its_algorithms_messages_not_its_payload():
    """Pairwise exchange on p ranks: p - 1 blocks of S bytes from every rank.  Edison answers every
    64-byte data packet with a response packet; ranks on nodes 0-3 share one router (one traversal)."""
    machine = Machine(load_system("edison"))
    estimator = Estimator(machine, node_of=[0, 1, 2, 3])
    block = 10 * 64
    est = estimator.collective("alltoall", 4, block)
    assert est.messages == est.off_node == 4 * 3
    assert est.packet_hops == 4 * 3 * 10 * 2 * 1
    assert estimator.collective("alltoall", 16, block).messages == 16 * 15


@pytest.mark.parametrize("name", ["master_worker_n6", *real("npb_ft_W_n4")])
def test_a_traces_estimate_counts_the_packets_its_replay_simulates(capsys, name):
    """master_worker_n6: 250 small sends and receives between a master and five workers; npb_ft_W_n4: 8 alltoalls
    of 4 x 3 blocks of 512 KiB, a few small reduces and broadcasts."""
    trace = TraceSet(path(name))
    machine = Machine(load_system("edison"))
    est = trace_estimate(trace, Estimator(machine, map_ranks(trace.ranks, 1, machine.num_nodes)))
    assert main(["replay", str(trace.meta_path), "--system", "edison", "--ranks-per-node", "1", "--network",
                 "packet", "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    network = replayed["network"]
    assert est.packet_hops == pytest.approx(network["packets"] * (network["mean_hops"] + 1), rel=0.01)
    assert est.messages == pytest.approx(sum(r["messages_sent"] for r in replayed["per_rank"]), rel=0.15)


@pytest.mark.parametrize("name", ["halo3d_n8", *real("hpccg_n4")])
def test_the_estimate_of_a_small_trace_is_within_3x_of_its_cost(capsys, monkeypatch, name):
    """The cost of what the packet network did (its packet-hops and the MPI messages), at measured rates."""
    monkeypatch.setattr(autochoice, "PACKET_HOPS_PER_S", MEASURED_PACKET_HOPS_PER_S)
    monkeypatch.setattr(autochoice, "MESSAGES_PER_S", MEASURED_MESSAGES_PER_S)
    monkeypatch.setattr(autochoice, "REPLAY_MESSAGES_PER_S", MEASURED_REPLAY_MESSAGES_PER_S)
    trace = TraceSet(path(name))
    machine = Machine(load_system("fattree-4-3"))
    est = trace_estimate(trace, Estimator(machine, map_ranks(trace.ranks, 1, machine.num_nodes)))
    assert main(["replay", str(path(name)), "--system", "fattree-4-3", "--ranks-per-node", "1", "--network",
                 "packet", "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    network = replayed["network"]
    actual = Estimate(network["packets"] * (network["mean_hops"] + 1),
                      sum(r["messages_sent"] for r in replayed["per_rank"]))
    actual.messages_per_s = MEASURED_REPLAY_MESSAGES_PER_S
    actual = actual.seconds
    assert actual / 3 <= est.seconds <= 3 * actual


@needs_real
def test_mostly_small_messages_keep_the_packet_network_over_the_budget(monkeypatch):
    """amg_n4 sends mostly messages of a few packets, where the flow network errs most; npb_ft_W_n4 large
    ones.  With a budget of half their estimates, amg stays on the packet network and ft goes to flow."""
    machine = Machine(load_system("edison"))
    for name, kind in (("amg_n4", "packet"), ("npb_ft_W_n4", "flow")):
        trace = TraceSet(path(name))
        est = trace_estimate(trace, Estimator(machine, map_ranks(4, 1, machine.num_nodes)))
        chosen, reason = choose(est, budget_s=est.seconds / 2)
        assert chosen == kind, reason
        assert ("small" in reason) == (kind == "packet")
    small = Estimate(packet_hops=1e9, messages=10, off_node=10, small=10)
    assert choose(small, budget_s=small.seconds / (2 * autochoice.SMALL_BUDGET_FACTOR))[0] == "flow"


def test_snap_traffic_is_what_each_rank_sends():
    sim = study_sim(1, 96)
    sent = {}
    for src, _, _, count in sim.sweep_traffic():
        sent[src] = sent.get(src, 0) + count
    assert sent == {z * sim.npey + y: sim.sends_per_rank(y, z) for z in range(sim.npez) for y in range(sim.npey)}


def test_the_readme_snap_job_stays_on_the_packet_network_and_large_studies_do_not():
    edison = Machine(load_system("edison"))
    assert choose(packet_hops(edison, 1, [24, 48, 96, 192, 384]))[0] == "packet"
    assert choose(packet_hops(edison, 2, [768, 1536, 3072]))[0] == "flow"


def _replay(capsys, *extra):
    argv = ["replay", str(SMALL_TRACE), "--system", "fattree-4-3", "--ranks-per-node", "1", "--json", *extra]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    return json.loads(out)["network"], [line for line in err.splitlines() if line.startswith("network:")]


def test_replay_of_a_small_trace_runs_the_packet_network_and_says_so(capsys, monkeypatch):
    monkeypatch.delenv("PPT_QUIET", raising=False)
    stats, lines = _replay(capsys)
    assert len(lines) == 1 and lines[0].startswith("network: packet network") and "reshares" not in stats


def test_replay_over_budget_runs_the_flow_network_unless_packet_is_forced(capsys, monkeypatch):
    monkeypatch.delenv("PPT_QUIET", raising=False)
    monkeypatch.setattr(autochoice, "BUDGET_S", 1e-9)
    stats, lines = _replay(capsys)
    assert len(lines) == 1 and lines[0].startswith("network: flow network") and "reshares" in stats
    stats, lines = _replay(capsys, "--network", "packet")
    assert lines == [] and "reshares" not in stats


def test_sampling_makes_auto_choose_the_packet_network_it_observes(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(autochoice, "BUDGET_S", 1e-9)
    stats, _ = _replay(capsys, "--sample-every", "1e-5", "--samples", str(tmp_path / "s.npz"))
    assert "reshares" not in stats and (tmp_path / "s.npz").stat().st_size > 0


def test_snap_over_budget_reports_the_flow_network(capsys, monkeypatch):
    monkeypatch.delenv("PPT_QUIET", raising=False)
    monkeypatch.setattr(autochoice, "BUDGET_S", 1e-9)
    assert main(["snap", "hopper", "--study", "1", "--cores", "48", "--jobs", "1", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["network"] == "flow"
    assert [line for line in err.splitlines() if line.startswith("network:")][0].startswith("network: flow network")


@pytest.mark.parametrize("argv", [["replay", str(SMALL_TRACE), "--system", "fattree-4-3", "--network", "packets"],
                                  ["snap", "fattree-4-3", "--cores", "16", "--network", "packets"]])
def test_an_unknown_network_kind_is_one_line(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'packets'" in err and "Traceback" not in err

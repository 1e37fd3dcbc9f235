"""Traffic classes in the packet core (``network.traffic_classes``, ``class_shares``, ``class_priority``):
a lone packet's latency unchanged, shares of a saturated port, work conservation, strict priority,
conservation, per-class statistics, bad settings, and a job mix with classes under ``mpiexec``."""
import json

import pytest

from ppt.errors import ConfigError
from ppt.interconnects.networks.packetnet import PacketNetwork
from ppt.interconnects.topologies.torus import Torus
from ppt.drivers.traffic import TrafficGenerator
from network_checks import assert_conserved

LINK_BW, LINK_LAT, ROUTER = 1e9, 50e-9, 20e-9
TERM_BW, TERM_LAT, NIC_BW, NIC_LAT = 2e9, 10e-9, 4e9, 100e-9
HEADER_B, PAYLOAD_B = 16, 64
#: Measured window of the saturation tests, after WARMUP_S, s.
WARMUP_S, WINDOW_S = 10e-6, 40e-6


def ring(**network):
    """A ring of 8 routers, one node each: torus links of 1 GB/s, node links of 2 GB/s."""
    topo = Torus((8,), link_bandwidth_Bps=LINK_BW, link_latency_s=LINK_LAT, terminal_bandwidth_Bps=TERM_BW,
                 terminal_latency_s=TERM_LAT, router_delay_s=ROUTER)
    cfg = {"routing": "dor", "packet": {"header_B": HEADER_B, "max_payload_B": PAYLOAD_B},
           "nic_bandwidth_Bps": NIC_BW, "nic_latency_s": NIC_LAT, **network}
    net = PacketNetwork(topo, cfg)
    return net, net.simulation(comm=None)


def lone_packet_s(hops: int, size_B: int) -> float:
    """Store-and-forward: NIC, node link and router, per hop a torus link and router, the last node link, NIC."""
    return (2 * NIC_LAT + size_B / TERM_BW + TERM_LAT + ROUTER + hops * (size_B / LINK_BW + LINK_LAT + ROUTER)
            + size_B / TERM_BW + TERM_LAT)


@pytest.mark.parametrize("network", [{}, {"buffer_B": 4096}])
@pytest.mark.parametrize("classes", [1, 3])
def test_a_lone_packet_in_any_class_pays_serialization_links_and_routers(classes, network):
    net, sim = ring(traffic_classes=classes, **network)
    if classes > 1:
        net.set_node_classes([2] * 8)                   # the last class, on VCs of its own
    arrivals = []
    net.nic(sim, 3).host = lambda payload: arrivals.append(sim.now)
    net.nic(sim, 0).send_message(3, 40, "m")
    sim.run()
    assert arrivals == [pytest.approx(lone_packet_s(3, HEADER_B + 40), rel=1e-12)]


def saturate(net, sim, class0_load=1.0, class1_load=1.0):
    """Nodes 1 <-> 4 (class 0) and 0 <-> 3 (class 1) share the torus ports 1->2, 2->3 (and back), each at
    most 1 GB/s while a node injects up to 2 GB/s; returns the wire bytes each class delivered in the
    window after the warm-up."""
    stop = WARMUP_S + WINDOW_S
    if class0_load:
        TrafficGenerator(net, "bitcomp", class0_load, nodes=[1, 4], traffic_class=0, stop_s=stop).attach(net)
    if class1_load:
        TrafficGenerator(net, "bitcomp", class1_load, nodes=[0, 3], traffic_class=1, stop_s=stop).attach(net)
    sim.run(until_s=WARMUP_S)
    before = [c["bytes_delivered"] for c, _ in net.core.class_counters()]
    sim.run(until_s=stop)
    after = [c["bytes_delivered"] for c, _ in net.core.class_counters()]
    return [b - a for a, b in zip(before, after)]


#: Both directions' shared ports, each 1 GB/s, over the window: bytes.
CAPACITY_B = 2 * LINK_BW * WINDOW_S


@pytest.mark.parametrize("network", [{}, {"buffer_B": 4096}, {"buffer_B": 4096, "cut_through": True}])
@pytest.mark.parametrize("shares", [[0.25, 0.75], [0.5, 0.5], [0.9, 0.1]])
def test_saturated_classes_get_their_shares_of_the_port(shares, network):
    net, sim = ring(traffic_classes=2, class_shares=shares, **network)
    got = saturate(net, sim)
    assert sum(got) == pytest.approx(CAPACITY_B, rel=0.02)        # the ports stay busy
    for share, nbytes in zip(shares, got):
        assert nbytes / sum(got) == pytest.approx(share, abs=0.02)


@pytest.mark.parametrize("network", [{}, {"buffer_B": 4096}])
def test_an_idle_class_lends_its_share(network):
    net, sim = ring(traffic_classes=2, class_shares=[0.2, 0.8], **network)
    got = saturate(net, sim, class1_load=0.0)
    assert got[1] == 0 and got[0] == pytest.approx(CAPACITY_B, rel=0.02)


def test_strict_priority_serves_the_high_class_first_then_the_low_class_the_rest():
    """Class 1 (priority 1, the smaller share) asks 0.5 GB/s a direction: it gets as much as alone on the
    network; class 0 takes the rest of the ports' 1 GB/s."""
    settings = {"traffic_classes": 2, "class_shares": [0.9, 0.1], "class_priority": [0, 1], "buffer_B": 4096}
    net, sim = ring(**settings)
    high_alone = saturate(net, sim, class0_load=0.0, class1_load=0.25)[1]
    net, sim = ring(**settings)
    low, high = saturate(net, sim, class1_load=0.25)
    assert high == pytest.approx(high_alone, rel=0.02)
    assert low == pytest.approx(CAPACITY_B - high, rel=0.02)
    # without priority the same class 1 is held to its 10 % share
    net, sim = ring(**{**settings, "class_priority": None})
    assert saturate(net, sim, class1_load=0.25)[1] == pytest.approx(0.1 * CAPACITY_B, rel=0.05)


def test_every_packet_arrives_once_with_classes_at_saturation():
    net, sim = ring(traffic_classes=2, class_shares=[0.3, 0.7], class_priority=[1, 0], buffer_B=4096)
    for cls, nodes in enumerate(([0, 2, 4, 6], [1, 3, 5, 7])):
        TrafficGenerator(net, "ur", 1.0, nodes=nodes, traffic_class=cls, stop_s=20e-6).attach(net)
    sim.run()
    assert_conserved(net, sim)
    stats = net.merge_stats([net.stats(sim)])
    classes = stats["classes"]
    assert [c["class"] for c in classes] == [0, 1]
    assert sum(c["packets"] for c in classes) == stats["packets"]
    assert sum(c["bytes"] for c in classes) == stats["bytes"]
    assert sum(c["share"] for c in classes) == pytest.approx(1.0)
    for c in classes:
        assert 0 < c["latency_p50_s"] <= c["latency_p99_s"] <= c["max_latency_s"]


def test_one_class_reports_no_class_table():
    net, sim = ring(buffer_B=4096)
    TrafficGenerator(net, "ur", 0.5, stop_s=2e-6).attach(net)
    sim.run()
    assert "classes" not in net.merge_stats([net.stats(sim)])


@pytest.mark.parametrize("network, message", [
    ({"traffic_classes": 9}, "traffic_classes must be 1 to 8"),
    ({"traffic_classes": 2, "class_shares": [0.5]}, "list of 2 numbers"),
    ({"traffic_classes": 2, "class_shares": [0.5, 0.6]}, "sum to 1"),
    ({"traffic_classes": 2, "class_shares": [1.0, 0.0]}, "positive"),
    ({"traffic_classes": 2, "class_priority": [0, 0.5]}, "int numbers"),
    ({"class_share": [1.0]}, "unknown setting network.class_share"),
])
def test_bad_class_settings_are_one_line_errors(network, message):
    with pytest.raises(ConfigError, match=message):
        ring(**network)


def test_a_class_the_network_lacks_is_refused():
    net, _ = ring(traffic_classes=2)
    with pytest.raises(ConfigError, match="traffic class 2 does not exist"):
        TrafficGenerator(net, "ur", 0.5, traffic_class=2)
    with pytest.raises(ConfigError, match="class numbers in 0..1"):
        net.set_node_classes([0, 1, 2, 0, 0, 0, 0, 0])


def test_classes_replicate_the_routings_vcs_and_split_the_buffer():
    net, _ = ring(traffic_classes=3, buffer_B=6144)
    assert net.num_vcs == 3 * net.routing.num_vcs
    assert net.vc_capacity_B == 6144 // net.num_vcs


@pytest.mark.mpiexec
def test_a_job_mix_with_classes_over_two_processes_prints_the_serial_json(tmp_path):
    from test_jobs_parallel import SPREAD, run_both, same_bytes
    jobs = [{**SPREAD, "class": 1}, {"name": "bg", "kind": "traffic", "pattern": "ur", "load": 0.5, "ranks": 40}]
    serial, parallel = run_both(tmp_path, jobs, "--json", "--set", "network.traffic_classes=2",
                                "--set", "network.class_shares=[0.3,0.7]", "--set", "network.class_priority=[0,1]")
    assert serial.returncode == 0 and parallel.returncode == 0, serial.stderr + parallel.stderr
    assert same_bytes(parallel.stdout) == same_bytes(serial.stdout)
    out = json.loads(serial.stdout)
    assert [job["class"] for job in out["jobs"]] == [1, 0]
    classes = out["network"]["classes"]
    assert classes[0]["packets"] > 0 and classes[1]["packets"] > 0


@pytest.mark.parametrize("job_class, overrides, message", [
    (2, ["network.traffic_classes=2"], "in traffic class 2, but the network has 2 classes"),
    (1, [], "in traffic class 1, but the network has 1 class"),
    (-1, ["network.traffic_classes=2"], "class must not be negative"),
])
def test_a_job_in_a_class_the_network_lacks_is_refused(tmp_path, job_class, overrides, message):
    from test_jobs import EXCHANGE, machine, write
    from ppt.jobs.joblist import read_job_list
    from ppt.jobs.mix import JobMix
    (tmp_path / "exchange.py").write_text(EXCHANGE)
    jobs = write(tmp_path / "jobs.json", [{"kind": "script", "script": "exchange.py", "ranks": 4, "class": job_class}])
    with pytest.raises(ConfigError, match=message):
        JobMix(machine(overrides=overrides), read_job_list(str(jobs)))

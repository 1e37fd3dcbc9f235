"""Congestion control in the packet core (``network.congestion_control``: InfiniBand's and DCQCN):
idle it costs a lone packet nothing, at a hot spot it throttles the contributors so a victim flow
crossing the congestion tree recovers, every packet still arrives once, bad settings are one line, and
a job mix with classes and control on is the same under ``mpiexec -n 2``."""
import json

import numpy as np
import pytest

from ppt.errors import ConfigError
from ppt.interconnects.core import ffi, lib
from ppt.interconnects.networks.packetnet import PacketNetwork
from ppt.interconnects.topologies.torus import Torus
from ppt.drivers.traffic import TrafficGenerator
from network_checks import assert_conserved
from test_traffic_classes import HEADER_B, lone_packet_s, ring

IB = {"scheme": "ib"}
#: Marking every eligible packet and a slow timer: the control engages within the short runs here.
IB_FAST = {"scheme": "ib", "marking_rate": 1, "ccti_timer_s": 50e-6}
#: RED thresholds within the ring's shallow buffers (the paper's 5-200 KB never mark there).
DCQCN_FAST = {"scheme": "dcqcn", "kmin_B": 2e3, "kmax_B": 10e3, "pmax": 1.0}


@pytest.mark.parametrize("control", [IB, {"scheme": "dcqcn"}])
@pytest.mark.parametrize("network", [{}, {"buffer_B": 4096}, {"buffer_B": 4096, "traffic_classes": 2}])
def test_idle_control_leaves_a_lone_packets_latency_alone(network, control):
    net, sim = ring(congestion_control=control, **network)
    arrivals = []
    net.nic(sim, 3).host = lambda payload: arrivals.append(sim.now)
    net.nic(sim, 0).send_message(3, 40, "m")
    sim.run()
    assert arrivals == [pytest.approx(lone_packet_s(3, HEADER_B + 40), rel=1e-12)]
    assert net.counters()["fecn_marked"] == 0


def hot_ring(control):
    """A ring of 8 routers, 2 nodes each, links of 2 GB/s, node links of 1 GB/s: nodes 2-6 (routers 1-3)
    all send to node 8 (router 4) at full rate, whose 1 GB/s node link is the root of the congestion;
    the victim, node 0 to node 7 (router 0 to 3) at half rate, crosses the tree's links."""
    topo = Torus((8,), link_bandwidth_Bps=2e9, link_latency_s=50e-9, terminal_bandwidth_Bps=1e9,
                 nodes_per_router=2, terminal_latency_s=10e-9, router_delay_s=20e-9)
    cfg = {"routing": "dor", "packet": {"header_B": 16, "max_payload_B": 1024}, "nic_bandwidth_Bps": 4e9,
           "buffer_B": 8192}
    if control:
        cfg["congestion_control"] = control
    net = PacketNetwork(topo, cfg)
    return net, net.simulation(comm=None)


def ejected_B(net) -> np.ndarray:
    injected, ejected = np.zeros(net.num_nodes, np.int64), np.zeros(net.num_nodes, np.int64)
    lib.ppt_net_nic_bytes(net.core.c, ffi.cast("int64_t *", ffi.from_buffer(injected)),
                          ffi.cast("int64_t *", ffi.from_buffer(ejected)))
    return ejected


def victim_Bps(control, hot=True, start_s=300e-6, end_s=500e-6) -> float:
    net, sim = hot_ring(control)
    if hot:
        TrafficGenerator(net, "hotspot", 1.0, nodes=[8, 2, 3, 4, 5, 6], stop_s=end_s).attach(net)
    TrafficGenerator(net, "bitcomp", 0.5, nodes=[0, 7], stop_s=end_s).attach(net)
    sim.run(until_s=start_s)
    before = ejected_B(net)[7]
    sim.run(until_s=end_s)
    return (ejected_B(net)[7] - before) / (end_s - start_s)


@pytest.mark.parametrize("control", [IB_FAST, DCQCN_FAST])
def test_control_lets_a_victim_flow_through_a_hot_spots_congestion_tree(control):
    alone = victim_Bps(None, hot=False)
    assert alone == pytest.approx(0.5e9, rel=0.2)               # its offered half of a 1 GB/s node link (Poisson)
    blocked = victim_Bps(None)
    assert blocked < 0.2 * alone                                # tree saturation: the victim starves
    assert victim_Bps(control) > 3 * blocked                    # the contributors are throttled


@pytest.mark.parametrize("control", [IB_FAST, DCQCN_FAST])
def test_every_packet_arrives_once_under_control_at_a_hot_spot(control):
    net, sim = hot_ring(control)
    TrafficGenerator(net, "hotspot", 1.0, nodes=[8, 2, 3, 4, 5, 6], stop_s=100e-6).attach(net)
    TrafficGenerator(net, "ur", 1.0, nodes=[0, 1, 7, 9, 10, 11], stop_s=100e-6).attach(net)
    sim.run()
    assert_conserved(net, sim)
    counters = net.counters()
    assert counters["becn_received"] == counters["fecn_marked"] > 0        # one notification per mark
    assert counters["responses"] == counters["becn_received"]


@pytest.mark.parametrize("control, message", [
    ({"scheme": "ecn"}, "scheme 'ecn' is not known"),
    ({"scheme": "dcqcn", "marking_rate": 1}, "marking_rate"),
    ({"scheme": "dcqcn", "kmin_B": 3e5}, "kmin_B must be below kmax_B"),
    ({"scheme": "ib", "ccti_timer": 1e-6}, "ccti_timer"),
    ({"scheme": "ib", "marking_rate": 0}, "marking_rate must be positive"),
    ("ib", "must be a mapping with a scheme"),
])
def test_bad_control_settings_are_one_line_errors(control, message):
    with pytest.raises(ConfigError, match=message):
        ring(congestion_control=control)


@pytest.mark.mpiexec
@pytest.mark.parametrize("control", [{"scheme": "ib", "marking_rate": 1}, {"scheme": "dcqcn", "kmin_B": 2e3}])
def test_a_job_mix_with_classes_and_control_over_two_processes_prints_the_serial_json(tmp_path, control):
    from test_jobs_parallel import SPREAD, run_both, same_bytes
    jobs = [{**SPREAD, "class": 1}, {"name": "bg", "kind": "traffic", "pattern": "ur", "load": 0.9, "ranks": 40}]
    serial, parallel = run_both(tmp_path, jobs, "--json", "--set", "network.traffic_classes=2",
                                "--set", f"network.congestion_control={json.dumps(control)}")
    assert serial.returncode == 0 and parallel.returncode == 0, serial.stderr + parallel.stderr
    assert same_bytes(parallel.stdout) == same_bytes(serial.stdout)
    network = json.loads(serial.stdout)["network"]
    assert network["congestion_control"]["scheme"] == control["scheme"]
    assert network["congestion_control"]["becn_received"] > 0

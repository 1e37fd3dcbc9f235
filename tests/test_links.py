"""Links in reports: bytes per link class add up to what packets moved, utilization per class, and
the busiest links named by their class and both ends."""
import json

import pytest

from ppt.cli.main import main
from ppt.hardware.systems import load_system
from ppt.interconnects.networks.links import link_report, local_load
from ppt.interconnects.networks.packetnet import PacketNetwork
from ppt.interconnects.topologies.torus import Torus
from ppt.drivers.traffic import TrafficGenerator, run_traffic
from ppt.machine import Machine


def check_link(topology, link):
    """``link`` names a real link: its class is the port's, and its far end points back to it."""
    router, port = link["router"], link["port"]
    assert link["class"] == topology.link_classes[topology.port_class[router, port]].name
    if "to_router" in link:
        assert topology.port_peer[router, port] == link["to_router"]
        assert topology.port_peer[link["to_router"], link["to_port"]] == router
        assert topology.port_peer_port[link["to_router"], link["to_port"]] == port
    else:
        assert topology.port_peer[router, port] == -1 and topology.port_peer_port[router, port] == link["to_node"]


def test_class_bytes_are_every_packet_once_per_router_hop_and_once_on_its_ejection_link():
    topo = Torus((4, 4), link_bandwidth_Bps=1e9, link_latency_s=5e-8, router_delay_s=2e-8, dim_names=["x", "y"],
                 terminal_bandwidth_Bps=2e9, terminal_latency_s=1e-8)
    net = PacketNetwork(topo, {"routing": "dor", "packet": {"header_B": 16, "max_payload_B": 64},
                               "nic_bandwidth_Bps": 4e9})
    sim = net.simulation(comm=None)
    TrafficGenerator(net, "ur", 0.5, stop_s=2e-6).attach(net)
    sim.run()                                               # sources stop, the network drains
    counters = net.counters()
    assert counters["delivered"] == counters["injected"] > 100
    report = link_report([local_load(topo, net.core.port_bytes(), net.local_routers(sim))], sim.now)
    classes = report["link_classes"]
    assert set(classes) == {"x", "y", "node"}
    assert classes["x"]["links"] == classes["y"]["links"] == 32 and classes["node"]["links"] == 16
    assert classes["node"]["bytes"] == 80 * counters["delivered"]              # each packet ejected once
    assert classes["x"]["bytes"] + classes["y"]["bytes"] == 80 * counters["hops_sum"]
    assert sum(c["bytes"] for c in classes.values()) == net.core.link_summary()["bytes"]
    assert classes["x"]["utilization"] == pytest.approx(classes["x"]["bytes"] / (32 * 1e9 * sim.now))
    busiest = report["busiest_links"]
    assert len(busiest) == 5 and [b["busy_s"] for b in busiest] == sorted((b["busy_s"] for b in busiest),
                                                                          reverse=True)
    for link in busiest:
        check_link(topo, link)
        bandwidth = {c.name: c.bandwidth_Bps for c in topo.link_classes}[link["class"]]
        assert link["busy_s"] == pytest.approx(link["bytes"] / bandwidth)
        assert link["utilization"] >= max(c["utilization"] for c in classes.values())


def test_slim_fly_worst_case_fills_the_shared_middle_links_and_the_terminals_carry_the_accepted_load():
    machine = Machine(load_system("slimfly-3k"))
    result = run_traffic(machine, "wc", 0.5, "min", warmup_s=1e-6, time_s=3e-6, windows=6, comm=None)
    classes, top = result["link_classes"], result["busiest_links"][0]
    check_link(machine.topology, top)
    assert top["class"] == "network" and top["utilization"] == pytest.approx(1.0, abs=0.03)   # one packet of slack
    # every node's terminal link carries what the node accepted (terminals run at the injection rate)
    assert classes["terminal"]["utilization"] == pytest.approx(result["accepted_fraction"], rel=0.02)
    assert classes["terminal"]["links"] == 3042 and classes["network"]["links"] == 338 * 19


def test_run_reports_utilization_per_class_adding_up_to_the_link_bytes(capsys):
    assert main(["run", "examples/halo3d.py", "--system", "hopper", "--ranks", "64", "--json"]) == 0
    network = json.loads(capsys.readouterr().out)["network"]
    classes = network["link_classes"]
    assert set(classes) == {"X", "Y", "Z", "node"}                 # Gemini: one class per torus dimension
    assert sum(c["bytes"] for c in classes.values()) == network["link_bytes"]
    assert 0 < classes["node"]["utilization"] < 1
    check_link(Machine(load_system("hopper")).topology, network["busiest_links"][0])

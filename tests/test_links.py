"""Links in reports: bytes on links add up to what packets moved, and the busiest link is named
by its class and both ends."""
import pytest

from ppt.hardware.systems import load_system
from ppt.interconnects.packetnet import PacketNetwork
from ppt.interconnects.torus import Torus
from ppt.interconnects.traffic import TrafficGenerator, run_traffic
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


def test_link_bytes_are_every_packet_once_per_router_hop_and_once_on_its_ejection_link():
    topo = Torus((4, 4), link_bandwidth_Bps=1e9, link_latency_s=5e-8, router_delay_s=2e-8, dim_names=["x", "y"],
                 terminal_bandwidth_Bps=2e9, terminal_latency_s=1e-8)
    net = PacketNetwork(topo, {"routing": "dor", "packet": {"header_B": 16, "max_payload_B": 64},
                               "nic_bandwidth_Bps": 4e9})
    sim = net.simulation(comm=None)
    TrafficGenerator(net, "ur", 0.5, stop_s=2e-6).attach(net)
    sim.run()                                               # sources stop, the network drains
    counters, links = net.counters(), net.core.link_summary()
    assert counters["delivered"] == counters["injected"] > 100
    assert links["bytes"] == 80 * (counters["hops_sum"] + counters["delivered"])
    check_link(topo, links["busiest"])
    bandwidth = {c.name: c.bandwidth_Bps for c in topo.link_classes}[links["busiest"]["class"]]
    assert links["busiest"]["busy_s"] == pytest.approx(links["busiest"]["bytes"] / bandwidth)


def test_traffic_names_the_saturated_middle_link_of_slim_fly_worst_case():
    machine = Machine(load_system("slimfly-3k"))
    result = run_traffic(machine, "wc", 0.5, "min", warmup_s=1e-6, time_s=3e-6, windows=6, comm=None)
    link = result["busiest_link"]
    check_link(machine.topology, link)
    assert link["class"] == "network" and link["utilization"] > 0.8   # two router pairs share it, at full rate
    assert 0 < result["links_used"] and link["bytes"] < result["link_bytes"]


def test_run_reports_the_busiest_link_with_its_class_and_ends(capsys):
    import json

    from ppt.cli.main import main
    assert main(["run", "examples/halo3d.py", "--system", "hopper", "--ranks", "64", "--json"]) == 0
    network = json.loads(capsys.readouterr().out)["network"]
    check_link(Machine(load_system("hopper")).topology, network["busiest_link"])

"""Multi-plane, multi-rail networks: the planes' structure, closed-form timing on either plane, rail
policies (per message and per packet), conservation under saturation, planes without a legal path, and bad input."""
import numpy as np
import pytest

from ppt.cli.main import main
from ppt.errors import ConfigError
from ppt.interconnects.core import ffi, lib
from ppt.interconnects.networks.packetnet import PacketNetwork
from ppt.interconnects.topologies.planes import Planes
from ppt.interconnects.topologies.torus import Torus
from ppt.drivers.traffic import TrafficGenerator
from network_checks import assert_conserved
from test_network import LINK_BW, LINK_LAT, NIC_BW, NIC_LAT, ROUTER, TERM_BW, TERM_LAT

HEADER_B, PAYLOAD_B = 16, 64


def ring(size=8, dims=None):
    return Torus(dims or (size,), link_bandwidth_Bps=LINK_BW, link_latency_s=LINK_LAT,
                 terminal_bandwidth_Bps=TERM_BW, terminal_latency_s=TERM_LAT, router_delay_s=ROUTER)


def planes_network(planes=2, buffer_B=None, node_planes=None, dims=None, **network):
    """A packet network of ``planes`` planes of an 8-router ring (one node per router), built serially."""
    cfg = {"routing": "dor", "packet": {"header_B": HEADER_B, "max_payload_B": PAYLOAD_B},
           "nic_bandwidth_Bps": NIC_BW, "nic_latency_s": NIC_LAT, "planes": planes, **network}
    if buffer_B:
        cfg["buffer_B"] = buffer_B
    net = PacketNetwork(ring(dims=dims), cfg)
    if node_planes is not None:
        net.set_node_planes(node_planes)
    return net, net.simulation(comm=None)


def run_messages(net, sim, sends):
    """Send ``(src, dst, nbytes)`` messages at time 0; the time each is delivered, in order."""
    arrivals = {}
    for node in {dst for _, dst, _ in sends}:
        net.nic(sim, node).host = lambda payload: arrivals.setdefault(payload, sim.now)
    for k, (src, dst, nbytes) in enumerate(sends):
        net.nic(sim, src).send_message(dst, nbytes, k)
    sim.run()
    assert sorted(arrivals) == list(range(len(sends)))
    return [arrivals[k] for k in range(len(sends))]


def plane_bytes(net, sim):
    return [plane["bytes"] for plane in net.merge_stats([net.stats(sim)])["planes"]]


def test_dual_plane_structure_copies_routers_and_links_and_gives_every_node_a_rail_per_plane():
    base = ring()
    fabric = Planes(base, 2)
    assert fabric.num_routers == 2 * base.num_routers and fabric.num_nodes == base.num_nodes
    assert fabric.num_links() == 2 * base.num_links() and fabric.radix == base.radix
    assert fabric.summary()["planes"] == 2 and fabric.diameter() == base.diameter()
    plane = fabric.router_plane()
    links = fabric.port_peer >= 0
    routers = np.repeat(np.arange(fabric.num_routers)[:, None], fabric.radix, axis=1)
    assert np.all(plane[fabric.port_peer[links]] == plane[routers[links]])     # planes are independent
    assert np.array_equal(fabric.port_peer[links] // 2, np.repeat(base.port_peer, 2, axis=0)[links])
    for node in range(base.num_nodes):
        for k in range(2):
            router = fabric.node_router[node] + k
            assert router // 2 == base.node_router[node] and plane[router] == k
            port = fabric.node_port[node]
            assert fabric.port_peer[router, port] == -1 and fabric.port_peer_port[router, port] == node


@pytest.mark.parametrize("plane", [0, 1])
@pytest.mark.parametrize("dst, hops", [(1, 1), (3, 3), (6, 2)])
def test_lone_packet_latency_is_the_same_closed_form_on_either_plane(plane, dst, hops):
    net, sim = planes_network(rail_policy="dedicated", node_planes=[plane] * 8)
    size = HEADER_B + 40
    expected = (NIC_LAT + size / TERM_BW + TERM_LAT + ROUTER + hops * (size / LINK_BW + LINK_LAT + ROUTER)
                + size / TERM_BW + TERM_LAT + NIC_LAT)
    assert run_messages(net, sim, [(0, dst, 40)]) == [pytest.approx(expected, rel=1e-12)]
    sent = plane_bytes(net, sim)
    assert sent[plane] == (hops + 1) * size and sent[1 - plane] == 0


@pytest.mark.parametrize("buffer_B", [None, 4096])
@pytest.mark.parametrize("unit", ["packet", "message"])
def test_two_large_messages_over_two_round_robin_planes_take_half_the_time_of_one(buffer_B, unit):
    nbytes = 1 << 18
    wire_s = 2 * (nbytes // PAYLOAD_B) * (HEADER_B + PAYLOAD_B) / LINK_BW    # both messages on one ring link
    sends = [(0, 3, nbytes), (0, 3, nbytes)]
    one = max(run_messages(*planes_network(planes=1, buffer_B=buffer_B), sends))
    net, sim = planes_network(buffer_B=buffer_B, rail_policy="round-robin", rail_unit=unit)
    two = max(run_messages(net, sim, sends))
    assert one == pytest.approx(wire_s, rel=0.01) and two == pytest.approx(wire_s / 2, rel=0.01)
    assert plane_bytes(net, sim)[0] == plane_bytes(net, sim)[1]


@pytest.mark.parametrize("policy", ["random", "round-robin", "congestion"])
def test_per_message_policies_send_each_message_over_one_rail(policy):
    net, sim = planes_network(buffer_B=4096, rail_policy=policy, rail_unit="message")
    run_messages(net, sim, [(0, 1, 5000)])
    sent = plane_bytes(net, sim)
    assert sorted(sent) == [0, 2 * net.packetizer.wire_bytes(5000)]     # one hop and the terminal link


@pytest.mark.parametrize("buffer_B", [None, 4096])
def test_congestion_picks_the_rail_with_the_shorter_queue(buffer_B):
    """A big message takes rail 0 (both idle), a smaller one rail 1; a third goes behind the smaller,
    where round-robin would put it behind the big one."""
    sizes = [64000, 16000, 640]
    net, sim = planes_network(buffer_B=buffer_B, rail_policy="congestion", rail_unit="message")
    run_messages(net, sim, [(0, 1, n) for n in sizes])
    wire = [2 * net.packetizer.wire_bytes(n) for n in sizes]
    assert plane_bytes(net, sim) == [wire[0], wire[1] + wire[2]]


def test_dedicated_planes_keep_each_node_on_its_plane():
    net, sim = planes_network(rail_policy="dedicated", node_planes=[0, 1] * 4)
    run_messages(net, sim, [(1, 2, 4000), (3, 4, 4000)])
    assert plane_bytes(net, sim)[0] == 0


@pytest.mark.parametrize("policy", ["random", "round-robin", "congestion"])
def test_saturated_planes_conserve_packets_with_two_packet_buffers(policy):
    net, sim = planes_network(dims=(4, 4), buffer_B=2 * 2 * 80, rail_policy=policy, packet={
        "header_B": HEADER_B, "max_payload_B": PAYLOAD_B, "response_B": 16})
    TrafficGenerator(net, "ur", 1.0, stop_s=3e-6).attach(net)
    sim.run()
    assert_conserved(net, sim)
    assert net.counters()["responses"] > 0 and min(plane_bytes(net, sim)) > 0


@pytest.mark.parametrize("policy", ["random", "round-robin", "congestion", "dedicated"])
def test_injection_picks_a_plane_with_a_legal_path(policy):
    net, sim = planes_network(buffer_B=4096, rail_policy=policy)
    routers = net.topo.num_routers // 2
    hops = np.ones((routers, routers, 2), dtype=np.uint8)
    hops[:, :, 0] = lib.PPT_PLANE_NONE                              # plane 0 serves no router pair
    lib.ppt_net_set_plane_hops(net.core.c, ffi.cast("uint8_t *", ffi.from_buffer(hops)))
    run_messages(net, sim, [(0, 3, 4000), (0, 5, 4000), (2, 1, 300)])
    sent = plane_bytes(net, sim)
    assert sent[0] == 0 and sent[1] > 0


def test_node_planes_must_name_planes():
    net = PacketNetwork(ring(), {"routing": "dor", "packet": {"header_B": HEADER_B, "max_payload_B": PAYLOAD_B},
                                 "nic_bandwidth_Bps": NIC_BW, "planes": 2})
    with pytest.raises(ConfigError, match="plane numbers in 0..1"):
        net.set_node_planes([2] * 8)


@pytest.mark.parametrize("setting, message", [
    ("network.planes=0", "network.planes must be at least 1, got 0"),
    ("network.rail_policy=fastest", "network.rail_policy 'fastest' is not one of: random, round-robin"),
    ("network.rail_unit=flit", "network.rail_unit 'flit' is not one of: message, packet"),
])
def test_bad_plane_settings_give_one_line_error(capsys, setting, message):
    assert main(["traffic", "darter", "--load", "0.5", "--set", setting]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("kind", ["flow", "analytic"])
def test_networks_without_planes_refuse_them_rather_than_run_one(capsys, kind):
    assert main(["pingpong", "darter", "--sizes", "8", "--network", kind, "--set", "network.planes=2"]) == 2
    err = capsys.readouterr().err
    assert "only the packet network models several planes" in err and err.count("\n") == 1


def failed_dragonfly(share=0.2, seed=4):
    from ppt.interconnects.topologies.dragonfly import DragonflyTopology
    from ppt.interconnects.topologies.failures import FailureSpec, apply_failures
    from ppt.interconnects.topologies.topology import LinkClass
    link = LinkClass("link", 1e9, 1e-7)
    intact = DragonflyTopology(2, 4, 2, 9, link, link, link, 0.0)
    return intact, apply_failures(intact, FailureSpec(share, "local", seed))


def test_each_plane_draws_its_own_failure_map_of_the_same_share():
    intact, failed = failed_dragonfly()
    fabric = Planes(failed, 2)
    zero, one = (t.failed_links for t in fabric.plane_topologies)
    assert np.array_equal(zero, failed.failed_links) and len(one) == len(zero)
    assert {tuple(x) for x in zero} != {tuple(x) for x in one}
    assert np.array_equal(Planes(failed, 2).plane_topologies[1].failed_links, one)       # deterministic
    for plane, topo in enumerate(fabric.plane_topologies):                                # and in the fabric
        r, p = topo.failed_links[:, 0], topo.failed_links[:, 1]
        assert (fabric.port_peer[r * 2 + plane, p] == -1).all() and (intact.port_peer[r, p] >= 0).all()


@pytest.mark.parametrize("routing", ["ugal", "val"])
def test_planes_with_their_own_failures_route_on_their_own_surviving_links(routing):
    """Plane 1 routes, and prepares its packets (VAL picks a legal intermediate there), with its own
    tables: had it used plane 0's, packets would head for links that plane 1 lost."""
    def routable(failed):
        return all(not len(t.unroutable_pairs(t.routings[routing])) for t in Planes(failed, 2).plane_topologies)
    failed = next(f for f in (failed_dragonfly(0.1, seed)[1] for seed in range(50)) if routable(f))
    cfg = {"routing": routing, "packet": {"header_B": 16, "max_payload_B": 64}, "nic_bandwidth_Bps": 1e9,
           "vc_buffer_B": 2 * 80, "planes": 2, "rail_policy": "random"}
    net = PacketNetwork(failed, cfg, seed=3)
    sim = net.simulation(comm=None)
    TrafficGenerator(net, "ur", 1.0, stop_s=3e-6).attach(net)
    sim.run()
    assert_conserved(net, sim)
    assert min(plane_bytes(net, sim)) > 0
    unused = net.topo.port_class.ravel() < 0                 # failed (or absent) links of either plane
    assert not net.core.port_bytes()[unused].any()


def test_the_network_estimate_of_a_multi_plane_preset_counts_one_planes_hops():
    """--network auto estimates the packet network's traffic from route hops; with several planes (copies of
    one topology) those are one plane's, where building the estimate's contention-free network used to refuse
    the planes."""
    from ppt.drivers.autochoice import Estimator
    from ppt.hardware.systems import load_system
    from ppt.machine import Machine
    many = Machine(load_system("dgx-a100"), seed=0)
    one = Machine(load_system("dgx-a100", ["network.planes=1"]), seed=0)
    assert many.network_settings.rails.planes == 8
    nodes = range(0, many.topology.num_nodes, 7)
    assert [Estimator(many, []).hops(0, n) for n in nodes] == [Estimator(one, []).hops(0, n) for n in nodes]
    assert max(Estimator(many, []).hops(0, n) for n in nodes) > 0

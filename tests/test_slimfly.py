"""Slim Fly (MMS graphs): structure, MIN/VAL/UGAL routing, worst-case permutation."""
from collections import Counter

import numpy as np
import pytest

from ppt.errors import ConfigError
from ppt.hardware.systems import load_system
from ppt.interconnects.topologies.registry import build_topology
from ppt.interconnects.topologies.slimfly import SlimFly
from ppt.interconnects.topologies.topology import channels
from ugal_checks import bias_decisions


def slimfly(q, p=1, **kw):
    return SlimFly(q, p, link_bandwidth_Bps=12.5e9, link_latency_s=5e-8, router_delay_s=1e-7, **kw)


def adjacency(t):
    a = np.zeros((t.num_routers, t.num_routers), dtype=np.float32)
    rows, ports = np.nonzero(t.port_peer >= 0)
    a[rows, t.port_peer[rows, ports]] = 1
    return a


def trace(t, routing, src, dst, uid=0, occupancy=None):
    """[(router, port, vc)] of one packet; ``occupancy(router)`` gives the queue view (idle if None)."""
    return channels(t, routing, src, dst, uid, occupancy=occupancy and (lambda hops, router: occupancy(router)),
                    max_hops=8)


def network_hops(hops):
    return hops[:-1]      # the last entry is the ejection to the destination node


# q = 4w + d: d = -1 (3, 7, 11, 27), 0 (4, 8, 16, 32), +1 (5, 9, 13, 25); 9, 25, 27, 4, 8, 16, 32 are prime powers
@pytest.mark.parametrize("q", [3, 4, 5, 7, 8, 9, 11, 13, 16, 25, 27, 32])
def test_mms_graph_has_2q2_routers_degree_3q_minus_d_over_2_and_diameter_2(q):
    t = slimfly(q)
    d = {1: 1, 3: -1, 0: 0}[q % 4]
    assert t.delta == d
    assert t.num_routers == 2 * q * q
    assert (t.network_degree() == (3 * q - d) // 2).all()
    rows, ports = np.nonzero(t.port_peer >= 0)
    peers = t.port_peer[rows, ports]
    assert (t.port_peer[peers, t.port_peer_port[rows, ports]] == rows).all()     # links are symmetric
    assert (peers != rows).all()
    a = adjacency(t)
    assert a.sum() == t.num_routers * (3 * q - d) // 2                            # no parallel links
    reach = np.eye(t.num_routers, dtype=np.float32) + a + a @ a
    assert (reach > 0).all()                                                      # diameter <= 2
    assert not (np.eye(t.num_routers, dtype=np.float32) + a > 0).all()              # diameter > 1


def test_generator_sets_match_published_configurations():
    # CODES slim fly model, tested configurations built from the paper's sets (xi = 2)
    assert (set(slimfly(5).field.X), set(slimfly(5).field.Xp)) == ({1, 4}, {2, 3})
    f = slimfly(13).field
    assert (set(f.X), set(f.Xp)) == ({1, 10, 9, 12, 3, 4}, {6, 8, 2, 7, 5, 11})


@pytest.mark.parametrize("q", [1, 2, 6, 10, 12, 15])
def test_q_without_an_mms_graph_is_rejected(q):
    with pytest.raises(ConfigError, match="topology.q"):
        slimfly(q)


def test_p_beyond_the_router_radix_is_rejected():
    slimfly(13, 9, router_radix=28)                     # k' = 19, 9 + 19 = 28 fits
    with pytest.raises(ConfigError, match="router_radix"):
        slimfly(13, 10, router_radix=28)


@pytest.mark.parametrize("q", [4, 5, 7, 9])
def test_min_paths_are_shortest_and_use_vc_equal_to_hop_index(q):
    t = slimfly(q)
    r = t.routing("min")
    assert r.num_vcs == 2
    a = adjacency(t)
    for src in range(t.num_nodes):
        for dst in range(t.num_nodes):
            hops = network_hops(trace(t, r, src, dst))
            s, d = src, dst                           # p = 1: node id = router id
            expect = 0 if s == d else (1 if a[s, d] else 2)
            assert len(hops) == expect
            assert [vc for _, _, vc in hops] == list(range(len(hops)))


@pytest.mark.parametrize("q", [5, 8])
def test_valiant_paths_pass_the_intermediate_within_four_hops(q):
    t = slimfly(q, p=2)
    r = t.routing("val")
    assert r.num_vcs == 4
    lengths = Counter()
    for uid in range(3000):
        src, dst = (uid * 7919) % t.num_nodes, (uid * 104729 + 13) % t.num_nodes
        pkt = r.packet(uid, src, dst, 256)
        mid = pkt.route[0]
        hops = trace(t, r, src, dst, uid=uid)
        routers = [h[0] for h in hops]
        assert mid in routers
        assert len(hops) - 1 <= 4
        assert [vc for _, _, vc in network_hops(hops)] == list(range(len(hops) - 1))
        lengths[len(hops) - 1] += 1
    assert lengths[4] > lengths[2]           # most Valiant paths are non-minimal


def test_ugal_is_minimal_on_an_idle_network_and_detours_around_a_busy_port():
    t = slimfly(7, p=2)
    ugal, mn = t.routing("ugal"), t.routing("min")
    assert ugal.num_vcs == 4 and ugal.c_sf == 1.0
    src, dst = 0, t.num_nodes - 1
    minimal = trace(t, mn, src, dst)
    assert trace(t, ugal, src, dst) == minimal
    busy_port = minimal[0][1]

    def busy(router):
        occ = [0] * t.radix
        if router == t.node_router[src]:
            occ[busy_port] = 10_000
        return occ

    detours = 0
    for uid in range(50):
        hops = trace(t, ugal, src, dst, uid=uid, occupancy=busy)
        assert len(hops) - 1 <= 4
        assert [vc for _, _, vc in network_hops(hops)] == list(range(len(hops) - 1))
        detours += hops[0][1] != busy_port
    assert detours >= 40                     # each of 3 random candidates avoids the busy port
    stubborn = t.routing("ugal", c_sf=1e9)   # Valiant cost scaled away: always minimal
    assert stubborn.c_sf == 1e9
    assert all(trace(t, stubborn, src, dst, uid=u, occupancy=lambda r: [1] * t.radix) == minimal
               for u in range(20))


def test_ugal_leaves_min_only_when_its_queue_exceeds_the_bias():
    """Three packets on the minimal first port (the candidates' ports idle) keep every packet
    minimal; one byte more sends it through a Valiant router unless every candidate shares the port."""
    t = slimfly(7, p=2)
    ugal, mn = t.routing("ugal"), t.routing("min")
    pairs = np.random.default_rng(3).integers(0, t.num_nodes, size=(200, 2))
    tried, diverted = bias_decisions(t, ugal, mn, pairs, 256, lambda r, d: r == d)
    assert tried > 150 and diverted > 0.9 * tried


def test_ugal_is_about_as_fast_as_min_under_uniform_traffic_and_beats_it_under_worst_case():
    from ppt.drivers.traffic import run_traffic
    from ppt.machine import Machine
    machine = Machine(load_system("slimfly-3k", ["topology.q=5", "topology.p=3"]))
    ur = {r: run_traffic(machine, "ur", 0.7, r, warmup_s=3e-6, time_s=5e-6, comm=None) for r in ("min", "ugal")}
    assert ur["ugal"]["mean_latency_s"] < 1.3 * ur["min"]["mean_latency_s"]
    wc = {r: run_traffic(machine, "wc", 0.9, r, warmup_s=3e-6, time_s=5e-6, comm=None)["accepted_fraction"]
          for r in ("min", "val", "ugal")}
    assert wc["ugal"] >= wc["val"] - 0.005 and wc["ugal"] > wc["min"]


@pytest.mark.parametrize("q", [4, 5, 7, 9])
def test_worst_case_permutation_loads_every_used_link_with_two_router_pairs(q):
    t = slimfly(q, p=3)
    dest = [t.worst_case_destination(n) for n in range(t.num_nodes)]
    assert sorted(dest) == list(range(t.num_nodes))                     # a permutation
    assert all(d % t.p == n % t.p for n, d in enumerate(dest))
    r = t.routing("min")
    links = Counter()
    for router in range(t.num_routers):
        node = router * t.p
        target = dest[node] // t.p
        assert t.distance(router, target) == 2
        for hop_router, port, _ in network_hops(trace(t, r, node, dest[node])):
            links[hop_router, port] += 1
    assert set(links.values()) == {2}
    assert len(links) == t.num_routers


def test_large_q_routes_in_closed_form():
    t = slimfly(163)
    r = t.routing("min")
    rng = np.random.default_rng(1)
    for src, dst in rng.integers(0, t.num_nodes, size=(300, 2)):
        hops = network_hops(trace(t, r, int(src), int(dst)))
        assert len(hops) == t.distance(int(src), int(dst)) <= 2


@pytest.mark.parametrize("name, nodes, routers, radix", [
    ("slimfly-3k", 3042, 338, 28),
    ("slimfly-74k", 73926, 2738, 82),
])
def test_presets_have_the_published_sizes(name, nodes, routers, radix):
    cfg = load_system(name)
    t = build_topology(cfg["topology"])
    assert (t.num_nodes, t.num_routers, t.radix) == (nodes, routers, radix)
    assert cfg["network"]["routing"] in t.routings


def test_missing_field_is_named():
    with pytest.raises(ConfigError, match="'p'"):
        build_topology({"kind": "slimfly", "q": 5, "link_bandwidth_Bps": 1e9, "link_latency_s": 1e-8})


def test_worst_case_sources_keep_their_table_after_set_up():
    # the sources read the worst-case table from arrays Python made; once set up, reusing freed
    # memory must not change where packets go (it once pointed them at garbage, or crashed)
    from ppt.interconnects.networks.packetnet import PacketNetwork
    from ppt.drivers.traffic import TrafficGenerator
    preset = load_system("slimfly-3k")
    topo = build_topology(preset["topology"])
    net = PacketNetwork(topo, preset["network"])
    sim = net.simulation(comm=None)
    TrafficGenerator(net, "wc", 0.05).attach(net)
    first, count = topo.worst_case_table()
    clobber = [np.full_like(first, -7) for _ in range(64)] + [np.zeros_like(count) for _ in range(64)]
    sim.run(until_s=2e-6)
    del clobber
    stats = net.counters()
    assert stats["delivered"] > 0 and stats["hops_sum"] <= 3 * stats["delivered"]

"""Megafly (Dragonfly+): leaf-spine wiring, sizes, routing bounds, VC invariants, timing and bad input."""
import json
import random

import numpy as np
import pytest

from ppt.cli.main import main
from ppt.errors import ConfigError
from ppt.interconnects.topologies.megafly import MegaflyTopology
from ppt.interconnects.networks.packetnet import PacketNetwork
from ppt.interconnects.topologies.registry import build_topology
from ppt.interconnects.topologies.topology import LinkClass, Topology, channels, walk
from network_checks import assert_conserved
from ppt.drivers.traffic import TrafficGenerator
from test_dragonfly import SYSTEMS, groups_visited, preset, random_pairs, trace

LOCAL, GLOBAL, NODE = LinkClass("local", 2e9, 20e-9), LinkClass("global", 1e9, 150e-9), LinkClass("node", 4e9, 5e-9)
ROUTER_S, NIC_BW, NIC_S = 30e-9, 8e9, 70e-9
ROUTINGS = {"min": 2, "val": 3, "ugal": 3, "par": 4}          # VC phases of the dragonfly's scheme


def megafly(leaves=3, spines=2, p=2, h=3, groups=4, **kw):
    return MegaflyTopology(leaves, spines, p, h, groups, LOCAL, GLOBAL, NODE, ROUTER_S, **kw)


@pytest.fixture(scope="module")
def mf3k():
    return preset("megafly-3k")


SMALL = [lambda: megafly(), lambda: megafly(2, 3, 3, 2, 7), lambda: megafly(4, 4, 2, 3, 5, arrangement="palmtree"),
         lambda: megafly(num_nodes=17)]


# -- structure ---------------------------------------------------------------

def test_published_presets_have_their_sizes(mf3k):
    """The CODES generator outputs: Megafly 10 x (18 + 18) routers, 18 nodes per leaf; 1D dragonfly
    19 x 18 routers, 9 nodes and 9 global links per router."""
    cfg = json.loads((SYSTEMS / "megafly-3k.json").read_text())["topology"]
    leaves, spines, p, h, g = (cfg[k] for k in ("leaves", "spines", "nodes_per_leaf", "global_per_spine", "groups"))
    assert (mf3k.num_routers, mf3k.num_nodes, mf3k.radix) == (360, 3240, 36)
    assert mf3k.radix == leaves + p == spines + h                  # leaf and spine both use every port
    assert mf3k.num_links() == g * leaves * spines + g * spines * h // 2
    assert mf3k.link_classes[0].bandwidth_Bps == 12.5 * 2**30
    assert mf3k.diameter() == Topology.diameter(mf3k) == 3          # every spine reaches every group
    dragonfly = preset("dragonfly-3k")
    assert (dragonfly.num_routers, dragonfly.num_nodes) == (342, 3078)
    assert dragonfly.radix <= 36 and dragonfly.diameter() == 3


@pytest.mark.parametrize("make", [*SMALL, lambda: preset("megafly-3k")])
def test_every_leaf_and_spine_port_reaches_its_peer(make):
    topo = make()
    leaves, spines, p, h = topo.leaves, topo.spines, topo.nodes_per_leaf, topo.global_per_spine
    a, g, lp = leaves + spines, topo.num_groups, max(leaves, spines)
    assert topo.routers_per_group == a and topo.radix == lp + max(p, h)
    for r in range(topo.num_routers):
        group, local = divmod(r, a)
        peer, peer_port, cls = topo.port_peer[r], topo.port_peer_port[r], topo.port_class[r]
        if local < leaves:                                          # leaf: every spine once, then nodes
            assert list(peer[:spines]) == list(group * a + leaves + np.arange(spines))
            assert (cls[:spines] == 0).all() and (peer[spines:] < 0).all()
            nodes = group * leaves * p + local * p + np.arange(p)
            present = nodes < topo.num_nodes
            assert list(peer_port[lp:lp + p][present]) == list(nodes[present])
            assert (cls[lp:lp + p] == np.where(present, 2, -1)).all()
            assert (cls[lp + p:] < 0).all() and (cls[spines:lp] < 0).all()
        else:                                                       # spine: every leaf once, then global
            assert list(peer[:leaves]) == list(group * a + np.arange(leaves))
            assert (cls[:leaves] == 0).all() and (peer[leaves:lp] < 0).all()
            far = peer[lp:lp + h]
            assert (far // a != group).all() and (far % a >= leaves).all() and (cls[lp:lp + h] == 1).all()
            assert (peer[lp + h:] < 0).all() and (cls[lp + h:] < 0).all()
    r, port = np.nonzero(topo.port_peer >= 0)
    q, qp = topo.port_peer[r, port], topo.port_peer_port[r, port]
    assert (topo.port_peer[q, qp] == r).all() and (topo.port_peer_port[q, qp] == port).all()
    between = np.zeros((g, g), dtype=int)
    glob = topo.port_class[r, port] == 1
    np.add.at(between, (r[glob] // a, q[glob] // a), 1)
    off = ~np.eye(g, dtype=bool)
    assert (between[off] == spines * h // (g - 1)).all()            # every group pair equally linked
    assert (topo.node_router // a * leaves * p + topo.node_router % a * p
            + topo.node_port - lp == np.arange(topo.num_nodes)).all()  # nodes fill leaves in order


def test_figures_and_patterns_follow_the_groups():
    topo = megafly(num_nodes=17)                                     # 4 groups of 6 nodes, the last one partial
    assert topo.diameter() == Topology.diameter(topo) and topo.local_diameter == 2
    assert (topo.router_groups() == np.arange(topo.num_routers) // 5).all()
    assert [c.name for c in topo.network_classes()] == ["local", "global"] and topo.terminal_class() is NODE
    first, count = topo.worst_case_table()
    group = np.arange(17) // 6
    assert (first == (group + 1) % 3 * 6).all() and (count == np.minimum(6, 17 - first)).all()


# -- routing -----------------------------------------------------------------

def hop_classes(topo, taken):
    """Per group visited, the local hops taken there; and the number of global hops."""
    local, globals_ = [0], 0
    for router, port, _ in taken[:-1]:
        if topo.port_class[router, port] == 1:
            globals_ += 1
            local.append(0)
        else:
            local[-1] += 1
    return local, globals_


def test_min_takes_shortest_paths_with_at_most_two_local_hops_per_group(mf3k):
    for topo in (mf3k, megafly(2, 3, 3, 2, 7)):
        routing = topo.routing("min", seed=3)
        distance = {}
        for uid, (s, d) in enumerate(random_pairs(topo, 1500)):
            src, dst = int(topo.node_router[s]), int(topo.node_router[d])
            if src not in distance:
                distance[src] = topo.hop_distances(src)
            taken = channels(topo, routing, s, d, uid)
            assert len(taken) - 1 == distance[src][dst]
            local, globals_ = hop_classes(topo, taken)
            assert globals_ <= 1 and max(local) <= 2 and len(groups_visited(topo, [c[0] for c in taken])) <= 2


@pytest.mark.parametrize("name", sorted(ROUTINGS))
def test_vcs_stay_in_range_and_rise_along_every_path(name, mf3k):
    rng = random.Random(name)

    def noisy(hop, radix):
        return [rng.randrange(3 * 4096) for _ in range(radix)]
    for topo in (mf3k, *(make() for make in SMALL)):
        routing = topo.routing(name, seed=5)
        assert routing.num_vcs == ROUTINGS[name] * topo.local_diameter == ROUTINGS[name] * 2
        for uid, (s, d) in enumerate(random_pairs(topo, 400, seed=len(name))):
            hops = trace(topo, routing, s, d, uid, noisy)
            ranks = [(vc, is_global) for _, _, vc, is_global in hops]
            assert all(x < y for x, y in zip(ranks, ranks[1:])), ranks
            local, globals_ = hop_classes(topo, channels(topo, topo.routing(name, seed=5), s, d, uid))
            assert max(local) <= 2 and globals_ <= (1 if name == "min" else 2)


def test_valiant_crosses_a_third_group_and_ugal_stays_minimal_when_idle(mf3k):
    val, ugal, minimal = (mf3k.routing(n, seed=9) for n in ("val", "ugal", "min"))
    middles = set()
    for uid, (s, d) in enumerate(random_pairs(mf3k, 600)):
        groups = groups_visited(mf3k, walk(mf3k, val, s, d, uid))
        if groups[0] != groups[-1]:
            assert len(groups) == 3
            middles.add(groups[1])
        assert walk(mf3k, ugal, s, d, uid) == walk(mf3k, minimal, s, d, uid)
    assert len(middles) == mf3k.num_groups


# -- packet network ------------------------------------------------------------

def network(topo, routing="min", **extra):
    cfg = {"routing": routing, "packet": {"header_B": 16, "max_payload_B": 64},
           "nic_bandwidth_Bps": NIC_BW, "nic_latency_s": NIC_S, **extra}
    net = PacketNetwork(topo, cfg)
    return net, net.simulation(comm=None)


@pytest.mark.parametrize("pair", ["same leaf", "same group", "other group"])
def test_lone_packet_latency_is_serialization_plus_link_and_router_delays(pair):
    topo = megafly()
    dst = {"same leaf": 1, "same group": 4, "other group": 13}[pair]
    net, sim = network(topo)
    arrivals = []
    net.nic(sim, dst).host = lambda payload: arrivals.append(sim.now)
    net.nic(sim, 0).send_message(dst, 40, "m")
    sim.run()
    size = 16 + 40
    taken = channels(topo, topo.routing("min"), 0, dst)
    classes = [topo.link_classes[topo.port_class[r, port]] for r, port, _ in taken[:-1]]
    expected = (NIC_S + size / NODE.bandwidth_Bps + NODE.latency_s + ROUTER_S
                + sum(size / c.bandwidth_Bps + c.latency_s + ROUTER_S for c in classes)
                + size / NODE.bandwidth_Bps + NODE.latency_s + NIC_S)
    assert arrivals == [pytest.approx(expected, rel=1e-12)]
    same_group = topo.node_router[0] // 5 == topo.node_router[dst] // 5
    assert [c.name for c in classes] == ([] if dst < 2 else ["local"] * 2 if same_group
                                         else ["local", "global", "local"])


@pytest.mark.parametrize("routing,pattern", [("min", "ur"), ("val", "ur"), ("ugal", "wc"), ("par", "wc")])
def test_saturating_load_conserves_packets_and_drains_without_deadlock(routing, pattern):
    net, sim = network(megafly(), routing, vc_buffer_B=2 * 80)      # two packets per VC
    TrafficGenerator(net, pattern, 1.0, stop_s=3e-6).attach(net)
    sim.run()
    assert_conserved(net, sim, least=500)


def test_ugal_beats_min_under_worst_case_traffic_within_its_bound():
    """WC (group i -> i+1) on 5 groups of 4 + 4 routers, 4 nodes per leaf, 2 global ports per spine,
    as fractions of a node's bandwidth: MIN is capped by the s*h/(g-1) direct links per group pair
    shared by the N nodes of a group; UGAL adds Valiant paths over the other s*h - direct global
    links (two global hops each), so it stays at most ((s*h - direct)/2 + direct)/N."""
    from ppt.hardware.systems import load_system
    from ppt.drivers.traffic import run_traffic
    from ppt.machine import Machine
    leaves, spines, p, h, g = 4, 4, 4, 2, 5
    sizes = dict(leaves=leaves, spines=spines, nodes_per_leaf=p, global_per_spine=h, groups=g)
    machine = Machine(load_system("megafly-3k", [f"topology.{k}={v}" for k, v in sizes.items()]))
    accepted = {r: run_traffic(machine, "wc", 0.6, r, warmup_s=3e-6, time_s=4e-6, comm=None)["accepted_fraction"]
                for r in ("min", "ugal")}
    direct, nodes = spines * h // (g - 1), leaves * p
    assert accepted["min"] == pytest.approx(direct / nodes, rel=0.05)
    assert 1.5 * accepted["min"] < accepted["ugal"] <= 1.01 * ((spines * h - direct) / 2 + direct) / nodes


# -- configuration errors -----------------------------------------------------

def test_bad_sizes_are_config_errors():
    with pytest.raises(ConfigError, match="limit of 7 groups"):
        megafly(groups=8)                                           # 2 spines x 3 global ports + 1
    with pytest.raises(ConfigError, match="num_nodes = 25 must be between 1 and groups\\*leaves\\*nodes_per_leaf = 24"):
        megafly(num_nodes=25)
    with pytest.raises(ConfigError, match="palmtree"):
        megafly(groups=5, arrangement="palmtree")                   # g-1 = 4 does not divide 6
    with pytest.raises(ConfigError, match="'spines'"):
        build_topology({"kind": "megafly", "leaves": 2, "nodes_per_leaf": 2, "global_per_spine": 2, "groups": 3})


@pytest.mark.parametrize("setting, message", [("topology.groups=400", "limit of 325 groups"),
                                              ("topology.spines=0", "topology.spines must be")])
def test_impossible_preset_sizes_give_a_one_line_error(capsys, setting, message):
    assert main(["topology", "megafly-3k", "--set", setting]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err

"""Dragonfly and Cray Aries topologies: wiring, sizes, routing bounds and VC invariants."""
import json
import random
import time
from pathlib import Path

import numpy as np
import pytest

from ppt.errors import ConfigError
from ppt.interconnects.topologies.aries import AriesTopology
from ppt.interconnects.topologies.dragonfly import DragonflyTopology
from ppt.interconnects.topologies.registry import build_topology
from ppt.interconnects.topologies.topology import LinkClass, Topology, channels, walk
from ugal_checks import bias_decisions

SYSTEMS = Path(__file__).resolve().parents[1] / "hardware" / "systems"
LINK = LinkClass("link", 1e9, 1e-7)


def preset(name):
    return build_topology(json.loads((SYSTEMS / f"{name}.json").read_text())["topology"])


@pytest.fixture(scope="module")
def booksim():
    return preset("dragonfly-booksim")


@pytest.fixture(scope="module")
def trinity():
    return preset("trinity")


@pytest.fixture(scope="module")
def darter():
    return preset("darter")


def dragonfly(p=2, a=4, h=2, g=9, arrangement="consecutive", **kw):
    return DragonflyTopology(p, a, h, g, LINK, LINK, LINK, 0.0, arrangement=arrangement, **kw)


def aries(groups, num_nodes=None):
    return AriesTopology(groups, LINK, LINK, LINK, LINK, 1e-7, num_nodes=num_nodes)


def trace(topo, routing, src, dst, uid, occupancy=lambda hop, radix: [0] * radix):
    """Hops of one packet as (router, port, vc, global?) with ``occupancy(hop, radix)`` at each router."""
    global_class = len(topo.link_classes) - 2          # classes: local..., global, node
    taken = channels(topo, routing, src, dst, uid, occupancy=lambda hops, router: occupancy(hops, topo.radix),
                     max_hops=16)
    return [(router, port, vc, int(topo.port_class[router, port]) == global_class)
            for router, port, vc in taken[:-1]]


def hot_port(at_hop, port):
    """Occupancy where only ``port`` of the router reached after ``at_hop`` hops is busy."""
    def occupancy(hop, radix):
        occ = [0] * radix
        if hop == at_hop:
            occ[port] = 10_000
        return occ
    return occupancy


def groups_visited(topo, routers):
    seen = []
    for r in routers:
        g = r // topo.routers_per_group
        if not seen or seen[-1] != g:
            seen.append(g)
    return seen


def random_pairs(topo, n, seed=1):
    rng = random.Random(seed)
    return [(rng.randrange(topo.num_nodes), rng.randrange(topo.num_nodes)) for _ in range(n)]


# -- sizes and wiring ---------------------------------------------------------

def test_booksim_dragonfly_sizes(booksim):
    p, a, h, g = 4, 8, 4, 33
    assert (booksim.num_routers, booksim.num_nodes) == (264, 1056)
    assert booksim.radix == p + a + h - 1 == 15
    assert booksim.num_links() == g * a * (a - 1) // 2 + g * a * h // 2
    assert (booksim.network_degree() == a - 1 + h).all()
    assert booksim.diameter() == 3


def test_trinity_sizes_and_fill(trinity):
    groups = 25
    assert trinity.num_routers == groups * 96 and trinity.num_nodes == 9436
    assert trinity.radix == 15 + 5 + 10 + 4                        # green, black, blue, node ports
    # green: C(16,2) per chassis; black: C(6,2) per blade slot; blue: every one of the 960 ports
    # of a group used, since 240 global links per group divide evenly among 24 peer groups
    assert trinity.num_links() == groups * (6 * 16 * 15 // 2 + 16 * 6 * 5 // 2) + groups * 960 // 2
    assert (trinity.node_router == np.arange(9436) // 4).all()
    populated = (trinity.port_class[:, 30:] >= 0).any(axis=1)
    assert populated.sum() == -(-9436 // 4) and not populated[-(2400 * 4 - 9436) // 4:].any()


def test_builds_are_fast():
    start = time.perf_counter()
    preset("trinity"), preset("aries-25g")
    big = aries(241)
    assert time.perf_counter() - start < 5.0
    assert big.num_routers == 241 * 96 and big.diameter() == 5


@pytest.mark.parametrize("make", [lambda: dragonfly(arrangement="consecutive"),
                                  lambda: dragonfly(arrangement="palmtree"),
                                  lambda: dragonfly(g=5), lambda: aries(3), lambda: aries(2, 700)])
def test_wiring_is_symmetric_and_every_group_pair_linked(make):
    topo = make()
    r, p = np.nonzero(topo.port_peer >= 0)
    q, qp = topo.port_peer[r, p], topo.port_peer_port[r, p]
    assert (topo.port_peer[q, qp] == r).all() and (topo.port_peer_port[q, qp] == p).all()
    assert (topo.port_class[q, qp] == topo.port_class[r, p]).all()
    a, g = topo.routers_per_group, topo.num_groups
    between = np.zeros((g, g), dtype=int)
    np.add.at(between, (r // a, q // a), 1)
    off = ~np.eye(g, dtype=bool)
    assert (between[off] > 0).all() and (between[off] == between[off][0]).all()


def test_consecutive_and_palmtree_follow_their_definitions():
    p, a, h, g = 2, 4, 2, 9
    for arrangement in ("consecutive", "palmtree"):
        topo = dragonfly(p, a, h, g, arrangement)
        for i in range(g):
            for r in range(a):
                for k in range(h):
                    j = r * h + k
                    peer = int(topo.port_peer[i * a + r, a - 1 + k])
                    if arrangement == "consecutive":     # Kim et al.: j-th other group in order
                        assert peer // a == (j if j < i else j + 1)
                    else:                                # Camarero et al. 2014 palm tree
                        assert peer // a == (i - j - 1) % g
                        assert peer % a == a - 1 - r
                        assert int(topo.port_peer_port[i * a + r, a - 1 + k]) == a - 1 + h - 1 - k


def test_aries_port_budget_and_local_wiring(trinity):
    assert AriesTopology.port_tiles.sum() == 48                    # 15 + 5*3 + 10 + 4*2
    assert trinity.tiles_in_use().max() <= 48
    assert (trinity.tiles_in_use()[:2000] == 48).all()             # full routers use every tile
    r = np.arange(trinity.num_routers)
    green, black = trinity.port_peer[:, :15], trinity.port_peer[:, 15:20]
    assert (green // 16 == (r // 16)[:, None]).all()                 # same chassis, every other blade
    assert (np.sort(np.hstack([green % 16, (r % 16)[:, None]]), axis=1) == np.arange(16)).all()
    assert (black % 16 == (r % 16)[:, None]).all()                   # same blade slot ...
    assert (black // 96 == (r // 96)[:, None]).all()                 # ... of every other chassis
    assert (np.sort(np.hstack([black // 16 % 6, (r // 16 % 6)[:, None]]), axis=1) == np.arange(6)).all()
    blue = trinity.port_peer[:, 20:30] // 96
    slots = blue.reshape(25, 960 // 4, 4)                          # 4 blue ports per global link
    assert (slots == slots[:, :, :1]).all()
    black_class = trinity.link_classes[1]
    assert black_class.bandwidth_Bps == pytest.approx(3 * 5.25e9)


def test_diameter_closed_form_matches_bfs():
    small = (aries(3), aries(2, 100), dragonfly(g=2), dragonfly(g=5, arrangement="palmtree"), dragonfly())
    for topo in small:
        assert topo.diameter() == Topology.diameter(topo)


# -- routing --------------------------------------------------------------------

def test_min_paths_respect_hop_bounds(booksim, trinity):
    for topo, routing in ((booksim, booksim.routing("min")), (trinity, trinity.routing("min"))):
        a = topo.routers_per_group
        longest = {True: 0, False: 0}
        for uid, (s, d) in enumerate(random_pairs(topo, 3000)):
            path = walk(topo, routing, s, d, uid)
            same = path[0] // a == path[-1] // a
            longest[same] = max(longest[same], len(path) - 1)
            assert len(groups_visited(topo, path)) <= 2
        if topo is booksim:
            assert longest[False] == 3 and longest[True] == 1
        else:
            assert longest[True] == 2 and longest[False] == 5


def test_valiant_visits_a_random_intermediate_group(booksim):
    routing, again = booksim.routing("val", seed=7), booksim.routing("val", seed=7)
    middles = set()
    for uid, (s, d) in enumerate(random_pairs(booksim, 2000)):
        path = walk(booksim, routing, s, d, uid)
        assert path == walk(booksim, again, s, d, uid)               # deterministic per (seed, uid)
        groups = groups_visited(booksim, path)
        if groups[0] != groups[-1]:
            assert len(groups) == 3 and groups[1] not in (groups[0], groups[-1])
            assert len(path) - 1 <= 5
            middles.add(groups[1])
    assert len(middles) == booksim.num_groups                       # every group serves as a middle


def test_aries_valiant_between_groups_stays_within_eight_hops(trinity):
    routing = trinity.routing("val", seed=5)
    for uid, (s, d) in enumerate(random_pairs(trinity, 1000)):
        path = walk(trinity, routing, s, d, uid)
        groups = groups_visited(trinity, path)
        assert len(path) - 1 <= 8 and len(groups) in (1, 3)


def test_aries_intra_group_valiant_goes_through_another_router(trinity):
    routing, direct = trinity.routing("val", seed=3), trinity.routing("min")
    longer = 0
    for uid in range(500):
        s, d = uid % 384, (uid * 37 + 5) % 384                      # both in group 0
        if trinity.node_router[s] == trinity.node_router[d]:
            continue
        path = walk(trinity, routing, s, d, uid)
        assert {r // 96 for r in path} == {0} and len(path) - 1 <= 4
        longer += len(path) > len(walk(trinity, direct, s, d, uid))
    assert longer > 300


def test_ugal_takes_min_when_idle_and_valiant_when_min_port_is_hot(booksim, trinity):
    for topo in (booksim, trinity):
        minimal, valiant = topo.routing("min"), topo.routing("val")
        src, dst = 5, topo.num_nodes - 3                              # different groups
        diverted = {}
        for candidates in (1, 3):
            ugal = topo.routing("ugal", candidates=candidates)
            diverted[candidates] = 0
            for uid in range(50):
                min_port = trace(topo, minimal, src, dst, uid)[0][1]
                idle = trace(topo, ugal, src, dst, uid)
                assert idle[0][1] == min_port and len(groups_visited(topo, [h[0] for h in idle])) == 2
                busy = trace(topo, ugal, src, dst, uid, hot_port(0, min_port))
                routers = [h[0] for h in busy] + [int(topo.node_router[dst])]
                if busy[0][1] == min_port:    # every candidate shared the hot port: MIN is shorter
                    assert len(groups_visited(topo, routers)) == 2
                else:
                    assert len(groups_visited(topo, routers)) == 3
                    diverted[candidates] += 1
                if candidates == 1:             # the one candidate is VAL's own intermediate
                    val_port = trace(topo, valiant, src, dst, uid)[0][1]
                    assert (busy[0][1] == min_port) == (val_port == min_port)
        assert diverted[1] > 35
        assert diverted[3] >= diverted[1] and diverted[3] > 45


@pytest.mark.parametrize("name", ["ugal", "par"])
def test_adaptive_routings_are_minimal_on_an_idle_network(name, booksim, trinity):
    for topo in (booksim, trinity, dragonfly()):
        adaptive, minimal = topo.routing(name, seed=2), topo.routing("min", seed=2)
        for uid, (s, d) in enumerate(random_pairs(topo, 300, seed=4)):
            assert trace(topo, adaptive, s, d, uid) == trace(topo, minimal, s, d, uid)


@pytest.mark.parametrize("name", ["ugal", "par"])
def test_ugal_leaves_min_only_when_its_queue_exceeds_the_bias(name, booksim, trinity):
    """The bias toward MIN is three packets by default: a minimal first port holding 3 packets
    (the candidates' ports idle) keeps every packet minimal, one byte more sends it Valiant; with
    ugal_bias_packets=16 the same holds at 16 packets."""
    for topo in (booksim, trinity):
        a = topo.routers_per_group
        for adaptive in (topo.routing(name), topo.routing(name, ugal_bias_packets=16)):
            tried, diverted = bias_decisions(topo, adaptive, topo.routing("min"),
                                             random_pairs(topo, 200, seed=6), 160, lambda r, t: r // a == t // a)
            assert tried > 150 and diverted > 0.9 * tried
    assert booksim.routing(name).ugal_bias_packets == 3


def test_preset_sets_the_ugal_bias_of_the_packet_network():
    """network.ugal_bias_packets reaches the packet network's routing; the flow network weighs
    flow backlogs with the default bias; a minimal routing takes the preset's bias without
    complaint (it has nothing to weigh)."""
    from ppt.hardware.systems import load_system
    from ppt.interconnects.networks.flownet import FlowNetwork
    from ppt.interconnects.networks.packetnet import PacketNetwork
    from ppt.machine import Machine
    small = ["topology.p=2", "topology.a=4", "topology.h=2", "topology.g=9", "network.ugal_bias_packets=12.5"]
    machine = Machine(load_system("dragonfly-booksim", small + ["network.routing=ugal"]))
    assert PacketNetwork(machine.topology, machine.preset["network"]).routing.ugal_bias_packets == 12.5
    assert FlowNetwork.from_machine(machine).routing.ugal_bias_packets == 3
    machine = Machine(load_system("dragonfly-booksim", small))
    assert PacketNetwork(machine.topology, machine.preset["network"]).routing.name == "min"


def test_ugal_is_about_as_fast_as_min_under_uniform_traffic():
    """Uniform random at 0.8 of injection bandwidth needs no detour: UGAL-L must stay close to
    MIN's latency (BookSim's UGAL-L stays within about 1.4x of its MIN)."""
    from ppt.hardware.systems import load_system
    from ppt.drivers.traffic import run_traffic
    from ppt.machine import Machine
    machine = Machine(load_system("dragonfly-booksim", ["topology.p=2", "topology.a=4", "topology.h=2",
                                                         "topology.g=9"]))
    latency = {r: run_traffic(machine, "ur", 0.8, r, warmup_s=3e-6, time_s=5e-6, comm=None)["mean_latency_s"]
               for r in ("min", "ugal", "par")}
    assert latency["ugal"] < 1.3 * latency["min"] and latency["par"] < 1.3 * latency["min"]


@pytest.mark.parametrize("load", [0.5, 1.0])
def test_ugal_accepts_at_least_valiants_load_under_worst_case_traffic(load):
    from ppt.hardware.systems import load_system
    from ppt.drivers.traffic import run_traffic
    from ppt.machine import Machine
    machine = Machine(load_system("dragonfly-booksim", ["topology.p=2", "topology.a=4", "topology.h=2",
                                                         "topology.g=9"]))
    accepted = {r: run_traffic(machine, "wc", load, r, warmup_s=3e-6, time_s=5e-6, comm=None)["accepted_fraction"]
                for r in ("val", "ugal", "par")}
    assert accepted["ugal"] >= accepted["val"] - 0.005 and accepted["par"] >= accepted["val"] - 0.005


def test_worst_case_traffic_meets_the_analytic_bounds():
    """p=2, a=4, h=2, g=9 under WC (group i -> i+1), as fractions of a node's bandwidth:
    MIN is capped by the one global link per group pair at 1/(a*p); Valiant crosses two
    global links and never uses the i -> i+1 link, so at most (a*h - 1) / (2*a*p); UGAL adds
    the direct link on top, at most ((a*h - 1) / 2 + 1) / (a*p), and must beat Valiant.  UGAL
    reaches its bound; packets counted in the 5 us window may have crossed links before it,
    hence the 1% above it."""
    from ppt.hardware.systems import load_system
    from ppt.drivers.traffic import run_traffic
    from ppt.machine import Machine
    machine = Machine(load_system("dragonfly-booksim", ["topology.p=2", "topology.a=4", "topology.h=2",
                                                         "topology.g=9"]))
    p, a, h = 2, 4, 2
    accepted = {r: run_traffic(machine, "wc", 0.9, r, warmup_s=3e-6, time_s=5e-6, comm=None)["accepted_fraction"]
                for r in ("min", "val", "ugal")}
    assert accepted["min"] == pytest.approx(1 / (a * p), rel=0.03)
    val_bound, ugal_bound = (a * h - 1) / (2 * a * p), ((a * h - 1) / 2 + 1) / (a * p)
    assert 0.95 * val_bound <= accepted["val"] <= val_bound
    assert accepted["val"] < 0.95 * ugal_bound <= accepted["ugal"] <= 1.01 * ugal_bound


@pytest.mark.parametrize("name,vcs", [("min", 2), ("val", 3), ("ugal", 3), ("par", 4)])
def test_vcs_stay_in_range_and_rise_along_every_path(name, vcs, booksim, trinity, darter):
    rng = random.Random(name)

    def noisy(hop, radix):
        return [rng.randrange(8) for _ in range(radix)]
    for topo, local_hops in ((booksim, 1), (trinity, 2), (darter, 2)):
        routing = topo.routing(name, seed=11)
        assert routing.num_vcs == vcs * local_hops
        for uid, (s, d) in enumerate(random_pairs(topo, 600, seed=uid_seed(name))):
            hops = trace(topo, routing, s, d, uid, noisy)
            ranks = [(vc, is_global) for _, _, vc, is_global in hops]
            assert all(x < y for x, y in zip(ranks, ranks[1:])), ranks


def uid_seed(name):
    return sum(map(ord, name))


def test_par_diverts_inside_the_source_group(booksim):
    par, minimal = booksim.routing("par"), booksim.routing("min")
    diverted = 0
    for uid, (s, d) in enumerate(random_pairs(booksim, 400)):
        first = trace(booksim, minimal, s, d, uid)
        if len(first) < 2 or first[0][3]:
            continue                                              # needs a local hop before the global one
        second_port = first[1][1]
        hops = trace(booksim, par, s, d, uid, hot_port(1, second_port))
        routers = [h[0] for h in hops] + [int(booksim.node_router[d])]
        assert hops[0][1] == first[0][1]                         # idle source: started on MIN
        assert len(groups_visited(booksim, routers)) == 3          # then switched to Valiant
        assert routers[1] // 8 == routers[0] // 8 and hops[1][1] != second_port
        assert hops[1][2] == 1                                    # new phase: VC 0 -> 1 in the same group
        diverted += 1
    assert diverted > 100


def test_worst_case_destination_targets_the_next_group(booksim, darter):
    rng = random.Random(3)
    for topo in (booksim, darter):
        per_group = topo.nodes_per_group
        populated = -(-topo.num_nodes // per_group)
        for node in range(0, topo.num_nodes, 7):
            dst = topo.worst_case_destination(node, rng.randrange(1 << 30))
            assert 0 <= dst < topo.num_nodes
            assert dst // per_group == (node // per_group + 1) % populated


# -- configuration errors -----------------------------------------------------

def test_too_many_groups_is_a_config_error():
    with pytest.raises(ConfigError, match="limit of 33 groups"):
        dragonfly(4, 8, 4, 34)
    with pytest.raises(ConfigError, match="limit of 241 groups"):
        aries(242)
    assert aries(241).num_groups == 241
    with pytest.raises(ConfigError, match="limit of 241 groups"):
        build_topology({**json.loads((SYSTEMS / "trinity.json").read_text())["topology"], "groups": 300})


def test_bad_parameters_are_config_errors():
    with pytest.raises(ConfigError, match="palmtree"):
        dragonfly(2, 4, 2, 6, arrangement="palmtree")              # g-1 = 5 does not divide 8
    with pytest.raises(ConfigError, match="arrangement"):
        dragonfly(arrangement="random")
    with pytest.raises(ConfigError, match="num_nodes"):
        aries(2, num_nodes=769)
    with pytest.raises(ConfigError, match="'h'"):
        build_topology({"kind": "dragonfly", "p": 4, "a": 8, "g": 33})

"""Torus family: structure, presets, dimension-order and adaptive routing, deadlock freedom."""
import itertools
import json
import math
import time
from pathlib import Path

import numpy as np
import pytest

import ppt.hardware
from ppt.errors import ConfigError
from ppt.interconnects.topologies.bgq import BlueGeneQ
from ppt.interconnects.topologies.gemini import Gemini
from ppt.interconnects.topologies.registry import build_topology
from ppt.interconnects.topologies.topology import Topology, channels, walk
from ppt.interconnects.topologies.torus import Torus

SYSTEMS = Path(ppt.hardware.__file__).parent / "systems"
LINK = {"link_bandwidth_Bps": 4e9, "link_latency_s": 1e-7, "terminal_bandwidth_Bps": 8e9}


def preset(name):
    return json.loads((SYSTEMS / f"{name}.json").read_text())


def torus(dims, **options):
    return Torus(dims, **{**LINK, **options})


def ring_distance(a, b, k):
    delta = abs(a - b)
    return min(delta, k - delta)


def manhattan(topo, r1, r2):
    """Minimal hops computed independently of the topology code."""
    c1 = np.unravel_index(r1, topo.dims)
    c2 = np.unravel_index(r2, topo.dims)
    return sum(ring_distance(int(a), int(b), k) for a, b, k in zip(c1, c2, topo.dims))


def random_walk(topo, routing, src, dst, uid, rng):
    """Like ``walk`` but with random output occupancies, to exercise adaptive choices.

    Returns the (router, port, vc) channels taken, ending with the terminal port.
    """
    return channels(topo, routing, src, dst, uid, occupancy=lambda hops, router: rng.integers(0, 4, topo.radix).tolist(),
                    max_hops=4 * topo.diameter() + 3)


def dor_channels(topo, routing, src, dst, uid):
    """(router, port, vc) channels of a lone DOR packet."""
    return random_walk(topo, routing, src, dst, uid, np.random.default_rng(0))


def is_acyclic(edges):
    """Kahn's algorithm on a dependency graph given as a set of (a, b) edges."""
    succ, indeg = {}, {}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
        indeg[b] = indeg.get(b, 0) + 1
        indeg.setdefault(a, 0)
    ready = [v for v, d in indeg.items() if d == 0]
    seen = 0
    while ready:
        v = ready.pop()
        seen += 1
        for w in succ.get(v, ()):
            indeg[w] -= 1
            if indeg[w] == 0:
                ready.append(w)
    return seen == len(indeg)


def dependencies(paths):
    """Channel dependency edges between consecutive router-to-router channels of each path."""
    edges = set()
    for path in paths:
        hops = path[:-1]              # the last channel is the terminal (ejection) port
        edges.update(zip(hops, hops[1:]))
    return edges


# ---------------------------------------------------------------- structure

@pytest.mark.parametrize("name, nodes, dims, radix", [
    ("hopper", 6384, (17, 8, 24), 12),
    ("mira", 49152, (8, 12, 16, 16, 2), 11),
    ("sequoia", 98304, (16, 12, 16, 16, 2), 11),
    ("bgq-midplane", 512, (4, 4, 4, 4, 2), 11),
    ("torus-16x16x16", 4096, (16, 16, 16), 7),
])
def test_preset_counts(name, nodes, dims, radix):
    cfg = preset(name)
    topo = build_topology(cfg["topology"])
    assert topo.num_nodes == nodes
    assert topo.num_routers == math.prod(dims)
    assert topo.radix == radix
    # every router uses all its torus ports (no dimension of size 1 here)
    assert (topo.network_degree() == topo.num_torus_ports).all()
    assert topo.num_links() == topo.num_routers * topo.num_torus_ports // 2
    assert topo.diameter() == sum(k // 2 for k in dims)
    assert cfg["network"]["routing"] in topo.routings
    assert cfg["sources"] and cfg["node"]["cores"] > 0


def test_gemini_hopper_structure():
    topo = build_topology(preset("hopper")["topology"])
    assert isinstance(topo, Gemini)
    assert topo.num_torus_ports == 10 and topo.nodes_per_router == 2
    # Hopper's 6,384 compute nodes leave 3264 * 2 - 6384 = 144 slots for service nodes
    assert topo.num_routers * 2 - topo.num_nodes == 144
    counts = np.bincount(topo.node_router, minlength=topo.num_routers)
    assert counts.max() == 2 and (counts == 1).sum() == 144
    # X and Z carry twice Y's bandwidth per direction: 9.375 vs 4.6875 GB/s
    per_direction = [len(plus) * topo.link_classes[d].bandwidth_Bps
                     for d, (plus, minus) in enumerate(topo.direction_ports)]
    assert per_direction == pytest.approx([9.375e9, 4.6875e9, 9.375e9])


def test_bgq_e_dimension_pairs_are_joined_twice():
    topo = build_topology(preset("bgq-midplane")["topology"])
    assert isinstance(topo, BlueGeneQ) and topo.num_torus_ports == 10
    plus, minus = topo.direction_ports[4]
    for r in range(topo.num_routers):
        assert topo.port_peer[r, plus[0]] == topo.port_peer[r, minus[0]] != r
    assert (topo.port_peer_port[np.arange(topo.num_routers), topo.node_port] == np.arange(512)).all()


def test_ports_are_symmetric():
    topo = torus([3, 2, 5, 1], nodes_per_router=3, links_per_direction=[2, 1, 1, 3], num_nodes=70)
    r, p = np.nonzero(topo.port_peer >= 0)
    q, pp = topo.port_peer[r, p], topo.port_peer_port[r, p]
    assert (topo.port_peer[q, pp] == r).all() and (topo.port_peer_port[q, pp] == p).all()
    assert (topo.port_class[r, p] == topo.port_class[q, pp]).all()
    # the size-1 dimension has no links; its ports are unused slots
    for port in itertools.chain(*topo.direction_ports[3]):
        assert (topo.port_peer[:, port] == -1).all() and (topo.port_class[:, port] == -1).all()
    # each node sits on its own terminal port
    assert len(set(zip(topo.node_router.tolist(), topo.node_port.tolist()))) == 70
    assert (topo.port_peer[topo.node_router, topo.node_port] == -1).all()


@pytest.mark.parametrize("dims", [[5], [4, 3], [2, 2, 2], [3, 1, 4], [6, 5], [2, 3, 2, 3]])
def test_diameter_and_distances_match_bfs(dims):
    topo = torus(dims)
    assert topo.diameter() == Topology.diameter(topo)
    for r in range(topo.num_routers):
        assert (topo.hop_distances(r) == Topology.hop_distances(topo, r)).all()


def test_sequoia_builds_fast_and_compact():
    start = time.perf_counter()
    topo = build_topology(preset("sequoia")["topology"])
    assert time.perf_counter() - start < 5.0
    tables = (topo.port_peer, topo.port_peer_port, topo.port_class, topo.node_router, topo.node_port)
    assert all(isinstance(t, np.ndarray) for t in tables)
    assert sum(t.nbytes for t in tables) < 16 * 2**20
    assert topo.summary() == {"nodes": 98304, "routers": 98304, "links": 491520, "radix": 11,
                              "diameter": 8 + 6 + 8 + 8 + 1}


# ---------------------------------------------------------------- routing

@pytest.mark.parametrize("dims, npr, links", [
    ([5, 4, 3], 1, 1), ([7, 2, 6], 2, [2, 1, 2]), ([2, 2, 2, 2, 2], 1, 1), ([9], 3, 2), ([4, 1, 5], 1, 1),
])
@pytest.mark.parametrize("routing_name", ["dor", "adaptive"])
def test_paths_are_minimal(dims, npr, links, routing_name):
    topo = torus(dims, nodes_per_router=npr, links_per_direction=links)
    routing = topo.routing(routing_name, seed=3)
    rng = np.random.default_rng(42)
    for uid in range(300):
        src, dst = (int(x) for x in rng.integers(0, topo.num_nodes, 2))
        path = walk(topo, routing, src, dst, uid)
        assert path[0] == topo.node_router[src] and path[-1] == topo.node_router[dst]
        assert len(path) - 1 == manhattan(topo, path[0], path[-1])
        channels = random_walk(topo, routing, src, dst, uid, rng)
        assert len(channels) - 1 == manhattan(topo, path[0], path[-1])


def test_dor_corrects_dimensions_in_order():
    topo = torus([6, 5, 4])
    routing = topo.routing("dor")
    for uid, (src, dst) in enumerate(itertools.product(range(0, 120, 7), range(0, 120, 5))):
        path = walk(topo, routing, src, dst, uid)
        changed = [next(d for d in range(3) if topo.coordinates(a)[d] != topo.coordinates(b)[d])
                   for a, b in zip(path, path[1:])]
        assert changed == sorted(changed)


def test_sequoia_dor_paths():
    topo = build_topology(preset("sequoia")["topology"])
    routing = topo.routing("min")
    rng = np.random.default_rng(7)
    for uid in range(200):
        src, dst = (int(x) for x in rng.integers(0, topo.num_nodes, 2))
        path = walk(topo, routing, src, dst, uid)
        assert len(path) - 1 == manhattan(topo, src, dst)


def test_dateline_vc_sequence():
    """On each ring DOR uses VC 0 until it takes the wraparound link, then VC 1."""
    topo = torus([7, 6, 2])
    routing = topo.routing("dor")
    for uid, (src, dst) in enumerate(itertools.product(range(topo.num_nodes), repeat=2)):
        channels = dor_channels(topo, routing, src, dst, uid)[:-1]
        for d in range(3):
            k = topo.dims[d]
            seq = []
            for router, port, vc in channels:
                if topo.port_class[router, port] == d:
                    c = topo.coordinates(router)[d]
                    plus = port in topo.direction_ports[d][0]
                    wraps = (c == k - 1) if plus else (c == 0)
                    seq.append((wraps, vc))
            crossed = False
            for wraps, vc in seq:
                crossed = crossed or wraps
                assert vc == int(crossed)


@pytest.mark.parametrize("dims, links", [([5, 4], 1), ([3, 3, 3], [2, 1, 1]), ([6, 2, 3], 1), ([8], 1)])
def test_dor_channel_dependencies_are_acyclic(dims, links):
    topo = torus(dims, links_per_direction=links)
    routing = topo.routing("dor")
    paths = [dor_channels(topo, routing, s, d, uid)
             for uid, (s, d) in enumerate(itertools.product(range(topo.num_nodes), repeat=2))]
    assert is_acyclic(dependencies(paths))
    # control: on one VC, rings of 4 or more (where paths take 2+ hops along one ring) close cycles
    single = [[(r, p, 0) for r, p, _ in channels] for channels in paths]
    assert is_acyclic(dependencies(single)) == (max(dims) < 4)


@pytest.mark.parametrize("dims", [[5, 4], [4, 3, 3], [6, 2, 5]])
def test_adaptive_channel_dependencies_are_acyclic(dims):
    topo = torus(dims)
    routing = topo.routing("adaptive")
    rng = np.random.default_rng(1)
    paths = [random_walk(topo, routing, s, d, uid * 4 + rep, rng)
             for uid, (s, d) in enumerate(itertools.product(range(topo.num_nodes), repeat=2))
             for rep in range(4)]
    edges = dependencies(paths)
    assert is_acyclic(edges)
    # the adaptive routing really turns between dimensions in both orders
    turns = {(topo.port_class[a[0], a[1]], topo.port_class[b[0], b[1]]) for a, b in edges}
    assert (0, 1) in turns and (1, 0) in turns


def test_adaptive_avoids_a_busy_port_and_dor_does_not():
    topo = torus([6, 6])
    src, dst = topo.router_at((0, 0)), topo.router_at((2, 2))
    x_plus = topo.direction_ports[0][0][0]
    busy = [0] * topo.radix
    busy[x_plus] = 10_000
    for name, expected in (("adaptive", topo.direction_ports[1][0][0]), ("dor", x_plus)):
        routing = topo.routing(name)
        pkt = routing.packet(1, src, dst, 64)
        assert routing.route(pkt, src, busy)[0] == expected     # adaptive goes +Y first


def test_dor_spreads_over_parallel_links_and_tied_directions():
    topo = torus([6, 3], links_per_direction=[2, 1])
    routing = topo.routing("dor", seed=5)
    src, dst = topo.router_at((0, 0)), topo.router_at((3, 0))   # 3 = 6/2 hops either way
    first = {walk(topo, routing, src, dst, uid)[1] for uid in range(64)}
    assert first == {topo.router_at((1, 0)), topo.router_at((5, 0))}
    ports = set()
    for uid in range(64):
        pkt = routing.packet(uid, src, dst, 64)
        ports.add(routing.route(pkt, src, [0] * topo.radix)[0])
    assert ports == set(topo.direction_ports[0][0]) | set(topo.direction_ports[0][1])


def test_routing_is_deterministic_per_seed():
    topo = torus([6, 6, 4])
    paths = [[walk(topo, topo.routing("dor", seed=s), a, b, uid) for uid, (a, b)
              in enumerate(itertools.product(range(0, 144, 11), repeat=2))] for s in (9, 9, 10)]
    assert paths[0] == paths[1] != paths[2]


# ---------------------------------------------------------------- configuration errors

@pytest.mark.parametrize("cfg, words", [
    ({"kind": "torus", "dims": [4, 0, 4], **LINK}, "dims"),
    ({"kind": "torus", "dims": [4, -2], **LINK}, "dims"),
    ({"kind": "torus", "dims": [], **LINK}, "dims"),
    ({"kind": "torus", "dims": [4, 2.5], **LINK}, "dims"),
    ({"kind": "torus", "dims": 8, **LINK}, "dims"),
    ({"kind": "torus", "dims": [4, 4], **LINK, "link_bandwidth_Bps": [1e9, 2e9, 3e9]}, "link_bandwidth_Bps"),
    ({"kind": "torus", "dims": [4, 4], **LINK, "link_bandwidth_Bps": 0}, "link_bandwidth_Bps"),
    ({"kind": "torus", "dims": [4, 4], **LINK, "nodes_per_router": 0}, "nodes_per_router"),
    ({"kind": "torus", "dims": [4, 4], **LINK, "links_per_direction": [1, 0]}, "links_per_direction"),
    ({"kind": "torus", "dims": [4, 4], **LINK, "num_nodes": 17}, "num_nodes"),
    ({"kind": "torus", "dims": [4, 4], "link_latency_s": 1e-7, "terminal_bandwidth_Bps": 1e9},
     "link_bandwidth_Bps"),
    ({"kind": "gemini", "dims": [17, 8], **LINK}, "3 sizes"),
    ({"kind": "gemini", "dims": [4, 4, 4], "nodes_per_router": 1, **LINK}, "fixed"),
    ({"kind": "bgq", "dims": [4, 4, 4, 4], **LINK}, "5 sizes"),
    ({"kind": "bgq", "dims": [4, 4, 4, 4, 4], **LINK}, "E dimension"),
    ({"kind": "bgq", "dims": [4, 4, 4, 0, 2], **LINK}, "dims"),
])
def test_bad_parameters(cfg, words):
    with pytest.raises(ConfigError) as err:
        build_topology(cfg)
    message = str(err.value)
    assert words in message and "\n" not in message


def test_unknown_routing_names_the_choices():
    with pytest.raises(ConfigError, match="adaptive, dor, min"):
        torus([4, 4]).routing("valiant")

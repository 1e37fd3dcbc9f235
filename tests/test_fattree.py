"""m-port n-tree structure (Lin, Chung & Huang numbering) and MLID / D-mod-K routing."""

import numpy as np
import pytest

from ppt.errors import ConfigError
from ppt.hardware.systems import load_system
from ppt.interconnects.topologies.fattree import FatTree
from ppt.interconnects.topologies.registry import build_topology
from ppt.interconnects.topologies.topology import Topology, walk


def tree(m, n, **kw):
    return FatTree(m, n, link_bandwidth_Bps=1e9, link_latency_s=1e-7, router_delay_s=0.0, **kw)


def switch_label(t, router):
    """(level, [w0 .. w_{n-2}]) of a router id under the level-by-level numbering."""
    level = int(t.router_level[router])
    index = router - t.level_offset[level]
    digits = []
    for _ in range(t.levels - 2):
        index, d = divmod(index, t.half)
        digits.append(d)
    return level, ([index] + digits[::-1]) if t.levels > 1 else []


@pytest.mark.parametrize("m, n", [(4, 3), (4, 1), (2, 4), (6, 2), (8, 3), (36, 2), (4, 4)])
def test_counts_follow_the_closed_forms(m, n):
    t = tree(m, n)
    half = m // 2
    assert t.num_nodes == 2 * half ** n
    assert t.num_routers == (2 * n - 1) * half ** (n - 1)
    # every level below the roots has m*half^(n-2) switches, each with half up-links
    assert t.num_links() == (n - 1) * m * half ** (n - 1)
    assert (t.port_class >= 0).all()          # a full tree uses every port of every switch


def test_four_port_three_tree_is_the_papers_example():
    t = tree(4, 3)
    assert (t.num_nodes, t.num_routers) == (16, 20)
    assert Topology.diameter(t) == t.diameter() == 4


@pytest.mark.parametrize("m, n", [(4, 3), (6, 3), (4, 4), (8, 2)])
def test_links_follow_the_published_connection_rule(m, n):
    t = tree(m, n)
    half = m // 2
    for r in range(t.num_routers):
        level, w = switch_label(t, r)
        for k in range(m):
            peer, back = int(t.port_peer[r, k]), int(t.port_peer_port[r, k])
            if peer < 0:                                   # P(p) on port p_{n-1} of SW<p0..p_{n-2}, n-1>
                assert level == n - 1
                assert t.node_digits(back) == w + [k]
                continue
            assert t.port_peer[peer, back] == r and t.port_peer_port[peer, back] == k
            plevel, pw = switch_label(t, peer)
            if k < half or level == 0:                     # down port k of SW<w,l> -> up port w_l + m/2
                assert plevel == level + 1
                assert back == w[level] + half
                assert pw[level] == k
                assert pw[:level] + pw[level + 1:] == w[:level] + w[level + 1:]
            else:
                assert plevel == level - 1


@pytest.mark.parametrize("m, n", [(4, 3), (6, 3), (4, 4)])
@pytest.mark.parametrize("routing", ["mlid", "dmodk"])
def test_every_path_is_a_shortest_up_down_path_through_the_lowest_common_ancestor(m, n, routing):
    t = tree(m, n)
    r = t.routing(routing)
    level = t.router_level
    for src in range(t.num_nodes):
        for dst in range(t.num_nodes):
            path = walk(t, r, src, dst)
            alpha = t.common_prefix(src, dst)
            assert len(path) - 1 == 2 * max(n - 1 - alpha, 0)
            levels = [int(level[s]) for s in path]
            top = levels.index(min(levels))
            assert all(a - b == 1 for a, b in zip(levels[:top], levels[1:top + 1]))     # up ...
            assert all(b - a == 1 for a, b in zip(levels[top:], levels[top + 1:]))      # ... then down
            assert min(levels) == min(alpha, n - 1)


def test_mlid_chooses_a_lid_of_the_destination():
    t = tree(6, 3)
    r = t.routing("mlid")
    for src in range(0, t.num_nodes, 5):
        for dst in range(t.num_nodes):
            assert t.base_lid(dst) <= r.packet(0, src, dst).route[0] < t.base_lid(dst + 1)   # the DLID


def test_mlid_spreads_leaf_up_links_and_roots_where_dmodk_uses_one():
    t = tree(8, 3)
    half, dst = t.half, t.num_nodes - 1
    first = range(half)                                  # the nodes of leaf switch 0
    for name, up_links, roots in (("mlid", half, half ** 2), ("dmodk", 1, 1)):
        r = t.routing(name)
        assert len({walk(t, r, s, dst)[1] for s in first}) == up_links
        far = [s for s in range(t.num_nodes) if t.common_prefix(s, dst) == 0]
        tops = {min(walk(t, r, s, dst), key=lambda x: t.router_level[x]) for s in far}
        assert len(tops) == roots


def test_min_and_single_are_aliases():
    t = tree(4, 3)
    assert t.routing("min").spec is t.routing("mlid").spec
    assert t.routing("single").spec is t.routing("dmodk").spec
    assert t.routing("mlid").spec is not t.routing("dmodk").spec


def test_partial_population_uses_the_first_leaf_ports():
    t = tree(8, 3, num_nodes=50)
    assert t.num_nodes == 50 and t.num_routers == 80
    assert (t.node_router == t.level_offset[2] + np.arange(50) // 4).all()
    assert int((t.port_class == 1).sum()) == 50
    r = t.routing("mlid")
    for src in range(0, 50, 3):
        for dst in range(50):
            assert len(walk(t, r, src, dst)) - 1 == 2 * max(2 - t.common_prefix(src, dst), 0)


@pytest.mark.parametrize("cfg, message", [
    ({"ports": 5, "levels": 3}, "even"),
    ({"ports": 4, "levels": 3, "num_nodes": 17}, "1..16"),
    ({"ports": 4, "levels": 0}, "levels"),
    ({"levels": 3}, "'ports'"),
])
def test_bad_parameters_raise_config_error(cfg, message):
    full = {"kind": "fattree", "link_bandwidth_Bps": 1e9, "link_latency_s": 1e-7, **cfg}
    with pytest.raises(ConfigError, match=message):
        build_topology(full)


def test_stampede_preset_maps_6400_nodes_onto_a_36_port_3_tree():
    cfg = load_system("stampede")
    t = build_topology(cfg["topology"])
    assert t.num_nodes == 6400
    assert t.capacity == 2 * 18 ** 3 >= 6400
    assert t.num_routers == 5 * 18 ** 2
    assert t.radix == 36
    used_leaves = np.unique(t.node_router)
    assert len(used_leaves) == -(-6400 // 18)
    assert cfg["network"]["routing"] in t.routings
    assert cfg["node"]["processor"] == "sandybridge"
    r = t.routing(cfg["network"]["routing"])
    assert len(walk(t, r, 0, 6399)) - 1 == 4          # nodes in different level-1 subtrees


def test_small_preset_is_the_four_port_three_tree():
    t = build_topology(load_system("fattree-4-3")["topology"])
    assert (t.num_nodes, t.num_routers) == (16, 20)

"""Link failures on the Slim Fly and the fat-tree: legal-path routing checked against brute force,
saturated runs that conserve packets, and the command line."""
import json
import random
from collections import deque

import numpy as np
import pytest

from ppt.cli.main import main
from ppt.interconnects.topologies.failures import FailureSpec, apply_failures
from ppt.interconnects.topologies.fattree import FatTree
from ppt.interconnects.topologies.slimfly import SlimFly
from ppt.interconnects.topologies.topology import Routing, channels
from network_checks import assert_conserved, routed_samples
from test_failures import saturate

MAPS = 30                                  # random failure maps per property


def hop_distances(failed, x):
    """Surviving router hops from router ``x`` to every router, by breadth-first search (-1: cut off)."""
    dist = {x: 0}
    todo = deque([x])
    while todo:
        r = todo.popleft()
        for q in failed.port_peer[r]:
            if q >= 0 and q not in dist:
                dist[q] = dist[r] + 1
                todo.append(q)
    return np.array([dist.get(v, -1) for v in range(failed.num_routers)])


def assert_surviving_hops(topo, failed, taken):
    """Every router-to-router channel of ``taken`` crosses a link that exists and survives."""
    for router, port, _ in taken[:-1]:
        peer = failed.port_peer[router, port]
        assert peer >= 0 and topo.port_peer[router, port] == peer, "crossed a failed link"


# -- Slim Fly ----------------------------------------------------------------------------------

def slimfly_map(seed):
    """A q=5 Slim Fly and a failure map drawn from ``seed``."""
    rand = random.Random(seed)
    topo = SlimFly(5, rand.choice([1, 2]), 1e9, 1e-7, 0.0)
    spec = FailureSpec(rand.choice([0.05, 0.1, 0.2, 0.3]), rand.choice(["all", "local", "global"]), seed)
    return topo, apply_failures(topo, spec)


def test_slimfly_local_links_stay_in_a_column_and_global_ones_join_columns():
    topo = SlimFly(5, 1, 1e9, 1e-7, 0.0)
    glob = topo.global_ports()
    assert (glob[:, topo.p + topo.h:]).all() and not glob[:, :topo.p + topo.h].any()
    failed = apply_failures(topo, FailureSpec(0.2, "local", 1))
    assert (failed.failed_links[:, 1] < topo.p + topo.h).all()


def test_slimfly_unroutable_pairs_are_exactly_those_brute_force_finds():
    rescued = 0
    for seed in range(MAPS):
        topo, failed = slimfly_map(seed)
        dist = np.array([hop_distances(failed, x) for x in range(topo.num_routers)])
        within = (dist >= 0) & (dist <= 2)
        no_min = {(x, y) for x, y in zip(*np.nonzero(~within))}
        assert set(map(tuple, failed.unroutable_pairs().tolist())) == no_min, seed
        no_val = {(x, y) for x, y in no_min if not (within[x] & within[:, y]).any()}
        for name in ("val", "ugal"):
            assert set(map(tuple, failed.unroutable_pairs(failed.routings[name]).tolist())) == no_val, seed
        rescued += len(no_min) - len(no_val)
    assert rescued > 0                                  # the maps do exercise the rescue


@pytest.mark.parametrize("name", ["min", "val", "ugal"])
def test_slimfly_routes_take_surviving_links_within_the_hop_indexed_vcs(name):
    for seed in range(MAPS):
        topo, failed = slimfly_map(seed)
        for routing, src, dst, uid, taken in routed_samples(topo, failed, name, seed):
            assert_surviving_hops(topo, failed, taken)
            hops = taken[:-1]
            assert len(hops) <= routing.num_vcs
            assert [vc for _, _, vc in hops] == list(range(len(hops)))     # one VC per hop, rising
            assert taken[-1][0] == topo.node_router[dst]
            if name == "val":
                mid = routing.packet(uid, src, dst).route[0]
                routers = [r for r, _, _ in taken]
                assert mid in routers and routers.index(mid) <= 2 and len(routers) - 1 - routers.index(mid) <= 2


def test_slimfly_valiant_routings_rescue_pairs_min_cannot_serve():
    topo, failed = next((t, f) for t, f in map(slimfly_map, range(MAPS))
                        if len(f.unroutable_pairs()) and not len(f.unroutable_pairs(f.routings["ugal"])))
    x, y = failed.unroutable_pairs()[0]
    src, dst = failed.nodes_of_router(x)[0], failed.nodes_of_router(y)[0]
    for name in ("val", "ugal"):
        taken = channels(failed, failed.routing(name), src, dst)
        assert_surviving_hops(topo, failed, taken)
        assert len(taken) - 1 > 2 and taken[-1][0] == y


# On a q=5 Slim Fly nearly every link is the only 2-hop path of some pair, so MIN cannot serve any
# failure map there: the saturated runs take the Valiant routings.
@pytest.mark.parametrize("routing", ["val", "ugal"])
def test_slimfly_saturation_with_failures_conserves_packets_and_drains(routing):
    topo = SlimFly(5, 2, 1e9, 1e-7, 0.0)
    failed = apply_failures(topo, FailureSpec(0.1, "all", 0))
    assert failed.unroutable_pairs().size and not failed.unroutable_pairs(failed.routings[routing]).size
    assert_conserved(*saturate(failed, routing))


def prediction(text: str) -> dict:
    """A --json result without its provenance (command line, preset hash, wall time differ between these runs)."""
    result = json.loads(text)
    result.pop("provenance")
    return result


def slimfly_traffic(capsys, *flags):
    """``ppt traffic --json`` on slimfly-3k with UGAL."""
    assert main(["traffic", "slimfly-3k", "--routing", "ugal", "--load", "0.3", "--warmup", "5e-7",
                 "--time", "1e-6", "--json", *flags]) == 0
    return prediction(capsys.readouterr().out)


def test_slimfly_zero_percent_is_no_failure_and_a_failure_map_runs(capsys):
    assert slimfly_traffic(capsys) == slimfly_traffic(capsys, "--fail-links", "0%")
    once = slimfly_traffic(capsys, "--fail-links", "5%", "--fail-seed", "2")
    assert once == slimfly_traffic(capsys, "--set", "network.fail_links=0.05", "--set", "network.fail_seed=2")
    assert once["packets"] > 0


def test_slimfly_topology_reports_the_pairs_min_cannot_serve(capsys):
    assert main(["topology", "slimfly-3k", "--fail-links", "5%", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["links_failed"] == round(0.05 * 338 * 19 / 2) and out["routing"] == "min"
    assert out["unroutable_pairs"] > 0 and "seed 0" in out["failures"]


# -- fat-tree ----------------------------------------------------------------------------------

def fattree_map(seed):
    """A small fat-tree (4-port 3- or 4-tree, 6-port 3-tree, maybe partly populated) and a failure
    map drawn from ``seed``."""
    rand = random.Random(seed)
    ports, levels = rand.choice([(4, 3), (4, 4), (6, 3)])
    topo = FatTree(ports, levels, 1e9, 1e-7, 0.0)
    topo = FatTree(ports, levels, 1e9, 1e-7, 0.0, num_nodes=rand.randrange(2, topo.capacity + 1))
    return topo, apply_failures(topo, FailureSpec(rand.choice([0.05, 0.1, 0.2, 0.3]), "all", seed))


def updown_reach(failed, x):
    """Switches an up*/down* walk from switch ``x`` reaches over surviving links, by brute force:
    climb any number of levels, then only descend."""
    level = failed.router_level
    seen = {(x, False)}
    todo = deque(seen)
    while todo:
        r, down = todo.popleft()
        for q in failed.port_peer[r]:
            if q < 0 or (down and level[q] < level[r]):
                continue
            state = (q, down or level[q] > level[r])
            if state not in seen:
                seen.add(state)
                todo.append(state)
    return {r for r, _ in seen}


def test_fattree_unroutable_pairs_are_exactly_those_brute_force_finds():
    cut = 0
    for seed in range(MAPS):
        topo, failed = fattree_map(seed)
        leaves = sorted(set(topo.node_router.tolist()))
        expected = {(x, y) for x in leaves for y in sorted(set(leaves) - updown_reach(failed, x))}
        assert set(map(tuple, failed.unroutable_pairs().tolist())) == expected, seed
        cut += len(expected)
    assert cut > 0                                      # the maps do cut some pairs off


@pytest.mark.parametrize("name", ["mlid", "dmodk"])
def test_fattree_routes_climb_then_descend_over_surviving_links(name):
    climbed_higher = 0
    for seed in range(MAPS):
        topo, failed = fattree_map(seed)
        routing = Routing(failed, failed.routings[name], seed=seed)
        bad = set(map(tuple, failed.unroutable_pairs().tolist()))
        for src in range(topo.num_nodes):
            for dst in range(topo.num_nodes):
                if (topo.node_router[src], topo.node_router[dst]) in bad:
                    continue
                taken = channels(failed, routing, src, dst)
                assert_surviving_hops(topo, failed, taken)
                assert {vc for _, _, vc in taken} == {0} and taken[-1][0] == topo.node_router[dst]
                levels = [int(topo.router_level[r]) for r, _, _ in taken]
                turn = levels.index(min(levels))
                assert all(b == a - 1 for a, b in zip(levels[:turn], levels[1:turn + 1]))     # up ...
                assert all(b == a + 1 for a, b in zip(levels[turn:], levels[turn + 1:]))      # ... then down
                climbed_higher += min(levels) < topo.common_prefix(src, dst)
    assert climbed_higher > 0                           # some routes climb above the common ancestor


def test_fattree_keeps_the_lid_up_ports_where_they_survive():
    topo = FatTree(6, 3, 1e9, 1e-7, 0.0)
    failed = next(f for f in (apply_failures(topo, FailureSpec(0.05, "all", seed)) for seed in range(50))
                  if not len(f.unroutable_pairs()))
    routing, plain = failed.routing("mlid"), topo.routing("mlid")
    kept = sum(channels(failed, routing, s, d) == channels(topo, plain, s, d)
               for s in range(topo.num_nodes) for d in range(topo.num_nodes))
    assert topo.num_nodes ** 2 > kept > topo.num_nodes ** 2 // 2


@pytest.mark.parametrize("routing", ["mlid", "dmodk"])
def test_fattree_saturation_with_failures_conserves_packets_and_drains(routing):
    topo = FatTree(6, 3, 1e9, 1e-7, 0.0)
    failed = next(f for f in (apply_failures(topo, FailureSpec(0.1, "all", seed)) for seed in range(50))
                  if not len(f.unroutable_pairs()))
    assert_conserved(*saturate(failed, routing))


def test_fattree_zero_percent_is_no_failure_and_a_failure_map_runs(capsys):
    def run(*flags):
        assert main(["traffic", "fattree-4-3", "--load", "0.3", "--warmup", "1e-6", "--time", "4e-6", "--json",
                     *flags]) == 0
        return prediction(capsys.readouterr().out)
    assert run() == run("--fail-links", "0%")
    assert run("--fail-links", "5%", "--fail-seed", "1")["packets"] > 0


@pytest.mark.parametrize("argv, message", [
    (["topology", "fattree-4-3", "--fail-links", "5%", "--fail-class", "global"],
     "a fattree has no local and global links; use 'all'"),
    (["traffic", "fattree-4-3", "--load", "0.1", "--fail-links", "30%", "--fail-seed", "1"],
     "seed 1) leave router"),
    (["traffic", "slimfly-3k", "--load", "0.1", "--fail-links", "5%", "--fail-seed", "2"],
     "seed 2) leave router"),
])
def test_bad_failure_input_is_one_line_and_exit_2(capsys, argv, message):
    status = main(argv)
    err = capsys.readouterr().err.strip()
    assert status == 2 and err.count("\n") == 0 and message in err, err

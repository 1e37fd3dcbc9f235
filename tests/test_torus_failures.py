"""Link failures on the torus family: routes over surviving links checked against a brute-force
search, deadlock freedom of the VC schemes, saturated runs that conserve packets, and the command line."""
import itertools
import json
import os
import random
import subprocess
import sys
from collections import deque

import numpy as np
import pytest

from ppt.cli.main import main
from ppt.interconnects.topologies.bgq import BlueGeneQ
from ppt.interconnects.topologies.failures import FailureSpec, apply_failures
from ppt.interconnects.topologies.gemini import Gemini
from ppt.interconnects.topologies.topology import Routing, channels
from ppt.interconnects.topologies.torus import Torus
from network_checks import assert_conserved
from test_failures import saturate
from test_torus import dependencies, is_acyclic

LINK = {"link_bandwidth_Bps": 4e9, "link_latency_s": 1e-7, "terminal_bandwidth_Bps": 8e9}
MAPS = 12                                  # random failure maps per shape
SHAPES = [([4, 4], 1), ([3, 3, 3], 1), ([4, 4, 2], 1), ([4, 3, 4], [2, 1, 2]), ([5, 4], 1)]


def failure_map(dims, links, seed):
    """A small torus (2 nodes on some routers, none on others) and a failure map drawn from ``seed``."""
    rand = random.Random(seed)
    size = int(np.prod(dims))
    topo = Torus(dims, **LINK, links_per_direction=links, nodes_per_router=2,
                 num_nodes=rand.randrange(size, 2 * size + 1))
    return topo, apply_failures(topo, FailureSpec([0.05, 0.1, 0.2, 0.3, 0.45, 0.6][seed % 6], "all", seed))


def connected(failed, x):
    """Routers reachable from router ``x`` over surviving links, by breadth-first search."""
    seen, todo = {x}, deque([x])
    while todo:
        r = todo.popleft()
        for q in failed.port_peer[r]:
            if q >= 0 and q not in seen:
                seen.add(q)
                todo.append(q)
    return seen


def all_routes(topo, failed, name, seed, loads=2):
    """``(src, dst, channels)`` of every node pair the brute force finds joined, each routed ``loads``
    times over random port loads (which steer the adaptive routing); pairs cut apart are skipped."""
    routing = Routing(failed, failed.routings[name], seed=seed)
    reach = {x: connected(failed, x) for x in np.unique(topo.node_router).tolist()}
    rand = random.Random(seed)
    uid = 0
    for src, dst in itertools.product(range(topo.num_nodes), repeat=2):
        if int(topo.node_router[dst]) not in reach[int(topo.node_router[src])]:
            continue
        for _ in range(loads):
            busy = [rand.choice([0.0, 1e4]) for _ in range(topo.radix)]
            uid += 1
            yield routing, src, dst, channels(failed, routing, src, dst, uid, occupancy=lambda hops, router: busy,
                                              max_hops=4 * failed.num_routers)


@pytest.mark.parametrize("dims, links", SHAPES)
def test_unroutable_pairs_are_exactly_the_pairs_brute_force_finds_apart(dims, links):
    cut = 0
    for seed in range(MAPS):
        topo, failed = failure_map(dims, links, seed)
        holds = sorted(set(topo.node_router.tolist()))
        expected = {(x, y) for x in holds for y in holds if y not in connected(failed, x)}
        for name in ("dor", "adaptive"):
            assert set(map(tuple, failed.unroutable_pairs(failed.routings[name]).tolist())) == expected, seed
        cut += len(expected)
    assert cut > 0 or links != 1                        # the maps do cut some pairs apart


@pytest.mark.parametrize("name", ["dor", "adaptive"])
@pytest.mark.parametrize("dims, links", SHAPES)
def test_every_joined_pair_is_routed_over_surviving_links_without_a_dependency_cycle(dims, links, name):
    vcs = set()
    for seed in range(MAPS):
        topo, failed = failure_map(dims, links, seed)
        paths = []
        for routing, src, dst, taken in all_routes(topo, failed, name, seed, loads=1 + (name == "adaptive")):
            for router, port, vc in taken[:-1]:
                peer = failed.port_peer[router, port]
                assert peer >= 0 and topo.port_peer[router, port] == peer, "crossed a failed link"
                assert 0 <= vc < routing.num_vcs
                vcs.add(vc)
            assert taken[-1][0] == topo.node_router[dst] and taken[-1][1] == topo.node_port[dst]
            paths.append(taken)
        assert is_acyclic(dependencies(paths)), seed
    escape = 4 if name == "dor" else 2 * len(dims) + 4
    assert max(vcs) == escape and escape - 2 in vcs     # detours and the escape channel ran


def test_dimension_order_keeps_its_fault_free_path_wherever_that_path_survives():
    kept = moved = 0
    for seed in range(MAPS):
        topo, failed = failure_map([4, 4, 2], 1, seed)
        plain = topo.routing("dor", seed=seed)
        routing = Routing(failed, failed.routings["dor"], seed=seed)
        for src, dst in itertools.product(range(topo.num_nodes), repeat=2):
            before = channels(topo, plain, src, dst, src * 1000 + dst)
            survives = all(failed.port_peer[r, p] >= 0 for r, p, _ in before[:-1])
            if survives:
                assert channels(failed, routing, src, dst, src * 1000 + dst) == before
                kept += 1
            else:
                moved += 1
    assert kept and moved


def test_the_escape_channel_climbs_turns_once_and_descends():
    """Escape paths are up*/down*: the (depth, id) rank of the routers visited falls, then rises."""
    checked = 0
    for seed in range(MAPS):
        topo, failed = failure_map([5, 4], 1, seed)
        depth = failed.escape_forest()[0]
        for _, _, _, taken in all_routes(topo, failed, "dor", seed, loads=1):
            escaped = [(r, p) for r, p, vc in taken[:-1] if vc == 4]
            if not escaped:
                continue
            assert len(escaped) == len(taken) - 1          # escape from the source on
            ranks = [(int(depth[r]), r) for r, _ in escaped] + [(int(depth[taken[-1][0]]), taken[-1][0])]
            turn = ranks.index(min(ranks))
            assert all(b < a for a, b in zip(ranks[:turn], ranks[1:turn + 1]))
            assert all(b > a for a, b in zip(ranks[turn:], ranks[turn + 1:]))
            checked += 1
    assert checked > 0


def test_the_escape_forest_numbers_each_subtree_as_an_interval():
    topo, failed = failure_map([4, 4, 2], 1, 3)
    depth, pre, end = failed.escape_forest()
    assert sorted(pre.tolist()) == list(range(topo.num_routers))
    label = failed.components()
    for r in range(topo.num_routers):
        below = {v for v in range(topo.num_routers) if pre[r] <= pre[v] < end[r]}
        # a subtree stays in its component, and each router below is one level deeper than a neighbour
        assert {int(label[v]) for v in below} == {int(label[r])}
        for v in below - {r}:
            assert any(q >= 0 and depth[q] == depth[v] - 1 and pre[r] <= pre[q] < end[r] for q in failed.port_peer[v])


@pytest.mark.parametrize("cls, dims", [(Torus, [4, 4, 2]), (Gemini, [4, 3, 4]), (BlueGeneQ, [3, 2, 2, 3, 2])])
@pytest.mark.parametrize("routing", ["dor", "adaptive"])
def test_saturation_with_failures_conserves_packets_and_drains(cls, dims, routing):
    topo = cls(dims, **LINK, **cls.fixed)
    failed = next(f for f in (apply_failures(topo, FailureSpec(0.15, "all", seed)) for seed in range(50))
                  if not len(f.unroutable_pairs()))
    net, sim = saturate(failed, routing)
    assert net.routing.num_vcs == (5 if routing == "dor" else 2 * sum(k > 1 for k in dims) + 5)
    assert_conserved(net, sim)


def topology_json(capsys, *argv):
    assert main(["topology", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_topology_reports_failed_links_and_the_pairs_cut_apart(capsys):
    out = topology_json(capsys, "torus-16x16x16", "--fail-links", "5%")
    assert out["links_failed"] == round(0.05 * 3 * 4096) and out["links"] == 3 * 4096 - out["links_failed"]
    assert out["unroutable_pairs"] == 0 and "seed 0" in out["failures"]
    cut = topology_json(capsys, "torus-16x16x16", "--set", "topology.dims=[4,4,2]", "--fail-links", "45%",
                        "--fail-seed", "1")
    assert cut["unroutable_pairs"] > 0 and cut["unroutable_examples"]
    for preset in ("hopper", "bgq-midplane"):
        assert topology_json(capsys, preset, "--fail-links", "5%")["links_failed"] > 0


def traffic(capsys, *flags):
    assert main(["traffic", "torus-16x16x16", "--set", "topology.dims=[4,4,4]", "--load", "0.3", "--warmup", "5e-7",
                 "--time", "1e-6", "--json", *flags]) == 0
    out = json.loads(capsys.readouterr().out)
    out.pop("provenance", None)                         # the command line and wall time: not results
    return out


def test_zero_percent_is_no_failure_one_seed_one_result_and_cut_pairs_refuse(capsys):
    assert traffic(capsys) == traffic(capsys, "--fail-links", "0%")
    once = traffic(capsys, "--fail-links", "10%", "--fail-seed", "2")
    assert once == traffic(capsys, "--set", "network.fail_links=0.1", "--set", "network.fail_seed=2")
    assert once["packets"] > 0
    assert traffic(capsys, "--fail-links", "10%", "--fail-seed", "2", "--routing", "adaptive")["packets"] > 0
    status = main(["traffic", "torus-16x16x16", "--set", "topology.dims=[4,4,2]", "--load", "0.1",
                   "--fail-links", "45%", "--fail-seed", "1"])
    err = capsys.readouterr().err.strip()
    assert status == 2 and err.count("\n") == 0 and "without a legal path for routing 'dor'" in err, err


@pytest.mark.mpiexec
@pytest.mark.parametrize("routing", ["dor", "adaptive"])
def test_a_parallel_run_with_failed_links_prints_the_serial_json(routing):
    """Detour plans and escape state travel with the packets between simulation processes."""
    from test_jobs_parallel import _mpiexec, same_bytes
    cmd = [sys.executable, "-m", "ppt.cli.main", "traffic", "torus-16x16x16", "--set", "topology.dims=[4,4,4]",
           "--fail-links", "15%", "--routing", routing, "--load", "0.5", "--warmup", "5e-7", "--time", "1e-6", "--json"]
    env = dict(os.environ, PPT_QUIET="1")
    serial = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    parallel = subprocess.run([_mpiexec(), "-n", "2", *cmd], capture_output=True, text=True, env=env, timeout=300)
    assert serial.returncode == 0 and parallel.returncode == 0, serial.stderr + parallel.stderr
    assert json.loads(serial.stdout)["packets"] > 0
    assert same_bytes(parallel.stdout) == same_bytes(serial.stdout)

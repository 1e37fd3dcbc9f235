"""Failure-aware rail choice on planes with their own failure maps: the per-plane table of legal path
lengths against brute force, the planes packets take (legal, and among the shortest with
rail_policy=shortest), pairs only one plane serves, the error for a pair no plane serves, and bad input."""
import random
import re
from collections import deque

import numpy as np
import pytest

from ppt.cli.main import main
from ppt.errors import ConfigError
from ppt.interconnects.topologies.dragonfly import DragonflyTopology
from ppt.interconnects.topologies.failures import FailureSpec, apply_failures
from ppt.interconnects.topologies.megafly import MegaflyTopology
from ppt.interconnects.networks.packetnet import PacketNetwork
from ppt.interconnects.topologies.planes import Planes
from ppt.interconnects.topologies.railpick import DETOUR, NONE
from ppt.interconnects.topologies.topology import LinkClass
from ppt.drivers.traffic import TrafficGenerator
from network_checks import assert_conserved
from test_failures import valiant_rescues

LINK = LinkClass("link", 1e9, 1e-7)
PAYLOAD_B = 64
PACKETS = 5                                 # packets per test message: ties spread over both planes


def small_topology(seed):
    """A small dragonfly or Megafly (by ``seed``) and a random share of its links failed (plane 0's map)."""
    rand = random.Random(seed)
    if seed % 2:
        topo = MegaflyTopology(3, 3, 2, 2, rand.choice([4, 5, 7]), LINK, LINK, LINK, 0.0)
    else:
        topo = DragonflyTopology(rand.choice([1, 2]), 4, 2, rand.choice([5, 7, 9]), LINK, LINK, LINK, 0.0)
    return topo, apply_failures(topo, FailureSpec(rand.choice([0.05, 0.1, 0.2]), "all", seed))


def min_legal_hops(failed, x):
    """Brute force: ``{router: fewest hops}`` of the walks from router ``x`` over surviving links that fit
    MIN's two phases of at most L local hops (a global hop ends a phase), by breadth-first search over
    (router, phase, local hops in the phase)."""
    a, L = failed.routers_per_group, failed.local_diameter
    depth, best = {(x, 0, 0): 0}, {x: 0}
    todo = deque(depth)
    while todo:
        state = todo.popleft()
        r, f, l = state
        for q in failed.port_peer[r]:
            if q < 0:
                continue
            if q // a != r // a:
                after = [(q, f + 1, 0)] if f < 1 else []
            else:
                after = ([(q, f, l + 1)] if l < L else []) + ([(q, f + 1, 1)] if f < 1 else [])
            for nxt in after:
                if nxt not in depth:
                    depth[nxt] = depth[state] + 1
                    best.setdefault(int(q), depth[nxt])
                    todo.append(nxt)
    return best


def brute_table(topo, plane_topologies, valiant):
    """``{(x, y): [value per plane]}`` over router pairs holding nodes, as railpick.plane_hops should give."""
    holds = sorted(set(topo.node_router.tolist()))
    a = topo.routers_per_group
    table = {}
    for k, failed in enumerate(plane_topologies):
        for x in holds:
            reach = min_legal_hops(failed, x)
            for y in holds:
                if y in reach:
                    value = reach[y]
                elif valiant and x // a != y // a and valiant_rescues(topo, failed, x, y):
                    value = DETOUR
                else:
                    value = NONE
                table.setdefault((x, y), []).append(value)
    return table


def served_maps(routing, count, need_one_plane=False):
    """``(topo, failed)`` of seeds 0, 1, ... whose two planes serve every pair for ``routing`` (some pair
    by one plane only, if ``need_one_plane``), ``count`` of them."""
    found = []
    for seed in range(400):
        topo, failed = small_topology(seed)
        if failed is topo:
            continue
        fabric = Planes(failed, 2)
        try:
            fabric.plane_hops(routing)
        except ConfigError:
            continue
        spec = topo.routings[routing]
        if need_one_plane and not any(len(t.unroutable_pairs(spec)) for t in fabric.plane_topologies):
            continue
        found.append((topo, failed))
        if len(found) == count:
            return found
    raise AssertionError("too few failure maps")


@pytest.mark.parametrize("routing", ["min", "ugal"])
def test_plane_table_is_each_planes_shortest_legal_path_by_brute_force(routing):
    kinds = set()
    for topo, failed in served_maps(routing, 8):
        fabric = Planes(failed, 2)
        table = fabric.plane_hops(routing)
        for (x, y), values in brute_table(topo, fabric.plane_topologies, topo.routings[routing].valiant).items():
            assert table[x, y].tolist() == values, (topo.kind, x, y)
        kinds.add(topo.kind)
    assert kinds == {"dragonfly", "megafly"}


def planes_taken(net, sim, pairs):
    """Send one ``PACKETS``-packet message per node pair (each destination once); the set of planes
    that carried each pair's packets, read off the destination's terminal port in every plane."""
    for src, dst in pairs:
        net.nic(sim, src).send_message(dst, PACKETS * PAYLOAD_B, None)
        net.nic(sim, dst)
    sim.run()
    sent = net.core.port_bytes().reshape(net.topo.num_routers, net.topo.radix)
    topo = net.topo
    return {(src, dst): {k for k in range(2) if sent[topo.node_router[dst] + k, topo.node_port[dst]]}
            for src, dst in pairs}


@pytest.mark.parametrize("routing", ["min", "ugal"])
def test_shortest_sends_every_pair_over_its_legal_planes_with_the_fewest_hops(routing):
    """Every pair's packets take exactly the planes whose legal path is shortest (ties: both, in turn);
    over the maps some pairs have one shortest plane and some a plane without a legal path."""
    seen = {"one": 0, "tie": 0, "unserved plane": 0}
    for index, (topo, failed) in enumerate(served_maps(routing, 6)):
        cfg = {"routing": routing, "packet": {"header_B": 16, "max_payload_B": PAYLOAD_B}, "nic_bandwidth_Bps": 1e9,
               "planes": 2, "rail_policy": "shortest"}
        net = PacketNetwork(failed, cfg, seed=index)
        sim = net.simulation(comm=None)
        table = net.plane_hops
        rand = np.random.default_rng(index)
        dst = rand.permutation(topo.num_nodes)
        pairs = [(s, int(d)) for s, d in enumerate(dst) if s != d]
        for (src, dst), taken in planes_taken(net, sim, pairs).items():
            hops = table[topo.node_router[src], topo.node_router[dst]]
            shortest = {k for k in range(2) if hops[k] == hops.min()}
            assert hops.min() != NONE and taken == shortest, (topo.kind, src, dst, hops)
            seen["one" if len(shortest) == 1 else "tie"] += 1
            seen["unserved plane"] += NONE in hops
    assert all(seen.values()), seen


def test_shortest_without_failures_is_round_robin_byte_for_byte():
    topo = DragonflyTopology(2, 4, 2, 5, LINK, LINK, LINK, 0.0)
    runs = []
    for policy in ("round-robin", "shortest"):
        cfg = {"routing": "ugal", "packet": {"header_B": 16, "max_payload_B": PAYLOAD_B}, "nic_bandwidth_Bps": 1e9,
               "vc_buffer_B": 2 * 80, "planes": 2, "rail_policy": policy}
        net = PacketNetwork(topo, cfg, seed=1)
        sim = net.simulation(comm=None)
        TrafficGenerator(net, "ur", 0.7, stop_s=2e-6).attach(net)
        sim.run()
        assert net.plane_hops is None
        runs.append((net.counters(), net.core.port_bytes().tolist()))
    assert runs[0] == runs[1]


@pytest.mark.parametrize("policy", ["round-robin", "random", "congestion"])
def test_the_plane_table_leaves_existing_policies_unchanged_where_every_plane_serves_every_pair(policy):
    topo, failed = next((t, f) for t, f in served_maps("ugal", 20) if not any(
        len(p.unroutable_pairs(t.routings["ugal"])) for p in Planes(f, 2).plane_topologies))
    runs = []
    for table in (True, False):
        cfg = {"routing": "ugal", "packet": {"header_B": 16, "max_payload_B": PAYLOAD_B}, "nic_bandwidth_Bps": 1e9,
               "vc_buffer_B": 2 * 80, "planes": 2, "rail_policy": policy}
        net = PacketNetwork(failed, cfg, seed=1)
        if not table:
            net.plane_hops = None
        sim = net.simulation(comm=None)
        TrafficGenerator(net, "ur", 0.7, stop_s=2e-6).attach(net)
        sim.run()
        runs.append((net.counters(), net.core.port_bytes().tolist()))
    assert runs[0] == runs[1]


@pytest.mark.parametrize("policy", ["round-robin", "random", "congestion", "shortest"])
def test_pairs_only_one_plane_serves_run_and_conserve_packets(policy):
    """MIN over maps where a plane lacks a legal path for some pair (an error before): saturated
    traffic delivers every packet once, never over a failed link."""
    for topo, failed in served_maps("min", 2, need_one_plane=True):
        cfg = {"routing": "min", "packet": {"header_B": 16, "max_payload_B": PAYLOAD_B, "response_B": 16},
               "nic_bandwidth_Bps": 1e9, "vc_buffer_B": 2 * 80, "planes": 2, "rail_policy": policy}
        net = PacketNetwork(failed, cfg, seed=2)
        assert (net.plane_hops == NONE).any()
        sim = net.simulation(comm=None)
        TrafficGenerator(net, "ur", 1.0, stop_s=3e-6).attach(net)
        sim.run()
        assert_conserved(net, sim)
        unused = net.topo.port_class.ravel() < 0
        assert not net.core.port_bytes()[unused].any()


def test_a_pair_no_plane_serves_is_named_before_the_run_and_truly_has_no_legal_path():
    topo = DragonflyTopology(1, 4, 1, 5, LINK, LINK, LINK, 0.0)        # one global link per group pair
    failed = apply_failures(topo, FailureSpec(0.4, "global", 6))
    fabric = Planes(failed, 2)
    with pytest.raises(ConfigError) as error:
        fabric.routing("min")
    message = str(error.value)
    assert "seed 6" in message and "in any of the 2 planes for routing 'min'" in message
    x, y = map(int, re.search(r"router (\d+) -> router (\d+)", message).groups())
    assert all(y not in min_legal_hops(t, x) for t in fabric.plane_topologies)


def test_the_cli_refuses_a_map_no_plane_survives_in_one_line(capsys):
    argv = ["traffic", "dragonfly-booksim", "--routing", "min", "--load", "0.3", "--set", "network.planes=2",
            "--set", "network.rail_policy=shortest", "--fail-links", "5%", "--fail-seed", "2"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert re.search(r"seed 2, each plane its own draw\) leave router \d+ -> router \d+ \(and \d+ more pairs\) "
                     r"without a legal path in any of the 2 planes", err)
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("value", ["Shortest", "shortest-path", "2"])
def test_a_bad_rail_policy_is_one_line_and_exit_2(capsys, value):
    assert main(["traffic", "darter", "--load", "0.5", "--set", "network.planes=2",
                 "--set", f"network.rail_policy={value}"]) == 2
    err = capsys.readouterr().err
    assert f"network.rail_policy '{value}' is not one of: random, round-robin, congestion, dedicated, shortest" in err
    assert err.count("\n") == 1 and "Traceback" not in err

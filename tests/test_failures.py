"""Link failures: the failure map, legal-path routing checked against brute force, runs and bad input."""
import json
import random
from collections import deque
from pathlib import Path

import numpy as np
import pytest

from ppt.cli.main import main
from ppt.errors import ConfigError
from ppt.interconnects.topologies.aries import AriesTopology
from ppt.interconnects.topologies.dragonfly import DragonflyTopology
from ppt.interconnects.topologies.failures import FailureSpec, apply_failures, router_links
from ppt.interconnects.networks.packetnet import PacketNetwork
from ppt.interconnects.topologies.topology import LinkClass, Routing, channels
from ppt.drivers.traffic import TrafficGenerator
from network_checks import assert_conserved, routed_samples

LINK = LinkClass("link", 1e9, 1e-7)
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
MAPS = 40                                  # random failure maps per property


def dragonfly(p=1, a=4, h=2, g=5):
    return DragonflyTopology(p, a, h, g, LINK, LINK, LINK, 0.0)


def random_map(seed):
    """A small dragonfly and a failure map drawn from ``seed``."""
    rand = random.Random(seed)
    topo = dragonfly(p=rand.choice([1, 2]), g=rand.choice([5, 7, 9]))
    spec = FailureSpec(rand.choice([0.05, 0.1, 0.2, 0.3]), rand.choice(["all", "local", "global"]), seed)
    return topo, apply_failures(topo, spec)


def legal_reach(topo, failed, x, phases):
    """Routers reachable from router ``x`` by brute force: every walk over surviving links whose group
    visits fit ``phases`` phases of at most L local hops (a global hop ends a phase)."""
    a, L = topo.routers_per_group, topo.local_diameter
    seen = {(x, 0, 0)}
    todo = deque(seen)
    while todo:
        r, f, l = todo.popleft()
        for q in failed.port_peer[r]:
            if q < 0:
                continue
            if q // a != r // a:
                nxt = [(q, f + 1, 0)] if f + 1 < phases else []
            else:
                nxt = ([(q, f, l + 1)] if l < L else []) + ([(q, f + 1, 1)] if f + 1 < phases else [])
            for state in nxt:
                if state not in seen:
                    seen.add(state)
                    todo.append(state)
    return {r for r, _, _ in seen}


def assert_legal(topo, failed, routing, taken):
    """Every channel survives, VC ranks (VC, local before global) rise strictly, global hops fit."""
    a, L = topo.routers_per_group, topo.local_diameter
    rank, globals_ = (-1, 1), 0
    for router, port, vc in taken[:-1]:
        peer = failed.port_peer[router, port]
        assert peer >= 0 and topo.port_peer[router, port] == peer, "crossed a failed link"
        is_global = peer // a != router // a
        globals_ += is_global
        assert (vc, is_global) > rank and 0 <= vc < routing.num_vcs
        rank = (vc, is_global)
    assert globals_ <= routing.num_vcs // L - 1


def test_the_map_is_deterministic_counts_its_class_and_fails_both_directions():
    topo = dragonfly(a=8, h=4, g=9)
    spec = FailureSpec(0.25, "global", 7)
    one, two = apply_failures(topo, spec), apply_failures(topo, spec)
    assert np.array_equal(one.failed_links, two.failed_links)
    glob = router_links(topo)
    glob = glob[topo.global_ports()[glob[:, 0], glob[:, 1]]]
    assert len(one.failed_links) == round(0.25 * len(glob))
    assert topo.global_ports()[one.failed_links[:, 0], one.failed_links[:, 1]].all()
    assert one.num_links() == topo.num_links() - len(one.failed_links)
    for r, p in one.failed_links:
        q, qp = topo.port_peer[r, p], topo.port_peer_port[r, p]
        assert one.port_peer[r, p] == one.port_peer[q, qp] == -1
    assert not np.array_equal(apply_failures(topo, FailureSpec(0.25, "global", 8)).failed_links, one.failed_links)


def test_unroutable_pairs_are_exactly_those_brute_force_finds_without_a_legal_minimal_path():
    for seed in range(MAPS):
        topo, failed = random_map(seed)
        if failed is topo:
            continue
        holds = sorted(set(topo.node_router.tolist()))
        expected = {(x, y) for x in holds for y in sorted(set(holds) - legal_reach(topo, failed, x, 2))}
        assert set(map(tuple, failed.unroutable_pairs().tolist())) == expected, seed


def local_hops(failed, x, y):
    """Surviving local hops from router x to router y of its group, by breadth-first search (None if cut off)."""
    a = failed.routers_per_group
    seen, todo = {x: 0}, deque([x])
    while todo:
        r = todo.popleft()
        for q in failed.port_peer[r]:
            if q >= 0 and q // a == r // a and q not in seen:
                seen[q] = seen[r] + 1
                todo.append(q)
    return seen.get(y)


def valiant_rescues(topo, failed, x, y):
    """Brute force: a path x -> (<= L local) -> global into a third group -> (<= L local) -> global into
    y's group -> (<= L local) -> y over surviving links."""
    a, L = topo.routers_per_group, topo.local_diameter
    fits = lambda u, v: (h := local_hops(failed, u, v)) is not None and h <= L       # noqa: E731
    links = [(r, q) for r in range(failed.num_routers) for q in failed.port_peer[r] if q >= 0 and q // a != r // a]
    return any(u // a == x // a and q // a not in (x // a, y // a) and fits(x, u)
               and any(v // a == q // a and w // a == y // a and fits(q, v) and fits(w, y) for v, w in links)
               for u, q in links)


def test_valiant_routings_serve_exactly_the_pairs_a_brute_force_valiant_path_rescues():
    rescued = 0
    for seed in range(MAPS):
        topo, failed = random_map(seed)
        if failed is topo:
            continue
        no_min = set(map(tuple, failed.unroutable_pairs().tolist()))
        for name in ("val", "ugal", "par"):
            left = set(map(tuple, failed.unroutable_pairs(failed.routings[name]).tolist()))
            expected = {(x, y) for x, y in no_min if x // topo.routers_per_group == y // topo.routers_per_group
                        or not valiant_rescues(topo, failed, x, y)}
            assert left == expected, (seed, name)
        rescued += len(no_min) - len(left)
    assert rescued > 0                                  # the maps do exercise the rescue


@pytest.mark.parametrize("name", ["min", "val", "ugal", "par"])
def test_every_routed_path_is_legal_and_uses_surviving_links_only(name):
    for seed in range(MAPS):
        topo, failed = random_map(seed)
        if failed is topo:
            continue
        for routing, _, dst, _, taken in routed_samples(topo, failed, name, seed):
            assert_legal(topo, failed, routing, taken)
            assert taken[-1][0] == topo.node_router[dst]


def test_aries_routes_stay_legal_with_failed_green_black_and_blue_links():
    topo = AriesTopology(3, LINK, LINK, LINK, LINK, 1e-7)
    failed = apply_failures(topo, FailureSpec(0.1, "all", 2))
    bad = set(map(tuple, failed.unroutable_pairs().tolist()))
    rand = random.Random(2)
    for name in ("min", "ugal"):
        routing = Routing(failed, failed.routings[name], seed=1)
        for uid in range(300):
            src, dst = rand.randrange(topo.num_nodes), rand.randrange(topo.num_nodes)
            if (topo.node_router[src], topo.node_router[dst]) not in bad:
                assert_legal(topo, failed, routing, channels(failed, routing, src, dst, uid))


def test_a_routing_refuses_a_map_that_leaves_a_pair_without_a_legal_path():
    topo = dragonfly(a=4, h=1, g=5)                     # one global link per group pair
    failed = apply_failures(topo, FailureSpec(0.5, "global", 1))
    pair = failed.unroutable_pairs()[0]
    with pytest.raises(ConfigError, match=f"seed 1\\) leave router {pair[0]} -> router {pair[1]} "):
        failed.routing("min")


def test_a_large_dragonfly_checks_every_pair_quickly():
    import time
    topo = DragonflyTopology(9, 18, 10, 19, LINK, LINK, LINK, 0.0)     # 3,078 nodes, 342 routers
    began = time.perf_counter()
    failed = apply_failures(topo, FailureSpec(0.2, "all", 3))
    failed.unroutable_pairs()
    assert time.perf_counter() - began < 1.0


def saturate(topo, routing):
    """Uniform traffic at full load for 3 us into two-packet VC buffers, then drained."""
    cfg = {"routing": routing, "packet": {"header_B": 16, "max_payload_B": 64}, "nic_bandwidth_Bps": 1e9,
           "vc_buffer_B": 2 * 80}
    net = PacketNetwork(topo, cfg, seed=3)
    sim = net.simulation(comm=None)
    TrafficGenerator(net, "ur", 1.0, stop_s=3e-6).attach(net)
    sim.run()
    return net, sim


@pytest.mark.parametrize("routing", ["min", "ugal", "par"])
def test_saturation_with_failures_conserves_packets_and_drains(routing):
    topo = dragonfly(p=2, a=4, h=2, g=5)                # two global links per group pair
    failed = next(f for f in (apply_failures(topo, FailureSpec(0.1, "all", seed)) for seed in range(50))
                  if f is not topo and not len(f.unroutable_pairs()))
    assert_conserved(*saturate(failed, routing))


def prediction(text: str) -> dict:
    """A --json result without its provenance (command line, preset hash, wall time differ between these runs)."""
    result = json.loads(text)
    result.pop("provenance")
    return result


def traffic(capsys, *flags):
    """``ppt traffic --json`` on the BookSim dragonfly cut to 9 groups (four global links per group pair)."""
    assert main(["traffic", "dragonfly-booksim", "--set", "topology.g=9", "--load", "0.3", "--warmup", "1e-6", "--time", "2e-6",
                 "--json", *flags]) == 0
    return prediction(capsys.readouterr().out)


def test_no_failures_and_zero_percent_give_identical_results_and_one_seed_one_result(capsys):
    assert traffic(capsys) == traffic(capsys, "--fail-links", "0%", "--fail-seed", "4")
    once = traffic(capsys, "--fail-links", "3%", "--fail-class", "local", "--fail-seed", "4")
    assert once == traffic(capsys, "--set", "network.fail_links=0.03", "--set", "network.fail_class=local",
                           "--set", "network.fail_seed=4")
    assert once["packets"] > 0


def test_topology_reports_failed_links_and_pairs_without_a_legal_path(capsys):
    assert main(["topology", "dragonfly-booksim", "--fail-links", "5%", "--fail-class", "global",
                 "--fail-seed", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["links_failed"] == round(0.05 * 33 * 32 / 2) and out["links"] == 1452 - out["links_failed"]
    assert out["unroutable_pairs"] > 0 and "seed 3" in out["failures"]


def test_replay_takes_the_failure_flags():
    from ppt.cli.main import build_parser
    args = build_parser().parse_args(["replay", "t", "--system", "edison", "--fail-links", "5%", "--fail-class",
                                      "global", "--fail-seed", "2", "--fail-file", "f"])
    assert (args.fail_links, args.fail_class, args.fail_seed, args.fail_file) == ("5%", "global", 2, "f")


def test_a_failure_file_names_links_by_router_and_port(tmp_path, capsys):
    path = tmp_path / "down.txt"
    path.write_text("# two local links and a global one\n0 0\n1 2  # second\n5 8\n")
    assert main(["topology", "dragonfly-booksim", "--fail-file", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["links_failed"] == 3


@pytest.mark.parametrize("flags, message", [
    (["--fail-links", "100%"], "fail_links must be a share of links in [0, 100%)"),
    (["--fail-links=-1%"], "fail_links must be a share"),
    (["--fail-links", "lots"], "fail_links must be a share"),
    (["--set", "network.fail_class=green"], "fail_class = 'green' is unknown"),
    (["--fail-file", "FILE:0 99"], "router 0 port 99 is not a router-to-router link"),
    (["--fail-file", "FILE:0 12"], "router 0 port 12 is not a router-to-router link"),
    (["--fail-file", "FILE:0 0\n1 0"], "names the link of line 1 again"),
    (["--fail-file", "FILE:0 x"], "give a failed link as 'ROUTER PORT'"),
    (["--fail-file", "FILE:0 1", "--fail-links", "2%"], "keep one"),
    (["--fail-links", "40%", "--fail-class", "global"], "without a legal path for routing 'min'"),
])
@pytest.mark.parametrize("command", ["traffic", "topology", "run"])
def test_bad_failure_input_is_one_line_and_exit_2_with_nothing_written(tmp_path, capsys, flags, message, command):
    flags = list(flags)
    for i, flag in enumerate(flags):
        if flag.startswith("FILE:"):
            path = tmp_path / "links.txt"
            path.write_text(flag[5:] + "\n")
            flags[i] = str(path)
    if command == "topology" and "routing" in message:
        return                                       # topology reports such pairs instead
    samples = tmp_path / "s.npz"
    argv = {"traffic": ["traffic", "dragonfly-booksim", "--load", "0.1", "--sample-every", "1e-7",
                        "--samples", str(samples)],
            "topology": ["topology", "dragonfly-booksim"],
            "run": ["run", str(EXAMPLES / "hello_allreduce.py"), "--system", "dragonfly-booksim", "--ranks", "2",
                    "--sample-every", "1e-7", "--samples", str(samples)]}[command]
    status = main(argv + flags)
    err = capsys.readouterr().err.strip()
    assert status == 2 and err.count("\n") == 0 and message in err, err
    assert not samples.exists()

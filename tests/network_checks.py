"""Checks shared by the packet-network tests: conservation after a saturated run, and routed paths
sampled over a failure map."""
import random

from ppt.interconnects.topologies.topology import Routing, channels


def assert_conserved(net, sim, least: int = 100) -> None:
    """More than ``least`` packets were injected and every one was delivered exactly once (the
    multiset of uids delivered is the one injected), the network drained, and queues did build."""
    counters = net.counters()
    assert counters["injected"] > least
    assert counters["delivered"] == counters["injected"]
    assert counters["delivered_uid_hash"] == counters["injected_uid_hash"]
    assert counters["in_flight"] == 0 and sim.peek() == float("inf")
    assert net.stats(sim)["links"]["max_queue_B"] > 0


def routed_samples(topo, failed, name: str, seed: int, count: int = 60):
    """``(routing, src, dst, uid, channels)`` of ``count`` random node pairs routed by ``name`` over ``failed`` (pairs
    the failures leave without a legal path skipped); random port loads steer adaptive routings
    off their minimal paths."""
    routing = Routing(failed, failed.routings[name], seed=seed)
    bad = set(map(tuple, failed.unroutable_pairs(failed.routings[name]).tolist()))
    rand = random.Random(seed)
    for uid in range(count):
        src, dst = rand.randrange(topo.num_nodes), rand.randrange(topo.num_nodes)
        if (topo.node_router[src], topo.node_router[dst]) in bad:
            continue
        busy = [rand.choice([0.0, 1e4]) for _ in range(topo.radix)]
        yield routing, src, dst, uid, channels(failed, routing, src, dst, uid, occupancy=lambda hops, router: busy)

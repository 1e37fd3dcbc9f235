"""Synthetic traffic: open-loop packet sources and the accepted-load measurement.

Every node injects single-packet messages of ``packet_B`` wire bytes at an
offered load given as a fraction of its injection bandwidth, with exponential
(Poisson) or Bernoulli (slotted) inter-arrival times.  Packets are created
lazily when the NIC can take them, so an overloaded source costs no memory;
a packet's latency counts from its creation (source queueing included).
Random choices hash (seed, node, packet count), so runs are deterministic and
serial and parallel runs agree.
"""
from __future__ import annotations

import math

from ppt.engine.parallel import AUTO
from ppt.errors import ConfigError
from ppt.interconnects.packetnet import PACKET_BITS, Message
from ppt.interconnects.stats import ATTO
from ppt.interconnects.topology import Packet, mix64

_UNIT = 1.0 / (1 << 64)


def _uniform(x: int) -> float:
    """A float in (0, 1] from a 64-bit hash."""
    return (x + 1) * _UNIT


class Patterns:
    """Destination functions ``dest(node, rand) -> node`` for a topology."""

    NAMES = ("ur", "nn", "bitcomp", "transpose", "tornado", "wc")

    def __init__(self, topology, name: str):
        self.topo = topology
        self.n = int(topology.num_nodes)
        if name not in self.NAMES:
            raise ConfigError(f"unknown traffic pattern {name!r}; choose one of: {', '.join(self.NAMES)}")
        if name == "wc" and not hasattr(topology, "worst_case_destination"):
            raise ConfigError(f"pattern 'wc' is not defined for {topology.kind}; use ur, nn, bitcomp, transpose or tornado")
        if name == "transpose" and math.isqrt(self.n) ** 2 != self.n:
            raise ConfigError(f"pattern 'transpose' needs a square node count, got {self.n}")
        self.name = name
        self.dest = getattr(self, "_" + name)

    def _ur(self, node, rand):
        dst = rand % (self.n - 1)
        return dst + (dst >= node)

    def _nn(self, node, rand):
        """A node on a random neighbouring router (same slot where possible)."""
        topo = self.topo
        router = int(topo.node_router[node])
        peers = [int(q) for q in topo.port_peer[router] if q >= 0]
        target = peers[rand % len(peers)]
        local = [int(x) for x in topo.nodes_of_router(target)]
        if not local:
            return self._ur(node, rand >> 20)
        return local[node % len(local)]

    def _bitcomp(self, node, rand):
        return self.n - 1 - node

    def _transpose(self, node, rand):
        side = math.isqrt(self.n)
        row, col = divmod(node, side)
        return col * side + row

    def _tornado(self, node, rand):
        return (node + (self.n + 1) // 2 - 1) % self.n

    def _wc(self, node, rand):
        return self.topo.worst_case_destination(node, rand)


class TrafficSource:
    """Packet source of one NIC (``nic.source``); ``next_s`` is the next creation time."""

    __slots__ = ("node", "gen", "count", "next_s", "stop_s")

    def __init__(self, gen, node: int):
        self.gen = gen
        self.node = node
        self.count = 0
        self.stop_s = gen.stop_s
        self.next_s = 0.0
        self._advance()

    def _advance(self):
        gen = self.gen
        h = mix64(gen.seed_key ^ (self.node << 24) ^ self.count)
        if gen.process == "bernoulli":
            slots = 1
            while _uniform(h) > gen.load:
                slots += 1
                h = mix64(h)
            self.next_s += slots * gen.slot_s
        else:
            self.next_s += -math.log(_uniform(h)) * gen.mean_gap_s
        if self.next_s >= self.stop_s:
            self.next_s = math.inf

    def take(self, nic, now):
        """The next packet if it has been created by ``now``, else None."""
        if self.next_s > now:
            return None
        gen = self.gen
        created = self.next_s
        self.count += 1
        rand = mix64(gen.seed_key * 31 + (self.node << 32) + self.count)
        dst = gen.patterns.dest(self.node, rand)
        if dst == self.node:          # fixed points of permutations send nothing
            self._advance()
            return self.take(nic, now)
        uid = ((self.node << 32) | (1 << 31) | self.count) << PACKET_BITS
        msg = Message(uid, self.node, dst, gen.payload_B, 1, None, None)
        pkt = Packet(uid, self.node, dst, gen.packet_B, gen.payload_B, msg, created)
        nic.net.routing.inject(pkt)
        self._advance()
        return pkt


class TrafficGenerator:
    """Attach sources to every NIC of a built packet network.

    ``load``: offered fraction of each node's injection bandwidth (0, 1];
    ``process``: "exponential" or "bernoulli"; ``stop_s``: no packets created after it.
    """

    def __init__(self, net, pattern: str, load: float, process: str = "exponential",
                 seed: int = 0, stop_s: float = math.inf):
        if not 0.0 < load <= 1.0:
            raise ConfigError(f"--load must be in (0, 1], got {load}")
        if process not in ("exponential", "bernoulli"):
            raise ConfigError(f"unknown injection process {process!r}; choose exponential or bernoulli")
        self.patterns = Patterns(net.topo, pattern)
        self.load = load
        self.process = process
        self.seed_key = mix64(seed + 0x5EED)
        self.stop_s = stop_s
        self.payload_B = net.packetizer.max_payload_B
        self.packet_B = net.packetizer.size(self.payload_B)
        self.node_bw = net.injection_bandwidth_Bps
        self.slot_s = self.packet_B / self.node_bw
        self.mean_gap_s = self.slot_s / load

    def attach(self, net) -> None:
        for nic in net.nics:
            nic.source = TrafficSource(self, nic.node)
            nic.pump()


def run_traffic(machine, pattern: str, load: float, routing: str | None = None, warmup_s: float = 20e-6,
                time_s: float = 100e-6, process: str = "exponential", progress=None, comm=AUTO) -> dict | None:
    """Offered vs accepted load, latency and hops of one synthetic-traffic run (rank 0; None elsewhere).

    ``accepted_fraction`` = mean bytes/s delivered per node during the
    measurement window / node injection bandwidth.  ``router_traversals``
    (packets entering routers over the whole run, in flight or delivered) and
    ``run_s`` (wall seconds in the event loop) serve benchmarks.
    """
    import time
    from ppt.engine import Simulation
    from ppt.interconnects.packetnet import PacketNetwork
    if not warmup_s >= 0.0 or not time_s > 0.0:
        raise ConfigError(f"need --warmup >= 0 and --time > 0, got {warmup_s} and {time_s}")
    net = PacketNetwork(machine.topology, machine.preset["network"], seed=machine.seed, routing=routing)
    sim = Simulation(num_entities=net.num_entities, lookahead_s=net.lookahead_s, comm=comm)
    sim.progress = progress
    net.build(sim)
    TrafficGenerator(net, pattern, load, process, machine.seed, stop_s=warmup_s + time_s).attach(net)
    began = time.perf_counter()
    sim.run(until_s=warmup_s)
    before = net.counters.as_dict()
    sim.run(until_s=warmup_s + time_s)
    run_s = time.perf_counter() - began
    after = net.counters.as_dict()
    window = {k: after[k] - before[k] for k in ("delivered", "latency_sum_as", "hops_sum", "bytes_delivered",
                                                "injected")}
    window["router_traversals"] = net.router_traversals()
    window["run_s"] = run_s
    parts = sim.gather(window)
    events = sim.total_events()
    if parts is None:
        return None
    total = {k: sum(p[k] for p in parts) for k in window}
    total["run_s"] = max(p["run_s"] for p in parts)
    n = total["delivered"]
    return {"system": machine.name, "pattern": pattern, "routing": net.routing.name, "offered_load": load,
            "accepted_fraction": total["bytes_delivered"] / (time_s * net.num_nodes * net.injection_bandwidth_Bps),
            "mean_latency_s": total["latency_sum_as"] / ATTO / n if n else 0.0,
            "mean_hops": total["hops_sum"] / n if n else 0.0, "packets": n,
            "packets_injected": total["injected"], "warmup_s": warmup_s, "time_s": time_s,
            "nodes": net.num_nodes, "events": events, "router_traversals": total["router_traversals"],
            "run_s": total["run_s"]}

"""Synthetic traffic: open-loop packet sources in the packet core, and the accepted-load measurement.

Every node injects single-packet messages of ``packet_B`` wire bytes at an
offered load given as a fraction of its injection bandwidth, with exponential
(Poisson) or Bernoulli (slotted) inter-arrival times; the sources run inside
the compiled core (``csrc/traffic.c``).  Packets are created lazily when the
NIC can take them, so an overloaded source costs no memory; a packet's
latency counts from its creation (source queueing included).  Random choices
hash (seed, node, packet count), so runs are deterministic and serial and
parallel runs agree.
"""
from __future__ import annotations

import math
import time

import numpy as np

from ppt.engine.parallel import AUTO
from ppt.errors import ConfigError
from ppt.interconnects.stats import ATTO
from ppt.interconnects.topology import mix64


class Patterns:
    """Destination functions ``dest(node, rand) -> node`` for a topology."""

    NAMES = ("ur", "nn", "bitcomp", "transpose", "tornado", "wc")

    def __init__(self, topology, name: str):
        self.topo = topology
        self.n = int(topology.num_nodes)
        if name not in self.NAMES:
            raise ConfigError(f"unknown traffic pattern {name!r}; choose one of: {', '.join(self.NAMES)}")
        if name == "wc" and not hasattr(topology, "worst_case_table"):
            raise ConfigError(f"pattern 'wc' is not defined for {topology.kind}; use ur, nn, bitcomp, transpose or tornado")
        if name == "transpose" and math.isqrt(self.n) ** 2 != self.n:
            raise ConfigError(f"pattern 'transpose' needs a square node count, got {self.n}")
        self.name = name

    def configure(self, cfg, keep: list) -> None:
        """Fill the pattern fields of a ``ppt_traffic_config_t`` (arrays kept alive in ``keep``)."""
        from ppt.interconnects.packetcore import ffi, lib
        topo = self.topo

        def c_array(values):
            data = np.ascontiguousarray(values, dtype=np.int32)
            keep.append(data)
            return ffi.cast("int32_t *", ffi.from_buffer(data))

        codes = {"ur": lib.PPT_PATTERN_UR, "nn": lib.PPT_PATTERN_NN, "bitcomp": lib.PPT_PATTERN_BITCOMP,
                 "transpose": lib.PPT_PATTERN_TRANSPOSE, "tornado": lib.PPT_PATTERN_TORNADO,
                 "wc": lib.PPT_PATTERN_TABLE}
        cfg.pattern = codes[self.name]
        if self.name == "wc":
            first, count = topo.worst_case_table()
            cfg.table_first, cfg.table_count = c_array(first), c_array(count)
        if self.name == "nn":
            order = np.argsort(topo.node_router, kind="stable")
            starts = np.searchsorted(topo.node_router[order], np.arange(topo.num_routers + 1))
            cfg.router_nodes_start, cfg.router_nodes = c_array(starts), c_array(order)


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
        """Start a source on every NIC of this rank's core."""
        from ppt.interconnects.packetcore import ffi
        cfg = ffi.new("ppt_traffic_config_t *")
        keep = []
        self.patterns.configure(cfg, keep)
        cfg.bernoulli = self.process == "bernoulli"
        cfg.load = self.load
        cfg.seed_key = self.seed_key
        cfg.stop_s = self.stop_s
        cfg.slot_s, cfg.mean_gap_s = self.slot_s, self.mean_gap_s
        cfg.payload_B, cfg.packet_B = self.payload_B, self.packet_B
        net.start_traffic(cfg, keep)


def run_traffic(machine, pattern: str, load: float, routing: str | None = None, warmup_s: float = 20e-6,
                time_s: float = 100e-6, process: str = "exponential", progress=None, comm=AUTO) -> dict | None:
    """Offered vs accepted load, latency and hops of one synthetic-traffic run (rank 0; None elsewhere).

    ``accepted_fraction`` = mean bytes/s delivered per node during the
    measurement window / node injection bandwidth.  ``router_traversals``
    (packets entering routers over the whole run, in flight or delivered),
    ``core_events``, ``queue_depth`` (mean length of the core's event queue)
    and ``run_s`` (wall seconds in the event loop) serve benchmarks; they are
    not part of the deterministic prediction.
    """
    from ppt.interconnects.packetnet import PacketNetwork
    if not (0.0 <= warmup_s < math.inf) or not (0.0 < time_s < math.inf):
        raise ConfigError(f"need a finite --warmup >= 0 and --time > 0, got {warmup_s} and {time_s}")
    net = PacketNetwork(machine.topology, machine.preset["network"], seed=machine.seed, routing=routing)
    sim = net.simulation(comm=comm, name="traffic", progress=progress)
    TrafficGenerator(net, pattern, load, process, machine.seed, stop_s=warmup_s + time_s).attach(net)
    began = time.perf_counter()
    sim.run(until_s=warmup_s)
    before = net.counters()
    sim.run(until_s=warmup_s + time_s)
    run_s = time.perf_counter() - began
    after = net.counters()
    window = {k: after[k] - before[k] for k in ("delivered", "latency_sum_as", "hops_sum", "bytes_delivered",
                                                "injected")}
    window["router_traversals"] = after["router_traversals"]
    window["core_events"] = after["events"]
    window["queue_depth_sum"] = after["queue_depth_sum"]
    window["run_s"] = run_s
    parts = sim.gather(window)
    events = sim.total_events()
    if parts is None:
        return None
    total = {k: sum(p[k] for p in parts) for k in window}
    total["run_s"] = max(p["run_s"] for p in parts)
    queue_depth = total.pop("queue_depth_sum") / max(1, total["core_events"])
    n = total["delivered"]
    return {"system": machine.name, "pattern": pattern, "routing": net.routing.name, "offered_load": load,
            "accepted_fraction": total["bytes_delivered"] / (time_s * net.num_nodes * net.injection_bandwidth_Bps),
            "mean_latency_s": total["latency_sum_as"] / ATTO / n if n else 0.0,
            "mean_hops": total["hops_sum"] / n if n else 0.0, "packets": n,
            "packets_injected": total["injected"], "warmup_s": warmup_s, "time_s": time_s,
            "nodes": net.num_nodes, "events": events, "router_traversals": total["router_traversals"],
            "run_s": total["run_s"], "core_events": total["core_events"], "queue_depth": queue_depth}

"""Synthetic traffic: open-loop packet sources in the packet core, and the accepted-load measurement.

Every node injects messages (by default single packets of the largest
payload) at an offered load given as a fraction of its injection bandwidth, with exponential
(Poisson) or Bernoulli (slotted) inter-arrival times; the sources run inside
the compiled core (``core/traffic.c``).  Packets are created lazily when the
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
from ppt.interconnects.networks.latency import Latencies
from ppt.interconnects.networks.links import link_report, local_load
from ppt.interconnects.networks.stats import ATTO
from ppt.interconnects.topologies.topology import mix64


class Patterns:
    """Destination functions ``dest(node, rand) -> node`` for a topology, among ``nodes`` (ascending node
    ids; None: every node): ur, bitcomp, transpose and tornado then act on a node's place in the list."""

    NAMES = ("ur", "nn", "bitcomp", "transpose", "tornado", "wc", "hotspot")
    #: Patterns defined by the topology's tables, so only on the whole machine.
    WHOLE_MACHINE = ("nn", "wc")

    def __init__(self, topology, name: str, nodes=None):
        self.topo = topology
        self.nodes = None if nodes is None else np.asarray(nodes, dtype=np.int32)
        self.n = int(topology.num_nodes) if nodes is None else len(self.nodes)
        if name not in self.NAMES:
            raise ConfigError(f"unknown traffic pattern {name!r}; choose one of: {', '.join(self.NAMES)}")
        if nodes is not None and name in self.WHOLE_MACHINE:
            raise ConfigError(f"pattern {name!r} is defined on the whole machine only; a job's traffic on its own "
                              f"nodes can be ur, bitcomp, transpose, tornado or hotspot")
        if self.n < 2:
            raise ConfigError(f"synthetic traffic needs at least 2 nodes, got {self.n}")
        if name == "wc":
            topology.worst_case_table()             # a ConfigError where the topology defines no worst case
        if name == "transpose" and math.isqrt(self.n) ** 2 != self.n:
            raise ConfigError(f"pattern 'transpose' needs a square node count, got {self.n}")
        self.name = name

    def senders(self) -> float:
        """Expected number of nodes whose arrivals become packets: an arrival whose destination is
        its own node (a fixed point of a permutation, as ``core/traffic.c`` computes them) sends nothing."""
        n, node = self.n, np.arange(self.n)
        if self.name in ("ur", "nn"):
            return float(n)
        if self.name == "hotspot":                 # every node but the first sends to the first
            return float(n - 1)
        if self.name == "wc":
            first, count = self.topo.worst_case_table()
            return float(n - np.sum(((first <= node) & (node < first + count)) / count))
        side = math.isqrt(n)
        dest = {"bitcomp": n - 1 - node, "transpose": (node % side) * side + node // side,
                "tornado": (node + (n + 1) // 2 - 1) % n}[self.name]
        return float(np.count_nonzero(dest != node))

    def configure(self, cfg, keep: list) -> None:
        """Fill the pattern fields of a ``ppt_traffic_config_t`` (arrays kept alive in ``keep``)."""
        from ppt.interconnects.core import ffi, lib
        topo = self.topo

        def c_array(values):
            data = np.ascontiguousarray(values, dtype=np.int32)
            keep.append(data)
            return ffi.cast("int32_t *", ffi.from_buffer(data))

        codes = {"ur": lib.PPT_PATTERN_UR, "nn": lib.PPT_PATTERN_NN, "bitcomp": lib.PPT_PATTERN_BITCOMP,
                 "transpose": lib.PPT_PATTERN_TRANSPOSE, "tornado": lib.PPT_PATTERN_TORNADO,
                 "wc": lib.PPT_PATTERN_TABLE, "hotspot": lib.PPT_PATTERN_HOTSPOT}
        cfg.pattern = codes[self.name]
        cfg.num_members = self.n
        if self.nodes is not None:
            cfg.members = c_array(self.nodes)
        if self.name == "wc":
            first, count = topo.worst_case_table()
            cfg.table_first, cfg.table_count = c_array(first), c_array(count)
        if self.name == "nn":
            order = np.argsort(topo.node_router, kind="stable")
            starts = np.searchsorted(topo.node_router[order], np.arange(topo.num_routers + 1))
            cfg.router_nodes_start, cfg.router_nodes = c_array(starts), c_array(order)


class TrafficGenerator:
    """Attach sources to the NICs of ``nodes`` (ascending; None: every node) of a built packet network.

    ``load``: offered fraction of each node's injection bandwidth (0, 1];
    ``process``: "exponential" or "bernoulli"; ``stop_s``: no packets created after it;
    ``message_B``: payload bytes per message (default: one packet's largest payload);
    ``traffic_class``: the class of its packets (network.traffic_classes).
    """

    def __init__(self, net, pattern: str, load: float, process: str = "exponential",
                 seed: int = 0, stop_s: float = math.inf, nodes=None, message_B: int | None = None,
                 traffic_class: int = 0):
        if not 0.0 < load <= 1.0:
            raise ConfigError(f"--load must be in (0, 1], got {load}")
        if not 0 <= traffic_class < net.classes.count:
            raise ConfigError(f"traffic class {traffic_class} does not exist: the network has "
                              f"{net.classes.count} (network.traffic_classes); classes count from 0")
        self.traffic_class = traffic_class
        if process not in ("exponential", "bernoulli"):
            raise ConfigError(f"unknown injection process {process!r}; choose exponential or bernoulli")
        self.patterns = Patterns(net.topo, pattern, nodes)
        self.load = load
        self.process = process
        self.seed_key = mix64(seed + 0x5EED)
        self.stop_s = stop_s
        packetizer = net.packetizer
        self.payload_B = packetizer.max_payload_B
        self.packet_B = packetizer.size(self.payload_B)
        self.message_B = self.payload_B if message_B is None else message_B
        if self.message_B < 1:
            raise ConfigError(f"synthetic messages need at least 1 byte, got {self.message_B}")
        self.packets = packetizer.count(self.message_B)
        self.last_payload_B = self.message_B - (self.packets - 1) * self.payload_B
        self.node_bw = net.injection_bandwidth_Bps
        self.slot_s = packetizer.wire_bytes(self.message_B) / self.node_bw
        self.mean_gap_s = self.slot_s / load

    def attach(self, net) -> None:
        """Start a source on every NIC of this rank's core."""
        from ppt.interconnects.core import ffi
        cfg = ffi.new("ppt_traffic_config_t *")
        keep = []
        self.patterns.configure(cfg, keep)
        cfg.bernoulli = self.process == "bernoulli"
        cfg.traffic_class = self.traffic_class
        cfg.load = self.load
        cfg.seed_key = self.seed_key
        cfg.stop_s = self.stop_s
        cfg.slot_s, cfg.mean_gap_s = self.slot_s, self.mean_gap_s
        cfg.packets = self.packets
        cfg.payload_B, cfg.packet_B = self.payload_B, self.packet_B
        cfg.last_payload_B, cfg.last_packet_B = self.last_payload_B, net.packetizer.size(self.last_payload_B)
        net.start_traffic(cfg, [cfg, *keep])


#: Packet counters a measurement window reads, summed over simulation ranks.
WINDOW_COUNTERS = ("delivered", "latency_sum_as", "hops_sum", "bytes_delivered", "injected")


def run_traffic(machine, pattern: str, load: float, routing: str | None = None, warmup_s: float = 20e-6,
                time_s: float = 100e-6, process: str = "exponential", progress=None, comm=AUTO,
                sampler=None, windows: int = 10, early_stop: bool = True, latency_factor: float = 2.0,
                precision: float | None = None) -> dict | None:
    """Offered vs accepted load, latency and hops of one synthetic-traffic run (rank 0; None elsewhere).

    The measurement window ``time_s`` is split into ``windows`` equal
    sub-windows; after each, :class:`~ppt.drivers.steadystate.WindowMonitor`
    (with ``latency_factor`` and, if given, ``precision``) decides whether the
    network is saturated or the measurement has converged.  With
    ``early_stop`` the run then ends (``stopped_early`` says why, with
    ``stop_reason``); ``saturated`` is reported either way.  ``measured_s`` is
    the part of the window actually measured.

    ``accepted_fraction`` = mean bytes/s delivered per node during the
    measured time / node injection bandwidth.  ``link_classes`` (per class:
    links, bytes, utilization) and ``busiest_links`` (class, ends, bytes,
    busy seconds, utilization) cover the measured time too
    (:func:`~ppt.interconnects.networks.links.link_report`).  ``router_traversals``
    (packets entering routers over the whole run, in flight or delivered),
    ``core_events``, ``queue_depth`` (mean length of the core's event queue)
    and ``run_s`` (wall seconds in the event loop) serve benchmarks; they are
    not part of the deterministic prediction.  ``sampler``: a
    :class:`~ppt.drivers.sampling.Sampler` recording the whole run.
    """
    from ppt.interconnects.networks.packetnet import PacketNetwork
    from ppt.drivers.steadystate import SATURATED, Window, WindowMonitor
    if not (0.0 <= warmup_s < math.inf) or not (0.0 < time_s < math.inf):
        raise ConfigError(f"need a finite --warmup >= 0 and --time > 0, got {warmup_s} and {time_s}")
    if windows < 1:
        raise ConfigError(f"--windows must be at least 1, got {windows}")
    net = PacketNetwork(machine.topology, machine.network_settings, seed=machine.seed, routing=routing)
    sim = net.simulation(comm=comm, name="traffic", progress=progress)
    generator = TrafficGenerator(net, pattern, load, process, machine.seed, stop_s=warmup_s + time_s)
    generator.attach(net)
    run = sim.run
    if sampler is not None:
        sampler.attach(net, sim)
        run = sampler.run
    window_s = time_s / windows
    capacity_B = window_s * net.num_nodes * net.injection_bandwidth_Bps
    # a backlog must outgrow at least one crossing of the idle network before it means saturation
    patience = max(3, math.ceil(net.idle_crossing_s(generator.payload_B) / window_s))
    monitor = WindowMonitor(generator.patterns.senders() * window_s / generator.mean_gap_s, warmup_s,
                            patience=patience, latency_factor=latency_factor, precision=precision)
    began = time.perf_counter()
    reached = progress.reached if progress is not None else lambda now_s, end=False: None
    run(until_s=warmup_s)
    reached(warmup_s)
    first = last = _totals(sim, net.counters())
    hist_before, ports_before = net.core.packet_latencies(), net.core.port_bytes()
    verdict, measured = None, 0
    while measured < windows and (verdict is None or not early_stop):
        measured += 1
        run(until_s=warmup_s + measured * window_s)
        reached(warmup_s + measured * window_s)
        now = _totals(sim, net.counters())
        delivered = now["delivered"] - last["delivered"]
        window_latency_s = (now["latency_sum_as"] - last["latency_sum_as"]) / ATTO / delivered if delivered else 0.0
        accepted = (now["bytes_delivered"] - last["bytes_delivered"]) / capacity_B
        found = monitor.add(Window(delivered, window_latency_s, accepted))
        verdict = verdict if verdict == SATURATED else found
        last = now
    measured_s = measured * window_s
    reached(warmup_s + measured_s, end=True)
    run_s = time.perf_counter() - began
    after = net.counters()
    speed = sim.gather({"run_s": run_s, "core_events": after["events"], "queue_depth_sum": after["queue_depth_sum"],
                        "router_traversals": after["router_traversals"],
                        "load": local_load(net.topo, net.core.port_bytes() - ports_before, net.local_routers(sim)),
                        "latencies": net.core.packet_latencies().since(hist_before).wire()})
    events = sim.total_events()
    if speed is None:
        return None
    window_latencies = Latencies.merge([p["latencies"] for p in speed])
    total = {k: last[k] - first[k] for k in WINDOW_COUNTERS}
    core_events = sum(p["core_events"] for p in speed)
    n = total["delivered"]
    stopped = verdict if early_stop and measured < windows else None
    return {"system": machine.name, "pattern": pattern, "routing": net.routing.name, "offered_load": load,
            "accepted_fraction": total["bytes_delivered"] / (measured_s * net.num_nodes * net.injection_bandwidth_Bps),
            "mean_latency_s": total["latency_sum_as"] / ATTO / n if n else 0.0,
            **window_latencies.summary("latency"),
            "mean_hops": total["hops_sum"] / n if n else 0.0, "packets": n,
            "packets_injected": total["injected"], "warmup_s": warmup_s, "time_s": time_s,
            "measured_s": measured_s, "windows": windows, "saturated": verdict == SATURATED,
            "stopped_early": stopped, "stop_reason": monitor.reason if verdict else None,
            "windows_accepted_fraction": [w.accepted_fraction for w in monitor.windows],
            "windows_mean_latency_s": [w.mean_latency_s for w in monitor.windows],
            **link_report([p["load"] for p in speed], measured_s),
            "nodes": net.num_nodes, "events": events,
            "router_traversals": sum(p["router_traversals"] for p in speed),
            "run_s": max(p["run_s"] for p in speed), "core_events": core_events,
            "queue_depth": sum(p["queue_depth_sum"] for p in speed) / max(1, core_events)}


def _totals(sim, counters: dict) -> dict:
    """Packet counters summed over every simulation rank, known to every rank (they decide together)."""
    mine = {k: counters[k] for k in WINDOW_COUNTERS}
    parts = [mine] if sim.size == 1 else sim.comm.allgather(mine)
    return {k: sum(p[k] for p in parts) for k in WINDOW_COUNTERS}

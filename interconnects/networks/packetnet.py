"""The packet-level network of every topology, run by the compiled core (``core/net.c``).

Python keeps what Python is good at: it reads the preset, hands the
topology's tables to the core, and owns one :class:`PacketNic` entity per
node that hosts MPI ranks.  Messages enter the core at the current simulated
time (:meth:`PacketCore.send`); the core runs its own event queue (routers,
ports, credits, NIC packetization and reassembly) and stops at each event
Python must see -- a message delivered, or its last byte sent -- which the
engine then runs at its exact time.  Python pays per message, never per
packet or hop.  Timing and flow control are documented in ``core/net.c``.

Ordering with the engine: at one simulated time, the engine's own events run
before the core's (the core's wake-up key sorts after every entity key), and
the core never runs past the engine's next event, so a message handed over
at time t is seen by the core at t.

Entity ids: router ``r`` is followed by its nodes' NICs, so routers and their
nodes are contiguous; parallel runs place whole routers (with their NICs) in
contiguous blocks, the core of each simulation rank simulates its block, and
packets and credits for another block travel in the engine's window exchange.
The lookahead is the smallest router-to-router link latency; a parallel run's windows last as long as
the smallest latency of a link between two blocks (:mod:`~ppt.interconnects.networks.partition`).
"""
from __future__ import annotations

import math

import numpy as np

from ppt.engine.core import PROGRESS_MASK
from ppt.engine.entity import KEY_BITS
from ppt.errors import ConfigError
from ppt.interconnects.networks import latency, partition
from ppt.interconnects.networks.latency import Latencies
from ppt.interconnects.networks.links import link_report, local_load
from ppt.interconnects.networks.network import Network, Nic, register_network
from ppt.interconnects.core import array, ffi, fields, lib
from ppt.interconnects.networks.settings import NetworkSettings
from ppt.interconnects.topologies.planes import fabric
from ppt.interconnects.networks.stats import class_report, merge_network_stats

INFINITY = math.inf
#: Core events run per engine wake-up at most (progress reports come between them).
CHUNK_EVENTS = 1 << 20
#: Tie-break keys of the core's wake-ups: above every entity's event key.
WAKE_KEY = 1 << 63
if lib.PPT_KEY_BITS != KEY_BITS:        # the core's outputs run as engine events under the core's own keys
    raise ConfigError(f"the packet core lays out event keys with {lib.PPT_KEY_BITS} count bits and the engine "
                      f"with {KEY_BITS}; rebuild the core (pip install -e .)")
#: Progress is offered one wake-up in 64 (a report needs a clock read; wake-ups come per message),
#: and after every wake-up that ran more core events than the engine runs between its own offers
#: (synthetic traffic lives in the core: its few wake-ups each run up to CHUNK_EVENTS).
PROGRESS_WAKES = 63
#: ``ppt_output_t`` as a numpy record, to read the core's outputs in one go.
OUTPUT = np.dtype([("t", np.float64), ("key", np.uint64), ("uid", np.uint64), ("kind", np.int32),
                   ("node", np.int32)])


class PacketNic(Nic):
    """A node's NIC: hands messages for other nodes to the core."""

    __slots__ = ()
    sends_later = True

    def send_off_node(self, dst_node, nbytes, payload, on_sent, delay_s=0.0):
        self.net.core.send(self.node, dst_node, nbytes, payload, on_sent, delay_s)


class PacketCore:
    """The compiled network of one simulation rank, woken by the engine at its next event."""

    def __init__(self, net: "PacketNetwork", sim):
        self.net = net
        self.sim = sim
        self._keep = []
        cfg = ffi.new("ppt_net_config_t *")
        topo = net.topo
        cfg.num_routers, cfg.num_nodes, cfg.radix = topo.num_routers, topo.num_nodes, topo.radix
        cfg.num_vcs = net.num_vcs
        cfg.port_peer = self._array("int32_t", topo.port_peer)
        cfg.port_peer_port = self._array("int32_t", topo.port_peer_port)
        cfg.port_class = self._array("int8_t", topo.port_class)
        cfg.class_bandwidth_Bps = self._array("double", net.class_bw)
        cfg.class_latency_s = self._array("double", net.class_lat)
        cfg.node_router = self._array("int32_t", topo.node_router)
        cfg.node_port = self._array("int32_t", topo.node_port)
        cfg.router_eid = self._array("int64_t", net.router_eid)
        cfg.nic_eid = self._array("int64_t", net.nic_eids)
        cfg.router_delay_s = net.router_delay_s
        cfg.nic_bandwidth_Bps = net.nic_bandwidth_Bps
        cfg.nic_latency_s = net.nic_latency_s
        cfg.vc_capacity_B = net.vc_capacity_B or 0
        cfg.cut_through = net.cut_through
        packetizer = net.packetizer
        cfg.header_B, cfg.max_payload_B = packetizer.header_B, packetizer.max_payload_B
        cfg.chunk_B, cfg.response_B = packetizer.chunk_B, packetizer.response_B
        cfg.rank, cfg.num_ranks = sim.rank, sim.size
        cfg.router_starts = self._array("int32_t", net.router_starts)
        cfg.planes, cfg.rail_policy, cfg.rail_unit = net.rails.planes, net.rails.policy, net.rails.unit
        classes = net.classes
        if classes.on:
            cfg.classes = classes.count
            cfg.class_share = self._array("double", classes.shares)
            cfg.class_priority = self._array("int32_t", classes.priority)
        net.congestion.configure(cfg)
        self.c = ffi.gc(lib.ppt_net_new(cfg, net.routing.c), lib.ppt_net_free)
        if net.node_classes is not None:
            lib.ppt_net_set_node_classes(self.c, self._array("int32_t", net.node_classes))
        if net.node_planes is not None:
            lib.ppt_net_set_node_planes(self.c, self._array("int32_t", net.node_planes))
        for plane, routing in enumerate(net.plane_routings, 1):
            if routing is not None:
                lib.ppt_net_set_plane_routing(self.c, plane, routing.c)
        if net.plane_hops is not None:
            lib.ppt_net_set_plane_hops(self.c, self._array("uint8_t", net.plane_hops.ravel()))
        self._keep.extend([net.routing, *net.plane_routings])
        #: (payload, time handed over) of messages to be delivered on this rank, and on_sent
        #: callbacks, by message uid.
        self.payloads: dict[int, tuple] = {}
        self.on_sent: dict[int, object] = {}
        self._payloads_out = [[] for _ in range(sim.size)]
        self.router_rank = np.array(net.router_starts)
        self.wake_s = INFINITY
        self._wakes = 0
        #: How far past the engine's next event a wake-up may run the core: a message Python hands
        #: over at time t reaches the core at t + nic_latency_s, so events before then cannot change.
        #: Zero once synthetic sources run (an engine event may stop them at its own time).
        self.lead_s = net.nic_latency_s
        #: Message latencies (hand-over to delivery, s) of messages delivered on this rank.
        self.message_latency = latency.new_histogram()
        #: Host of the nodes that have no NIC entity (see PacketNetwork.host_every_node), or None.
        self.default_host = None
        self._outputs = ffi.new("ppt_output_t **")
        self._remote = ffi.new("ppt_remote_t **")
        if sim.size > 1:
            sim.add_exchange(self)
        assert ffi.sizeof("ppt_output_t") == OUTPUT.itemsize

    def _array(self, ctype: str, values):
        """A C copy of ``values`` (:func:`ppt.interconnects.core.array`), alive as long as the core."""
        data = array(ctype, values)
        self._keep.append(data)
        return data

    def keep(self, objects) -> None:
        """Keep ``objects`` (arrays the core points into) alive as long as the core."""
        self._keep.extend(objects)

    def owner(self, node: int) -> int:
        """Simulation rank of ``node``'s router."""
        return int(np.searchsorted(self.router_rank, self.net.topo.node_router[node], side="right")) - 1

    # -- messages in and out ------------------------------------------------
    def send(self, src: int, dst: int, nbytes: int, payload, on_sent, delay_s: float = 0.0) -> None:
        """Hand a message to the core, to leave ``delay_s`` seconds after the current simulated time."""
        sim = self.sim
        start_s = sim.now + delay_s
        uid = lib.ppt_net_send(self.c, src, dst, nbytes, on_sent is not None, start_s)
        owner = self.owner(dst) if sim.size > 1 else 0
        if owner == sim.rank:
            self.payloads[uid] = (payload, start_s)
        else:
            self._payloads_out[owner].append((uid, (payload, start_s)))
        if on_sent is not None:
            self.on_sent[uid] = on_sent
        self.reschedule()

    def reschedule(self) -> None:
        """Make sure the engine wakes the core at its next event."""
        t = lib.ppt_net_next_time(self.c)
        if t < self.wake_s:
            self.wake_s = t
            self._wakes += 1
            self.sim.post(t, WAKE_KEY + self._wakes, self._wake, self._wakes)

    def _wake(self, number):
        sim = self.sim
        sim.events -= 1                             # the wake-up itself is bookkeeping, not a model event
        if number != self._wakes:
            return                                  # superseded by an earlier wake-up
        self.wake_s = INFINITY
        ran = lib.ppt_net_run(self.c, min(sim.peek() + self.lead_s, sim.horizon), CHUNK_EVENTS)
        sim.events += ran
        count = lib.ppt_net_outputs(self.c, self._outputs)
        if count:
            self._hand_over(count)
        if sim.progress and (not number & PROGRESS_WAKES or ran > PROGRESS_MASK):
            sim.progress(sim)
        self.reschedule()

    def _hand_over(self, count: int) -> None:
        """Run the core's outputs as engine events at their times, in the NICs they concern.

        Each keeps the key of the core event that made it (core NIC keys use the upper half of
        the NIC's key range), so its order among the NIC's other events at the same time never
        depends on when it was handed over.
        """
        net, sim = self.net, self.sim
        done = np.frombuffer(ffi.buffer(self._outputs[0], count * OUTPUT.itemsize), dtype=OUTPUT).tolist()
        lib.ppt_net_clear_outputs(self.c)
        nics = net._nics
        deliver = lib.PPT_OUT_DELIVER
        for t, key, uid, kind, node in done:
            if kind == deliver:
                payload, sent_s = self.payloads.pop(uid)
                lib.ppt_hist_add(self.message_latency, t - sent_s)
                nic = nics.get(node)
                if nic is None:
                    if self.default_host is not None:
                        sim.post(t, key, self.default_host, payload)
                elif nic.host is not None:
                    sim.post(t, key, nic.deliver, payload)
            else:
                sim.post(t, key, _call, self.on_sent.pop(uid))

    # -- parallel runs: the engine's window exchange ------------------------------
    def outgoing(self) -> list:
        """Per rank: the core's events for it, as a view of the core's outbox (not copied: tens of MB a window
        on a million nodes; clearing the outbox keeps its memory, which holds until the next window runs,
        after the exchange has sent it), and the payloads of messages handed over for it."""
        parts = []
        for rank in range(self.sim.size):
            count = lib.ppt_net_outbox(self.c, rank, self._remote)
            events = ffi.buffer(self._remote[0], count * ffi.sizeof("ppt_remote_t")) if count else b""
            payloads = self._payloads_out[rank] or None
            parts.append((events, payloads) if events or payloads else None)
        lib.ppt_net_clear_outbox(self.c)
        self._payloads_out = [[] for _ in range(self.sim.size)]
        return parts

    def outgoing_min_s(self) -> float:
        return lib.ppt_net_outbox_min_time(self.c)

    def incoming(self, parts: list) -> None:
        size = ffi.sizeof("ppt_remote_t")
        for part in parts:
            if part is None:
                continue
            events, payloads = part
            if payloads:
                self.payloads.update(payloads)
            if events:
                lib.ppt_net_receive(self.c, ffi.cast("ppt_remote_t *", ffi.from_buffer(events)), len(events) // size)
        self.reschedule()

    # -- statistics -----------------------------------------------------------------
    def counters(self) -> dict:
        """This rank's packet counters (as merge_network_stats reads them) and speed figures."""
        c = ffi.new("ppt_counters_t *")
        lib.ppt_net_counters(self.c, c)
        counters = fields(c)
        counters["latency_sum_as"] = (counters.pop("latency_sum_as_hi") << 64) | counters.pop("latency_sum_as_lo")
        counters["in_flight"] = lib.ppt_net_packets_in_flight(self.c)
        return counters

    def packet_latencies(self) -> Latencies:
        """This rank's delivered packets' latencies so far."""
        return Latencies.of(lib.ppt_net_packet_latencies(self.c))

    def message_latencies(self) -> Latencies:
        """This rank's delivered messages' latencies so far, hand-over to delivery."""
        return Latencies.of(self.message_latency)

    def class_counters(self) -> list[tuple[dict, tuple]]:
        """Per traffic class, this rank's delivered packets' counters (``delivered``, ``bytes_delivered``,
        ``latency_sum_ps``) and latencies (:meth:`Latencies.wire` form); empty without classes."""
        c = ffi.new("ppt_class_counters_t *")
        parts = []
        for k in range(self.net.classes.count if self.net.classes.on else 0):
            lib.ppt_net_class_counters(self.c, k, c)
            parts.append((fields(c), Latencies.of(lib.ppt_net_class_latencies(self.c, k)).wire()))
        return parts

    def link_summary(self) -> dict:
        """Links of this rank's routers that carried bytes since the start: their ``count``, total
        ``bytes`` and largest queue."""
        s = ffi.new("ppt_link_summary_t *")
        lib.ppt_net_link_summary(self.c, s)
        return {"count": s.count, "bytes": s.bytes, "max_queue_B": s.max_queue_B}

    def port_bytes(self) -> np.ndarray:
        """Bytes each port of this rank's routers sent since the start ([router * radix + port]; 0 elsewhere)."""
        sent = np.zeros(self.net.topo.num_routers * self.net.topo.radix, dtype=np.int64)
        lib.ppt_net_port_bytes(self.c, ffi.cast("int64_t *", ffi.from_buffer(sent)))
        return sent


def _call(fn):
    fn()


@register_network("packet")
class PacketNetwork(Network):
    """Packet-level model of ``topology`` with the preset's network ``settings`` (``routing``, if given,
    in place of theirs)."""

    models_planes = True

    def __init__(self, topology, settings, seed: int = 0, routing: str | None = None):
        settings = NetworkSettings.of(settings)          # or built from a preset's ``network`` section
        #: Rails per NIC (one per plane) and how NICs spread messages over them.
        self.rails = settings.rails
        #: The fabric the core runs: ``topology`` itself, or its planes (interconnects/topologies/planes.py).
        self.topo = topology = fabric(topology, self.rails.planes)
        #: PPT_RAIL_DEDICATED: plane of every node (None: plane 0); see set_node_planes.
        self.node_planes = None
        #: Traffic classes (network.traffic_classes, class_shares, class_priority; classes.py).
        self.classes = settings.classes
        #: Traffic class of the messages each node sends (None: class 0); see set_node_classes.
        self.node_classes = None
        #: Congestion control (network.congestion_control; congestion.py).
        self.congestion = settings.congestion
        name = routing or settings.routing
        # routing options of the network section (UGAL's bias, core/ugal.c): one no routing here takes is refused
        options = settings.routing_options(topology, name)
        self.routing = topology.routing(name, seed=seed, **options)
        #: Routings over the own tables of planes 1, 2, ... whose links failed apart from plane 0's.
        self.plane_routings = topology.plane_routings(name, seed=seed, **options) if self.rails.planes > 1 else []
        #: Legal hops per (router pair, plane) where the planes' links failed apart (railpick.py), or None.
        self.plane_hops = topology.plane_hops(name) if self.rails.planes > 1 else None
        #: Virtual channels per port: the hardware's (network.vcs) or, by default, what the routing needs.
        self.num_vcs = settings.num_vcs(self.routing)
        self.packetizer = settings.packetizer
        self.vc_capacity_B = settings.vc_capacity_B(self.routing)
        #: Routers forward a packet once its header is in (virtual cut-through), else once it is whole
        #: (store-and-forward); timing in core/net.c.
        self.cut_through = settings.cut_through
        self.nic_bandwidth_Bps = settings.nic_bandwidth_Bps
        self.nic_latency_s = settings.nic_latency_s
        self.router_delay_s = float(topology.router_delay_s)
        if not 0.0 <= self.router_delay_s < math.inf:
            raise ConfigError(f"topology.router_delay_s must be a finite number of seconds >= 0, "
                              f"got {self.router_delay_s!r}")
        terminal = topology.terminal_class()
        #: Bytes/s one rail can inject (its NIC port or its link to the router, whichever is slower).
        self.rail_bandwidth_Bps = min(self.nic_bandwidth_Bps, terminal.bandwidth_Bps)
        #: Bytes/s a node can inject over all its rails.
        self.injection_bandwidth_Bps = self.rails.planes * self.rail_bandwidth_Bps
        self.class_bw = [c.bandwidth_Bps for c in topology.link_classes]
        self.class_lat = [c.latency_s for c in topology.link_classes]
        self.num_nodes = int(topology.num_nodes)
        nodes_per_router = np.bincount(topology.node_router, minlength=topology.num_routers)
        first = np.concatenate(([0], np.cumsum(nodes_per_router + 1)[:-1]))
        self.router_eid = first
        order = np.argsort(topology.node_router, kind="stable")
        slot = np.empty(self.num_nodes, dtype=np.int64)
        slot[order] = np.arange(self.num_nodes) - np.repeat(np.cumsum(nodes_per_router) - nodes_per_router,
                                                              nodes_per_router)
        self.nic_eids = first[topology.node_router] + 1 + slot
        self.num_entities = int(topology.num_routers + self.num_nodes)
        self.lookahead_s = min((c.latency_s for c in topology.network_classes()), default=0.0)
        #: Work per node that a parallel run's partition balances (e.g. its MPI ranks), set before the
        #: simulation is built; None: every router alike.
        self.node_weights = None
        self.core = None

    @classmethod
    def from_machine(cls, machine) -> "PacketNetwork":
        return cls(machine.topology, machine.network_settings, seed=machine.seed)

    def nic_eid(self, node: int) -> int:
        return int(self.nic_eids[node])

    def set_node_planes(self, node_planes) -> None:
        """The plane of every node for ``rail_policy`` ``dedicated`` (one job per plane; the job list
        fills it), before the simulation is built; plane 0 for all by default."""
        planes = np.asarray(node_planes, dtype=np.int64)
        if planes.shape != (self.num_nodes,) or planes.min(initial=0) < 0 or planes.max(initial=0) >= self.rails.planes:
            raise ConfigError(f"node planes must be {self.num_nodes} plane numbers in 0..{self.rails.planes - 1}")
        if self.core is not None:
            raise ConfigError("node planes are set before the simulation is built")
        self.node_planes = planes.astype(np.int32)

    def set_node_classes(self, node_classes) -> None:
        """The traffic class of the messages every node hands over from now on (a job list gives each
        job's nodes its class); class 0 for all by default."""
        classes = np.asarray(node_classes, dtype=np.int64)
        count = self.classes.count
        if classes.shape != (self.num_nodes,) or classes.min(initial=0) < 0 or classes.max(initial=0) >= count:
            raise ConfigError(f"node classes must be {self.num_nodes} class numbers in 0..{count - 1} "
                              f"(network.traffic_classes = {count})")
        self.node_classes = classes.astype(np.int32)
        if self.core is not None:
            lib.ppt_net_set_node_classes(self.core.c, ffi.cast("int32_t *", ffi.from_buffer(self.node_classes)))

    def build(self, sim) -> None:
        """Start this rank's core; whole routers (with their NICs) per rank, in blocks that keep groups
        whole (:mod:`~ppt.interconnects.networks.partition`), and windows as long as the cut allows."""
        #: First router of every simulation rank's block, then the number of routers.
        weights = None
        if self.node_weights is not None:
            weights = np.bincount(self.topo.node_router, weights=self.node_weights, minlength=self.topo.num_routers)
        self.router_starts = partition.router_starts(self.topo.num_routers, sim.size, self.topo.router_groups(),
                                                     self.rails.planes, weights)
        if sim.size > 1:
            sim.set_block_starts([int(self.router_eid[first]) for first in self.router_starts[:-1]])
            sim.lookahead_s = max(self.lookahead_s, partition.cut_latency_s(self.topo, self.router_starts))
        self.core = PacketCore(self, sim)
        #: This rank's NIC entities made so far, by node.
        self._nics: dict[int, PacketNic] = {}

    def nic(self, sim, node: int) -> PacketNic:
        nic = self._nics.get(node)
        if nic is None:
            eid = self.nic_eid(node)
            if not sim.is_local(eid):
                raise ConfigError(f"node {node} lives on simulation rank {sim.owner(eid)}, not {sim.rank}")
            nic = self._nics[node] = sim.add(PacketNic(sim, eid, self, node))
        return nic

    def host_every_node(self, sim, host) -> None:
        """Deliveries to nodes without a NIC entity go to ``host`` (no entity is made per node)."""
        self.core.default_host = host

    def local_routers(self, sim) -> range:
        """Routers this simulation rank's core simulates."""
        return range(int(self.core.router_rank[sim.rank]), int(self.core.router_rank[sim.rank + 1]))

    def local_nodes(self, sim):
        routers = self.local_routers(sim)
        nodes = np.nonzero((self.topo.node_router >= routers.start) & (self.topo.node_router < routers.stop))[0]
        return nodes.tolist()

    def idle_crossing_s(self, nbytes: int) -> float:
        """Seconds an ``nbytes`` message takes across the idle network on a longest path of the
        slowest links (a generous estimate of one message's latency, no margin added)."""
        topo, packetizer = self.topo, self.packetizer
        slowest = max(c.latency_s + packetizer.size(packetizer.max_payload_B) / c.bandwidth_Bps
                      for c in topo.link_classes)
        hops = topo.diameter() + 2
        wire = packetizer.wire_bytes(nbytes) / self.rail_bandwidth_Bps
        return 2 * self.nic_latency_s + hops * (slowest + topo.router_delay_s) + wire

    def idle_latency_bound_s(self, nbytes: int) -> float:
        return 2.0 * self.idle_crossing_s(nbytes) + 1e-6

    def counters(self) -> dict:
        return self.core.counters()

    def start_traffic(self, source_cfg, tables=()) -> None:
        """Start the sources of ``source_cfg`` (a ``ppt_traffic_config_t``; it and the arrays it points
        into, ``tables``, live as long as the core)."""
        self.core.keep(tables)
        self.core.lead_s = 0.0
        status = lib.ppt_net_start_traffic(self.core.c, source_cfg)
        if status != 0:
            raise ConfigError("out of memory starting the traffic sources" if status == -1 else
                              "two synthetic traffic sources on one node; give each its own nodes")
        self.core.reschedule()

    def count_jobs(self, node_job) -> None:
        """Count delivered packets per job from now on, by their source node: ``node_job[node]`` is the
        job (0, 1, ...) of every node, -1 for none; :meth:`job_counters` reads the totals."""
        table = np.ascontiguousarray(node_job, dtype=np.int32)
        self._job_counters = ffi.new("ppt_job_counters_t[]", max(1, int(table.max()) + 1))
        self.core.keep([table, self._job_counters])
        lib.ppt_net_set_jobs(self.core.c, ffi.cast("int32_t *", ffi.from_buffer(table)), self._job_counters)

    def job_counters(self) -> list[dict]:
        """Per job (see :meth:`count_jobs`), this rank's delivered packets: ``delivered`` (responses
        included), ``responses``, ``hops_sum``, ``latency_sum_ps`` and wire ``bytes_delivered``."""
        return [fields(c) for c in self._job_counters]

    def quiescent(self, sim) -> bool:
        """True when nothing can wake a process of ``sim`` any more: no engine event but the core's
        wake-ups is queued, and every message handed to the core was delivered and reported sent
        (synthetic traffic may still be running)."""
        core = self.core
        return not core.payloads and not core.on_sent and sim.only_keys_from(WAKE_KEY)

    def stop_traffic(self, stop_s: float) -> None:
        """Create no more synthetic packets from ``stop_s`` on (those in flight still arrive)."""
        lib.ppt_net_stop_traffic(self.core.c, stop_s)

    def end_s(self, sim) -> float:
        """The engine's last event or the core's, whichever is later: the core runs ahead of the
        engine's wake-ups, so the time of the last wake-up says nothing about the network."""
        return max(sim.now, lib.ppt_net_now(self.core.c))

    def stats(self, sim) -> dict:
        counters = self.core.counters()
        for key in ("router_traversals", "injected_uid_hash", "delivered_uid_hash", "in_flight", "events",
                    "queue_depth_sum"):
            del counters[key]
        return {"counters": counters, "links": self.core.link_summary(), "span_s": self.end_s(sim),
                "load": local_load(self.topo, self.core.port_bytes(), self.local_routers(sim)),
                "packet_latency": self.core.packet_latencies().wire(),
                "message_latency": self.core.message_latencies().wire(),
                "classes": self.core.class_counters(), "congestion_control": self.congestion.describe()}

    @staticmethod
    def merge_stats(parts: list[dict]) -> dict:
        stats = merge_network_stats([p["counters"] for p in parts], [p["links"] for p in parts])
        stats.update(link_report([p["load"] for p in parts], max(p["span_s"] for p in parts)))
        stats.update(Latencies.merge([p["packet_latency"] for p in parts]).summary("latency", stats["max_latency_s"]))
        messages = Latencies.merge([p["message_latency"] for p in parts])
        stats.update(messages.summary("message_latency"))
        stats["max_message_latency_s"] = messages.percentile_s(1.0)
        if parts[0]["classes"]:
            stats["classes"] = class_report([p["classes"] for p in parts], max(p["span_s"] for p in parts))
        if parts[0]["congestion_control"]:
            stats["congestion_control"] = {**parts[0]["congestion_control"],
                                           **{key: sum(p["counters"][key] for p in parts)
                                              for key in ("fecn_marked", "becn_received")}}
        return stats

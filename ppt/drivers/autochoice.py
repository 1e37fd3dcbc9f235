"""``--network auto``: run the packet network unless it would take longer than a wall-time budget.

The estimate of the packet network's wall time has two terms:

* packet-hops: each packet's router traversals, plus one for its injection
  and ejection, divided by :data:`PACKET_HOPS_PER_S`;
* MPI messages: the simulated MPI's work per message (matching, protocol,
  the collective algorithm's bookkeeping), divided by :data:`MESSAGES_PER_S`
  for a model's ranks and by :data:`REPLAY_MESSAGES_PER_S` for a trace's
  replay (on the compiled MPI engine).

Traffic is counted from what a tool knows before the run: the messages a model
will send between ranks (:meth:`Estimator.traffic`), or a trace's calls
(:func:`trace_estimate`): every point-to-point send, and for every collective
call what the algorithm the simulated MPI picks for it really sends
(``cost`` beside each algorithm in :mod:`ppt.mpi.collectives.calls`: a pairwise
alltoall of S-byte blocks on p ranks is p(p-1) messages of S bytes, not p
times S).  A message whose peer is not known is taken to cross the mean hop
count of the nodes the job uses; same-node messages cost the MPI layer but
no packets.

Estimates within :data:`BUDGET_S` run the packet network, larger ones the flow
network (max-min fair sharing on the same routes, far fewer events) -- unless
most off-node messages are small (at most :data:`SMALL_PACKETS` packets): there
the flow network errs most (docs/flow-network.md, "Small messages under
contention"), so ``auto`` keeps the packet network up to
:data:`SMALL_BUDGET_FACTOR` times the budget.  docs/flow-network.md ("Choosing the network") tabulates the estimate
against measured wall times.

Recalibrating on another machine (both constants are rates of this simulator
on one core; rerun after a change that makes either path faster or slower)::

    time ppt replay TRACE --system edison --ranks-per-node 1 --mapping random --network packet --json
        # PACKET_HOPS_PER_S = network.packets * (network.mean_hops + 1) / (wall time - start-up),
        # a trace with few messages and many packets (npb_ft_W_n4); start-up: a replay of few packets
    ppt bench network --system edison --json      # hops_per_s: the rate under load of the whole machine
    python benchmarks/mpi_messages.py --ranks-alltoall 128 --allreduce-iterations 10
        # MESSAGES_PER_S = the lower messages/s
    ppt bench mpi; python benchmarks/replay_engines.py --messages 1e6
        # REPLAY_MESSAGES_PER_S = the lower replay messages/s
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

#: Packet-hops (router traversals; a packet's injection and ejection counted as one more) the packet
#: network simulates per second of wall time, MPI replay included.  Measured 2026-11-25 on a 2-core
#: machine shared with other jobs (load average 4-7): ``ppt replay npb_ft_W_n4 --system edison
#: --ranks-per-node 1 --mapping random --network packet`` (1.57 M packets, responses included, over 5.3
#: routers each: 8.3 M packet-hops) took 7.05 s, 6.4 s after its 0.7 s start-up: 1.3 M/s.  On routes
#: within one router the rate is higher (npb_ft_W_n4 with the default mapping: 2.3 M/s; osu_latency_n2:
#: 2.2 M/s), so one-router jobs are estimated up to about 1.8x slow.  ``ppt bench network --system
#: edison --json`` (uniform random traffic over the whole machine, UGAL-L, 0.8 M events pending) measures
#: 0.32 M/s at load 0.3 and 0.51 M/s at load 0.01: the rate of a job loading all of Edison, 4x below that
#: of a replay; ``ppt bench network`` on its default torus-16x16x16 measures 3.6 M/s.
PACKET_HOPS_PER_S = 1.3e6
#: MPI messages the simulated MPI layer handles per second of wall time (analytic network, so no
#: packets).  Measured 2026-11-25 on the same machine: ``python benchmarks/mpi_messages.py
#: --ranks-alltoall 128 --allreduce-iterations 10``: 45,706 messages/s (alltoall, 128 ranks) and 29,343
#: (allreduce loop, 1,024 ranks), the lower taken.  A least-squares fit of the wall times of the replays
#: tabulated in docs/flow-network.md (a start-up, a message and a packet-hop term) gives 42,000 messages/s.
MESSAGES_PER_S = 3e4
#: MPI messages a trace's replay handles per second of wall time: replay runs on the compiled MPI engine
#: (docs/mpi-speed.md, "The compiled engine").  Measured 2026-11-26 on the same 2-core machine (load
#: average about 1.5): ``ppt bench mpi``'s replay workload, 471,000-578,000 messages/s, and
#: ``python benchmarks/replay_engines.py --messages 1e6``, 512,700; the lower, rounded down.
REPLAY_MESSAGES_PER_S = 4.5e5
#: Wall time the packet network may take before ``auto`` runs the flow network instead, s.
BUDGET_S = 60.0
#: A message of at most this many packets is small.  The flow network's error against the packet network
#: on contending messages (``python benchmarks/flow_small_messages.py``, docs/flow-network.md, "Small
#: messages under contention") peaks there: four Edison ping-pong pairs over one router link are +33% at
#: 8 packets (512 B) and +23% at 16, under 2% up to 4; under minimal routing +11% at 4 packets, +53% at 16.
SMALL_PACKETS = 16
#: Traffic whose off-node messages are more than this share small keeps the packet network ...
SMALL_SHARE = 0.5
#: ... up to this many times :data:`BUDGET_S`.
SMALL_BUDGET_FACTOR = 10.0


@dataclass
class Estimate:
    """Traffic of a run on the packet network: ``packet_hops``, MPI ``messages`` (all of them),
    ``off_node`` messages and the ``small`` ones among them (at most :data:`SMALL_PACKETS` packets)."""

    packet_hops: float = 0.0
    messages: float = 0.0
    off_node: float = 0.0
    small: float = 0.0

    def __add__(self, other: "Estimate") -> "Estimate":
        return Estimate(self.packet_hops + other.packet_hops, self.messages + other.messages,
                        self.off_node + other.off_node, self.small + other.small)

    def scaled(self, factor: float) -> "Estimate":
        return Estimate(self.packet_hops * factor, self.messages * factor, self.off_node * factor,
                        self.small * factor)

    #: MPI messages the run handles per second of wall time (a trace's replay: REPLAY_MESSAGES_PER_S).
    messages_per_s = MESSAGES_PER_S

    @property
    def seconds(self) -> float:
        """Estimated wall time of the packet network, s."""
        return self.packet_hops / PACKET_HOPS_PER_S + self.messages / self.messages_per_s

    @property
    def small_share(self) -> float:
        return self.small / self.off_node if self.off_node else 0.0


def _one_plane(machine):
    """``machine``, or for a multi-plane network the same machine with one plane: the planes are copies of
    one topology, so a route's hops are those of any plane (and only the packet network has planes)."""
    if machine.network_settings.rails.planes == 1:
        return machine
    preset = {**machine.preset, "network": {**machine.preset["network"], "planes": 1}}
    return type(machine)(preset, machine.network_kind, machine.seed)


class Estimator:
    """Traffic on ``machine``'s packet network, ranks placed on nodes by ``node_of``."""

    def __init__(self, machine, node_of):
        from ppt.interconnects.networks.kinds import build_network
        self.node_of = node_of
        self.packetizer = machine.network_settings.packetizer
        self.hops = build_network("analytic", _one_plane(machine)).hops      # router hops of the minimal route
        self._mean = None

    def packets(self, nbytes: int, count: int) -> int:
        """Packets of ``count`` messages of ``nbytes`` each, the response to each data packet included where
        the preset has them (``network.packet.response_B``: Cray FMA acknowledgements)."""
        return count * self.packetizer.count(nbytes) * (2 if self.packetizer.response_B else 1)

    def pairs(self, traffic) -> float:
        """Packet-hops of ``traffic``: ``(source rank, destination rank, bytes, messages)`` groups."""
        return self.traffic(traffic).packet_hops

    def traffic(self, traffic) -> Estimate:
        """:class:`Estimate` of ``traffic``: ``(source rank, destination rank, bytes, messages)`` groups."""
        node_of, est = self.node_of, Estimate()
        small = self.packetizer.max_payload_B * SMALL_PACKETS
        for src, dst, nbytes, count in traffic:
            est.messages += count
            a, b = node_of[src], node_of[dst]
            if a != b:
                est.packet_hops += self.packets(nbytes, count) * (self.hops(a, b) + 1)
                est.off_node += count
                if nbytes <= small:
                    est.small += count
        return est

    def mean_route(self) -> tuple[float, float]:
        """``(share of rank pairs on different nodes, mean router hops between the job's nodes)``:
        the route of a message whose peer is not known."""
        if self._mean is None:
            node_of = self.node_of
            ranks = len(node_of)
            on_node = Counter(node_of)
            if ranks < 2:
                self._mean = (0.0, 0.0)
            else:
                off_node = sum(ranks - on_node[node] for node in node_of) / (ranks * (ranks - 1))
                others = [node for node in on_node if node != node_of[0]]
                mean_hops = sum(self.hops(node_of[0], node) for node in others) / len(others) if others else 0.0
                self._mean = (off_node, mean_hops)
        return self._mean

    def spread(self, messages: float, nbytes: int) -> Estimate:
        """:class:`Estimate` of ``messages`` of ``nbytes`` each, every rank sending to every other alike."""
        if messages == 0:
            return Estimate()
        off_node, mean_hops = self.mean_route()
        off = off_node * messages
        small = off if nbytes <= self.packetizer.max_payload_B * SMALL_PACKETS else 0.0
        return Estimate(self.packets(nbytes, off) * (mean_hops + 1), messages, off, small)

    def uniform(self, messages: int, nbytes: int) -> float:
        """Packet-hops of ``messages`` carrying ``nbytes`` in all, every rank sending to every other alike."""
        if messages == 0 or len(self.node_of) < 2:
            return 0.0
        return self.spread(messages, nbytes // messages).packet_hops

    def collective(self, kind: str, ranks: int, nbytes: int, name: str | None = None) -> Estimate:
        """:class:`Estimate` of one ``kind`` call on ``ranks`` ranks (all of them: the call, not a rank's
        part of it), ``nbytes`` as the algorithm is passed it, by what algorithm ``name`` (default:
        the simulated MPI's choice) sends (:func:`ppt.mpi.collectives.calls.cost`)."""
        from ppt.mpi.collectives.calls import cost
        if ranks < 2:
            return Estimate()
        messages, total_B = cost(kind, ranks, nbytes, name)
        return self.spread(messages, total_B // messages if messages else 0)


#: Trace call -> (collective, algorithm or None for the simulated MPI's default) of its replay.
TRACE_COLLECTIVES = {
    "MPI_Barrier": ("barrier", None), "MPI_Bcast": ("bcast", None), "MPI_Reduce": ("reduce", None),
    "MPI_Allreduce": ("allreduce", None), "MPI_Scan": ("scan", None), "MPI_Exscan": ("exscan", None),
    "MPI_Gather": ("gather", None), "MPI_Gatherv": ("gather", None), "MPI_Scatter": ("scatter", None),
    "MPI_Scatterv": ("scatter", None), "MPI_Allgather": ("allgather", None),
    "MPI_Allgatherv": ("allgather", "bruck"), "MPI_Alltoall": ("alltoall", None),
    "MPI_Alltoallv": ("alltoall", None), "MPI_Alltoallw": ("alltoall", None),
    "MPI_Reduce_scatter": ("reduce_scatter", None),
}
#: Calls whose per-rank bytes (traces.info's rule) are a sum over the ``ranks`` peers: the algorithm
#: is passed one block, the mean.
_PER_PEER_SUMS = {"MPI_Alltoallv", "MPI_Alltoallw", "MPI_Scatterv", "MPI_Reduce_scatter"}
#: The nonblocking collectives (MPI_Iallreduce ...) send what their blocking calls send.
TRACE_COLLECTIVES.update({"MPI_I" + name[4:].lower(): entry for name, entry in TRACE_COLLECTIVES.items()})
_PER_PEER_SUMS |= {"MPI_I" + name[4:].lower() for name in _PER_PEER_SUMS}


def trace_estimate(trace, estimator: Estimator) -> Estimate:
    """:class:`Estimate` of replaying op-stream ``trace``: its point-to-point sends by size (between the
    recorded ranks where the communicator is MPI_COMM_WORLD or MPI_COMM_SELF, else over the mean route),
    and every collective call by what its algorithm sends on the trace's ranks (one streaming pass over
    the ops; a call on a smaller communicator is counted as on all ranks)."""
    from ppt.traces.info import collective_bytes
    from ppt.oprecord import CALL, COMM, COMM_SELF, COMM_WORLD, KIND, NBYTES, PEER, Op
    sending = (Op.SEND, Op.ISEND, Op.SENDRECV)
    ranks = trace.num_ranks
    pairs, sends, calls = Counter(), Counter(), Counter()
    for rank in range(ranks):
        for chunk in trace.stream(rank):
            names, aux = chunk.calls, chunk.aux_list()
            for op in chunk.rows():
                if op[KIND] in sending:
                    dest, comm, nbytes = op[PEER], op[COMM], op[NBYTES]
                    if dest < 0 or dest >= ranks:   # MPI_PROC_NULL: nothing sent; beyond: the replay refuses it
                        continue
                    if comm == COMM_WORLD:
                        pairs[rank, dest, nbytes] += 1
                    elif comm == COMM_SELF:
                        pairs[rank, rank, nbytes] += 1
                    else:
                        sends[nbytes] += 1
                    continue
                name = names[op[CALL]]
                if name in TRACE_COLLECTIVES:
                    nbytes = collective_bytes(op, aux) or 0
                    if name in _PER_PEER_SUMS:
                        nbytes //= ranks
                    calls[name, nbytes] += 1
    est = estimator.traffic((src, dst, nbytes, count) for (src, dst, nbytes), count in pairs.items())
    for nbytes, count in sends.items():
        est += estimator.spread(count, nbytes)
    for (name, nbytes), count in calls.items():     # every rank records the call: 1/ranks of it each
        kind, algorithm = TRACE_COLLECTIVES[name]
        est += estimator.collective(kind, ranks, nbytes, algorithm).scaled(count / ranks)
    est.messages_per_s = REPLAY_MESSAGES_PER_S
    return est


def choose(estimate, budget_s: float | None = None) -> tuple[str, str]:
    """``(kind, reason)`` for an :class:`Estimate` (or a bare number of packet-hops): "packet" if its
    estimated wall time is within ``budget_s`` (default :data:`BUDGET_S`), or within
    :data:`SMALL_BUDGET_FACTOR` times it where most off-node messages are small; else "flow"."""
    budget_s = BUDGET_S if budget_s is None else budget_s
    if not isinstance(estimate, Estimate):
        estimate = Estimate(packet_hops=estimate)
    estimate_s = estimate.seconds
    what = f"about {estimate.packet_hops:.3g} packet-hops"
    if estimate.messages:
        what += f" and {estimate.messages:.3g} MPI messages"
    if estimate_s <= budget_s:
        return "packet", f"packet network: {what}, estimated {estimate_s:.3g} s, within the {budget_s:g} s budget"
    share = estimate.small_share
    if share > SMALL_SHARE and estimate_s <= SMALL_BUDGET_FACTOR * budget_s:
        return "packet", (f"packet network: {what}, estimated {estimate_s:.3g} s, over the {budget_s:g} s "
                          f"budget, but {100 * share:.0f}% of the off-node messages are small (at most "
                          f"{SMALL_PACKETS} packets), where the flow network errs (--network flow forces it)")
    return "flow", (f"flow network: the packet network would simulate {what}, estimated {estimate_s:.3g} s, "
                    f"over the {budget_s:g} s budget (--network packet forces it)")


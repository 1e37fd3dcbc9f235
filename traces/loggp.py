"""Replay timed in the LogGP model, as LogGOPSim times a GOAL schedule (``ppt replay --loggp L,o,g,G``).

LogGP (A. Alexandrov, M. Ionescu, K. Schauser, C. Scheiman, "LogGP: Incorporating Long Messages into
the LogP Model", SPAA 1995) as LogGOPSim simulates it (T. Hoefler, T. Schneider, A. Lumsdaine,
"LogGOPSim - Simulating Large-Scale Applications in the LogGOPS Model", HPDC 2010; its LogGP
network, without congestion), for a message of ``s`` bytes:

* a send starts when its rank's CPU is free and its NIC may inject again; the CPU spends ``o``, the
  NIC injects nothing else for ``g + (s-1) G``; the message's first byte reaches the receiving NIC
  ``o + L`` after the start, and the send is complete (its buffer free) ``o`` after the start;
* the receiving NIC takes one message per ``g + (s-1) G``; the receiving CPU spends ``o + (s-1) G``
  on it, after which it is received.  So a lone message takes ``o + L + (s-1) G + o``.

Here the simulated MPI charges ``o`` on both CPUs (its send and receive overheads) and
:class:`LogGPNetwork`, a network model of one's own (:mod:`ppt.mpi.engine.pynet`), the rest: each
node's NIC keeps the two gaps, delivers the last byte ``(s-1) G`` after it took the first, and ends
the send ``o`` after its start.  Every message is eager and every rank has a node of its own.  Where
this differs from LogGOPSim (docs/goal.md): a rank's CPU goes on after a send's ``o`` where
LogGOPSim holds it until the NIC may inject (later computation starts earlier when
``g + (s-1) G > o`` and the rank does not wait for the sends); the receive ``o`` is spent when the
rank takes the message over (its wait), not when the message arrives; the receive gap counts from
the first byte's arrival, not from when the CPU took the message; sends above LogGOPSim's
rendezvous threshold ``S`` complete as eager ones (LogGOPSim completes them when the receive
matches; the receiver's times are the same); LogGOPS's per-byte CPU overhead ``O`` is 0.

Units: seconds and seconds per byte.
"""
from __future__ import annotations

import math
import sys
from typing import NamedTuple

from ppt.errors import ConfigError
from ppt.interconnects.networks.network import Network, Nic

#: LogGOPSim's defaults (its simulator.ggo: L=2500, o=1500, g=1000, G=6 in ns and ns per byte), as
#: ``--loggp loggopsim``; with them its dissemination_16.goal example ends every host at 22000 ns.
PRESETS = {"loggopsim": (2.5e-6, 1.5e-6, 1e-6, 6e-9)}
#: Every message is eager: the largest size the engine's threshold holds.
ALL_EAGER_B = sys.maxsize


class LogGP(NamedTuple):
    """LogGP parameters: ``L`` wire latency (s), ``o`` CPU overhead per send and per receive (s), ``g`` gap
    between two messages at a NIC (s), ``G`` time per byte of a message after its first (s/B)."""

    L: float
    o: float
    g: float
    G: float

    @classmethod
    def parse(cls, text: str) -> "LogGP":
        """``L,o,g,G`` in seconds and seconds per byte (``2.5e-6,1.5e-6,1e-6,6e-9``), or a name of
        :data:`PRESETS` (ConfigError, one line, otherwise)."""
        if text in PRESETS:
            return cls(*PRESETS[text])
        parts = text.split(",")
        try:
            values = [float(part) for part in parts]
        except ValueError:
            values = []
        if len(values) != 4 or not all(math.isfinite(v) and v >= 0.0 for v in values) or not values[0] > 0.0:
            raise ConfigError(f"--loggp {text!r}: give L,o,g,G as four numbers >= 0 in seconds and seconds per "
                              f"byte, L above 0 (e.g. 2.5e-6,1.5e-6,1e-6,6e-9), or a preset: {', '.join(PRESETS)}")
        return cls(*values)

    def __str__(self) -> str:
        return f"LogGP L={self.L:g} s, o={self.o:g} s, g={self.g:g} s, G={self.G:g} s/B"


class LogGPNic(Nic):
    """A node's NIC in the LogGP model: the next times it may inject (``send_free_s``) and take in
    (``recv_free_s``) a message."""

    __slots__ = ("send_free_s", "recv_free_s")

    sends_later = True          # the send's start comes from its delay (the CPU's overhead), not an engine event

    def __init__(self, sim, eid, net, node):
        super().__init__(sim, eid, net, node)
        self.send_free_s = self.recv_free_s = 0.0

    def send_off_node(self, dst_node, nbytes, payload, on_sent, delay_s=0.0):
        """The CPU hands the message over ``delay_s`` from now, after its ``o``: the send started ``o``
        before that, or when the NIC may inject, whichever is later."""
        net = self.net
        params = net.params
        now = self.now
        start = max(now + delay_s - params.o, self.send_free_s, now)
        self.send_free_s = start + params.g + net.bytes_after_first(nbytes) * params.G
        net.messages += 1
        net.bytes += nbytes
        self.send(dst_node, "arrive", (nbytes, payload), start + params.o + params.L - now)
        if on_sent is not None:
            self.schedule_at(start + params.o, _call, on_sent)

    def arrive(self, message) -> None:
        """Service: a message's first byte is here; it is taken when the NIC may take one, and delivered
        ``(s-1) G`` later (the receiving CPU's ``o`` follows in the MPI engine)."""
        nbytes, payload = message
        net = self.net
        take = max(self.now, self.recv_free_s)
        stream_s = net.bytes_after_first(nbytes) * net.params.G
        self.recv_free_s = take + net.params.g + stream_s
        self.schedule_at(take + stream_s, _deliver, (self, payload))


def _call(fn):
    fn()


def _deliver(nic_payload):
    nic, payload = nic_payload
    nic.deliver(payload)


class LogGPNetwork(Network):
    """``num_nodes`` nodes joined in the LogGP model ``params`` (:class:`LogGP`), one NIC entity each (entity id:
    the node); no contention beyond the NICs' gaps."""

    kind = "loggp"

    def __init__(self, num_nodes: int, params: LogGP):
        if num_nodes < 1:
            raise ConfigError(f"a network needs at least one node, got {num_nodes}")
        self.params = params
        self.num_nodes = self.num_entities = num_nodes
        self.lookahead_s = params.L
        self.injection_bandwidth_Bps = 1.0 / params.G if params.G > 0.0 else math.inf
        self.messages = self.bytes = 0

    @staticmethod
    def bytes_after_first(nbytes: int) -> int:
        """The bytes LogGP charges ``G`` for: all but the first (none of an empty message)."""
        return nbytes - 1 if nbytes > 0 else 0

    def nic_eid(self, node: int) -> int:
        return node

    def build(self, sim) -> None:
        for node in range(self.num_nodes):
            sim.create(node, LogGPNic, self, node)

    def idle_latency_bound_s(self, nbytes: int) -> float:
        p = self.params
        return 2.0 * (p.o + p.L + p.g + self.bytes_after_first(nbytes) * p.G) + 1e-6

    def stats(self, sim) -> dict:
        return {"messages": self.messages, "bytes": self.bytes}

    @staticmethod
    def merge_stats(parts):
        total = {key: sum(part[key] for part in parts) for key in ("messages", "bytes")}
        total["mean_hops"] = 0.0
        return total


def loggp_job(num_ranks: int, params: LogGP):
    """An MPIJob of ``num_ranks`` ranks, each on a node of its own, timed in the LogGP model ``params``: the
    simulated MPI's send and receive overheads ``o``, every message eager, :class:`LogGPNetwork`."""
    from ppt.mpi import MPIJob
    from ppt.mpi.settings import MPISettings
    settings = MPISettings(eager_threshold_B=ALL_EAGER_B, send_overhead_s=params.o, recv_overhead_s=params.o)
    return MPIJob(LogGPNetwork(num_ranks, params), num_ranks, 1, settings=settings)

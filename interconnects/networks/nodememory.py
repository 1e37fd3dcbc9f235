"""Transfers within one node: copies through the node's memory, which concurrent copies share.

A message between two ranks of one node is a copy through shared memory: it
takes ``latency_s`` plus its bytes at its share of the node's copy bandwidth,
``bandwidth_Bps`` split max-min fairly (here: equally) among the copies in
progress on that node (:mod:`ppt.interconnects.networks.fairshare`).  Every network
kind hands its same-node messages to this model.
"""
from __future__ import annotations

import math

from ppt.errors import ConfigError
from ppt.interconnects.networks.fairshare import FairShare

#: Latency of a same-node copy when neither the preset nor the network gives one, s.
DEFAULT_LATENCY_S = 1e-7


class NodeMemory:
    """Same-node message copies: ``bandwidth_Bps`` per node shared by its copies, plus ``latency_s`` each."""

    def __init__(self, bandwidth_Bps: float, latency_s: float):
        if not bandwidth_Bps > 0.0 or not 0.0 <= latency_s < math.inf:
            raise ConfigError(f"node memory needs bandwidth_Bps > 0 and a finite latency_s >= 0, "
                              f"got {bandwidth_Bps!r} and {latency_s!r}")
        self.bandwidth_Bps = bandwidth_Bps
        self.latency_s = latency_s
        #: Per node: the fair sharing of its copies (scheduled by its NIC) and the path through its memory.
        self._nodes: dict[int, tuple[FairShare, int]] = {}
        self.copies = 0
        self.bytes = 0

    @classmethod
    def from_machine(cls, machine) -> "NodeMemory":
        """The node memory of a machine: half its node model's copy bandwidth (a copy reads and writes
        each byte once) and its network settings' ``shm_latency_s`` (the hardware part only, as the MPI
        library's per-message overheads are charged by the MPI layer, :mod:`ppt.mpi.settings`)."""
        node = machine.node_model
        if node.copy_bandwidth_Bps is None:
            raise ConfigError(f"processor {node.name!r} has no memory.copy_bandwidth_Bps: add the node's STREAM "
                              f"Copy bandwidth (bytes/s, read + write bytes) to its preset; same-node messages "
                              f"share it")
        return cls(node.copy_bandwidth_Bps / 2, machine.network_settings.shm_latency_s)

    def copy(self, nic, nbytes: int, payload, on_sent=None) -> None:
        """Copy ``nbytes`` within ``nic``'s node; the payload reaches its host, then ``on_sent()`` runs."""
        self.copies += 1
        self.bytes += nbytes
        if self.bandwidth_Bps == math.inf:
            _arrive((nic, payload, on_sent), self.latency_s)
            return
        node = self._nodes.get(nic.node)
        if node is None:
            share = FairShare(nic, [self.bandwidth_Bps])
            node = self._nodes[nic.node] = (share, share.path([[0]]))
        share, memory = node
        share.start(memory, nbytes, self._copied, (nic, payload, on_sent))

    def _copied(self, copy) -> None:
        _arrive(copy, self.latency_s)


def _arrive(copy, delay_s: float) -> None:
    """The payload reaches the node's host, then ``on_sent`` runs, in one event of the node's NIC
    (whose events are ordered among themselves, so nothing can run between the two)."""
    nic, payload, on_sent = copy
    if on_sent is None:
        nic.schedule(delay_s, nic.deliver, payload)
    else:
        nic.schedule(delay_s, _deliver_then_call, copy)


def _deliver_then_call(copy) -> None:
    nic, payload, on_sent = copy
    nic.deliver(payload)
    on_sent()

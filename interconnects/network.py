"""The interface between the MPI layer and every network model.

A network owns one :class:`Nic` entity per compute node (plus, for packet
models, router entities).  The MPI layer runs its rank processes inside the
NIC entity of their node, sets ``nic.host`` to a callable that receives
arriving messages, and sends with :meth:`Nic.send_message`.

Entity ids: every network numbers its entities so that a router and its
nodes' NICs are contiguous (``Network.nic_eid``), which keeps them on the same
simulation rank under block placement.
"""
from __future__ import annotations

from ppt.engine import Entity


class Nic(Entity):
    """A compute node's network interface.

    ``host(payload)`` is called (in this entity, at the arrival time of the
    last byte) for every message addressed to this node.
    """

    __slots__ = ("net", "node", "host")

    def __init__(self, sim, eid, net, node):
        super().__init__(sim, eid, f"node[{node}]")
        self.net = net
        self.node = node
        self.host = None

    def send_message(self, dst_node: int, nbytes: int, payload, on_sent=None) -> None:
        """Send ``nbytes`` to node ``dst_node``; ``payload`` reaches its host.

        ``on_sent()`` runs in this entity once the last byte has left this NIC
        (the send buffer may be reused).
        """
        raise NotImplementedError

    def deliver(self, payload) -> None:
        """Service: a message has fully arrived; hand it to the host."""
        self.host(payload)


class Network:
    """Base of all network models.  Subclasses create entities in :meth:`build`."""

    #: Messages of at most this many bytes are sent eagerly by MPI.
    eager_threshold_B: int = 8192
    #: Smallest delay of any event between two entities (parallel lookahead), s.
    lookahead_s: float
    num_nodes: int
    #: Total entity ids the model uses (block placement in parallel runs).
    num_entities: int

    def nic_eid(self, node: int) -> int:
        raise NotImplementedError

    def build(self, sim) -> None:
        """Create this rank's entities in ``sim``."""
        raise NotImplementedError

    def nic(self, sim, node: int) -> Nic:
        """The NIC entity of ``node`` (it must live on this simulation rank)."""
        return sim.entities[self.nic_eid(node)]

    def stats(self, sim) -> dict:
        """This rank's network statistics; :meth:`merge_stats` combines ranks."""
        return {}

    @staticmethod
    def merge_stats(parts: list[dict]) -> dict:
        return parts[0] if parts else {}

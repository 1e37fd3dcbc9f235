"""The contract between the MPI layer, the drivers and every network model.

A network owns one :class:`Nic` entity per compute node that hosts work.  The
MPI layer runs its rank processes inside the NIC entity of their node, sets
``nic.host`` to a callable that receives arriving messages, and sends with
:meth:`Nic.send_message`.  Drivers (latency survey, traffic, replay) use only
the calls declared on :class:`Network`.

Network kinds register by name (:func:`register_network`);
:mod:`ppt.interconnects.networks.kinds` loads them and builds one by name, so
``--network NAME`` has one lookup.

Entity ids: every network numbers its entities so that a router and its
nodes' NICs are contiguous (``Network.nic_eid``), which keeps them on the same
simulation rank under block placement.

A network of one's own (a subclass of :class:`Network`, or of a built-in kind)
and a node memory of one's own (a subclass of
:class:`~ppt.interconnects.networks.nodememory.NodeMemory`) run on the MPI
engine, which calls such a model in Python, per message (:mod:`ppt.mpi.engine.pynet`),
and needs two rules of it:

* the model's only inputs are ``Nic.send_message`` (or ``send_off_node``),
  ``NodeMemory.copy`` and its own events, which it schedules through its
  entities (``schedule``, ``schedule_at``, ``send``; ``Simulation.post`` with a
  key of its own, no two queued events with the same time and key); a payload
  is opaque (the engine's number of the message);
* it delivers a message (``Nic.deliver``) and calls ``on_sent()`` in its events,
  never within the ``send_message`` or ``copy`` call that started the message.
"""
from __future__ import annotations

from ppt.engine import Entity
from ppt.engine.parallel import AUTO
from ppt.errors import ConfigError

NETWORKS: dict[str, type] = {}


def register_network(name: str):
    """Class decorator: network kind ``name`` (built with ``cls.from_machine(machine)``)."""
    def register(cls):
        cls.kind = name
        NETWORKS[name] = cls
        return cls
    return register


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

    #: True if :meth:`send_off_node` takes a future start itself (no engine event for a delayed send).
    sends_later = False

    def send_message(self, dst_node: int, nbytes: int, payload, on_sent=None, delay_s: float = 0.0) -> None:
        """Send ``nbytes`` to node ``dst_node``, starting ``delay_s`` seconds from now;
        ``payload`` reaches its host.

        ``on_sent()`` runs in this entity once the last byte has left this NIC
        (the send buffer may be reused).  Within the node the copy goes through
        the node's memory (``net.node_memory``), in every network kind.
        """
        if dst_node != self.node and (self.sends_later or not delay_s):
            self.send_off_node(dst_node, nbytes, payload, on_sent, delay_s)
        elif delay_s:
            self.schedule(delay_s, self._send_now, (dst_node, nbytes, payload, on_sent))
        else:
            self.net.node_memory.copy(self, nbytes, payload, on_sent)

    def _send_now(self, message) -> None:
        self.send_message(*message)

    def send_off_node(self, dst_node: int, nbytes: int, payload, on_sent, delay_s: float = 0.0) -> None:
        """:meth:`send_message` to another node: what each network kind models (``delay_s``
        is non-zero only where the kind sets ``sends_later``)."""
        raise NotImplementedError

    def deliver(self, payload) -> None:
        """Service: a message has fully arrived; hand it to the host."""
        self.host(payload)


class Network:
    """Base of all network models.  Subclasses create entities in :meth:`build`."""

    #: Registered name of the kind (set by :func:`register_network`).
    kind: str = "?"
    #: Smallest delay of any event between two entities (parallel lookahead), s.
    lookahead_s: float
    num_nodes: int
    #: Total entity ids the model uses (block placement in parallel runs).
    num_entities: int
    #: Bytes/s one node can inject.
    injection_bandwidth_Bps: float
    #: Whether the kind models ``network.planes`` (independent router planes, a NIC rail into each).
    models_planes = False

    @classmethod
    def from_machine(cls, machine) -> "Network":
        raise NotImplementedError

    @property
    def node_memory(self):
        """The model of same-node messages (:mod:`ppt.interconnects.networks.nodememory`) every NIC hands them
        to: the machine's (set by :func:`~ppt.interconnects.networks.kinds.build_network`), or by default the
        injection bandwidth shared."""
        memory = self.__dict__.get("_node_memory")
        if memory is None:
            from ppt.interconnects.networks.nodememory import DEFAULT_LATENCY_S, NodeMemory
            memory = self._node_memory = NodeMemory(self.injection_bandwidth_Bps, DEFAULT_LATENCY_S)
        return memory

    @node_memory.setter
    def node_memory(self, memory) -> None:
        self._node_memory = memory

    def simulation(self, comm=AUTO, name: str = "ppt", progress=None):
        """A new simulation holding this network, built (``comm``: the engine's mpi4py
        communicator, None for a serial run; by default the mpiexec world, if any)."""
        from ppt.engine import Simulation
        sim = Simulation(num_entities=self.num_entities, lookahead_s=self.lookahead_s, comm=comm, name=name)
        sim.progress = progress
        self.build(sim)
        return sim

    def nic_eid(self, node: int) -> int:
        raise NotImplementedError

    def build(self, sim) -> None:
        """Create this rank's part of the network in ``sim``."""
        raise NotImplementedError

    def nic(self, sim, node: int) -> Nic:
        """The NIC entity of ``node`` (it must live on this simulation rank; made on first use)."""
        return sim.entities[self.nic_eid(node)]

    def local_nodes(self, sim) -> list[int]:
        """Nodes whose NICs live on this simulation rank."""
        return [n for n in range(self.num_nodes) if sim.is_local(self.nic_eid(n))]

    def host_every_node(self, sim, host) -> None:
        """Make ``host`` the host of every node of this rank (drivers that treat all nodes alike)."""
        for node in self.local_nodes(sim):
            self.nic(sim, node).host = host

    def idle_latency_bound_s(self, nbytes: int) -> float:
        """An upper bound (s) on one ``nbytes`` message's latency across the idle network."""
        raise NotImplementedError

    def start_traffic(self, source_cfg, tables=()) -> None:
        """Start synthetic packet sources on this rank's NICs of the config's nodes (a ``ppt_traffic_config_t``
        whose arrays are ``tables``: the network keeps them alive while its sources run)."""
        raise ConfigError(f"synthetic traffic runs on the packet network, not the {self.kind} network")

    def end_s(self, sim) -> float:
        """Time of this rank's last event, the network's own included, s."""
        return sim.now

    def stats(self, sim) -> dict:
        """This rank's network statistics; :meth:`merge_stats` combines ranks."""
        return {}

    @staticmethod
    def merge_stats(parts: list[dict]) -> dict:
        return parts[0] if parts else {}

"""A network or node memory model of one's own on the MPI engine: the model runs in Python.

The engine (:mod:`ppt.mpi.engine.replay`) carries the built-in models in C.  Any other model -- a
subclass of :class:`~ppt.interconnects.networks.network.Network` (of the analytic, flow or packet
network too) or of :class:`~ppt.interconnects.networks.nodememory.NodeMemory` -- runs in Python, in
its own simulation (``net.simulation()``), with the engine calling into it per message and per event
of the model: slower, the same engine.

* **Sending.**  The engine hands a model network every message:
  ``nic.send_message(dst_node, nbytes, payload, on_sent, delay_s)`` on the sending node's NIC (a
  model node memory alone gets the copies within a node: ``node_memory.copy(nic, nbytes, payload,
  on_sent)``).  The payload is the engine's number of the message: a model carries it, it does
  not look into it.
* **Events.**  Whatever the model schedules through its entities (``schedule``, ``send``, ``post``)
  joins the engine's queue with the same time and key, and runs there in its turn.  The engine's
  own events of a node are keyed by the node's NIC entity's running count, so the two take turns
  with one count: the engine reads it back from the NIC after the model ran
  and sets it before the model runs again.
* **Arriving and finishing.**  ``nic.deliver(payload)`` (the NIC's host) hands the message to the
  engine; ``on_sent()`` finishes its send.  Both must happen in the model's events, not within the
  ``send_message`` or ``copy`` call that started the message.

* **In parallel** (``mpiexec``) each process runs its part of the model, the entities
  ``net.simulation(comm)`` makes there (the partition of :mod:`ppt.engine.parallel`): the model's events
  for other processes' entities travel in the engine's window exchange (:class:`PythonModels` is one
  of its exchanges), and a message to a rank of another process goes ahead to it as the model takes it,
  under a number of its own (``PPT_MPI_PYTHON_AHEAD`` in ``core/mpicore.h``) that the model carries to its
  destination.

An exception the model raises stops the run, and the run (:func:`ppt.mpi.engine.program.run_job`,
:func:`ppt.mpi.engine.replay.replay_job`) raises it again.
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from functools import partial

from ppt.engine.entity import KEY_BITS
from ppt.errors import ConfigError
from ppt.mpi.engine.core import ffi, lib


class PythonModels:
    """The Python side of an engine running a model network (``whole_network``) or only a model node
    memory, in ``sim`` (a simulation of ``net``, built; in a parallel run this process's part of it), for
    ranks on ``nodes``."""

    def __init__(self, m, net, sim, nodes, whole_network: bool):
        self.m, self.net, self.sim = m, net, sim
        self.whole_network = whole_network
        #: The NIC entities of the ranks' nodes here, the only ones a message leaves from or reaches.
        self.nics = {node: net.nic(sim, node) for node in sorted(set(nodes)) if sim.is_local(net.nic_eid(node))}
        self.node_of_eid = {nic.eid: node for node, nic in self.nics.items()}
        #: The model's queued events by (time, key): (service, data).
        self.pending: dict[int, tuple] = {}
        #: The model's exception, raised again once the engine has stopped.
        self.failure: BaseException | None = None
        self.starting = False              # within send_message or copy: no delivery yet
        self.dirty_nodes = ffi.new("int32_t[]", max(net.num_nodes, 1))
        self.dirty_keys = ffi.new("uint64_t[]", max(net.num_nodes, 1))
        self.handle = ffi.new_handle(self)
        for nic in self.nics.values():
            nic.host = self.arrive
        sim.peek = self.peek                # a model may look ahead (the packet network's does)
        which = lib.PPT_MPI_PYTHON_ALL if whole_network else lib.PPT_MPI_PYTHON_COPIES
        lib.ppt_mpi_set_python_sends(m, which, self.handle)
        if whole_network:
            self.to_engine()               # what building the model queued

    # -- the one count and queue the engine and the model share ---------------------------------------
    def to_engine(self) -> None:
        """Move the events the model queued into the engine's queue, and the counts of the NICs that
        scheduled them to the engine."""
        heap = self.sim.heap
        if not heap:
            return
        m, pending, nics, node_of_eid = self.m, self.pending, self.nics, self.node_of_eid
        for time_s, key, service, data in heap:
            entry = (service, data)
            if pending.setdefault((time_s, key), entry) is not entry:
                raise ConfigError(f"the network model queued two events at {time_s!r} s with key {key}: an event's "
                                  f"time and key must be unique")
            node = node_of_eid.get(key >> KEY_BITS, -1)
            lib.ppt_mpi_python_event(m, time_s, key, node, nics[node]._key if node >= 0 else 0)
        heap.clear()

    def from_engine(self) -> None:
        """Bring the model's NICs' counts up to the engine's."""
        nics, nodes, keys = self.nics, self.dirty_nodes, self.dirty_keys
        for k in range(lib.ppt_mpi_python_keys(self.m, nodes, keys)):
            nic = nics.get(nodes[k])
            if nic is not None:
                nic._key = keys[k]

    def peek(self) -> float:
        """Time of the next event, the engine's or the model's (s)."""
        heap = self.sim.heap
        return min(lib.ppt_mpi_next_s(self.m), heap[0][0] if heap else math.inf)

    # -- the engine's calls --------------------------------------------------------------------------
    def send(self, msg: int, src_node: int, dst_node: int, nbytes: int, delay_s: float, on_sent: int,
             now_s: float) -> int:
        """Hand message ``msg`` to the model at ``now_s``; 0, or -1 if it raised."""
        done = None if on_sent < 0 else partial(self.into_engine, lib.ppt_mpi_python_sent, on_sent)
        nic = self.nics[src_node]
        if self.whole_network:
            return self.run(nic.send_message, (dst_node, nbytes, msg, done, delay_s), now_s, starting=True)
        return self.run(self.net.node_memory.copy, (nic, nbytes, msg, done), now_s, starting=True)

    def event(self, time_s: float, key: int) -> int:
        """Run the model's event at ``time_s`` with ``key``; 0, or -1 if it raised."""
        service, data = self.pending.pop((time_s, key))
        return self.run(service, (data,), time_s)

    def run(self, step, args: tuple, now_s: float, starting: bool = False) -> int:
        """Run ``step(*args)`` of the model at ``now_s`` (``starting``: a send or copy) between the engine's
        events; 0, or -1 if it raised (kept in :attr:`failure`)."""
        if self.failure is not None:
            return -1
        sim = self.sim
        sim.now = now_s
        self.from_engine()
        self.starting = starting
        events = sim.events
        try:
            step(*args)
            self.to_engine()
            if sim.events != events:                # the model counted events of its own
                lib.ppt_mpi_python_events(self.m, sim.events - events)
        except Exception as exc:        # noqa: BLE001  (raised again once the engine has stopped)
            self.failure = exc
            return -1
        finally:
            self.starting = False
        return 0

    # -- a parallel run: the model's events for other simulation processes (an exchange of run_windows) ----
    @contextmanager
    def window(self, end_s: float):
        """Run the model within a window ending at ``end_s`` (s), as a parallel simulation runs one: no event
        at or past its end, and none for another process sooner."""
        self.sim.horizon = self.sim.window_end = end_s
        try:
            yield
        finally:
            self.sim.window_end = -math.inf

    def outgoing_min_s(self) -> float:
        return min((event[0] for batch in self.sim._outbox for event in batch), default=math.inf)

    def outgoing(self) -> list:
        out, self.sim._outbox = self.sim._outbox, [[] for _ in range(self.sim.size)]
        return [(b"", batch) if batch else None for batch in out]

    def incoming(self, parts: list) -> None:
        """Queue the model's events from the other processes, and whatever its own exchanges (the window's
        earlier ones) queued, in the engine."""
        self.sim._deliver(part[1] for part in parts if part is not None)
        self.to_engine()

    # -- the model's calls ---------------------------------------------------------------------------
    def arrive(self, msg: int) -> None:
        """Every NIC's host: message ``msg`` reaches its destination rank."""
        self.into_engine(lib.ppt_mpi_python_arrive, msg)

    def into_engine(self, call, number: int) -> None:
        """``call(m, number)`` of the engine from within the model, the shared count and queue handed over."""
        if self.starting:
            raise ConfigError("a network model must deliver a message and finish its send in its own events, "
                              "not within send_message or copy")
        self.to_engine()
        call(self.m, number)
        self.from_engine()


@ffi.def_extern()
def ppt_mpi_send_cb(handle, msg, src_node, dst_node, nbytes, delay_s, on_sent, now_s):
    return ffi.from_handle(handle).send(msg, src_node, dst_node, nbytes, delay_s, on_sent, now_s)


@ffi.def_extern()
def ppt_mpi_event_cb(handle, t_s, key):
    return ffi.from_handle(handle).event(t_s, key)

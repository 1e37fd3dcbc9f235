"""Network and node memory models of one's own on the compiled MPI engine (ppt.mpi.engine.pynet).

The engine runs such a model in Python beside its own events; every program and trace here gives the
result, events and network statistics recorded when a Python twin of the engine checked them to the
last bit (``mpi_helpers.recorded``, ``test_compiled_replay._same``), and models that only repeat a
built-in network's timing give that network's prediction.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from mpi_helpers import BANDWIDTH_BPS, LATENCY_S, message_s, recorded, run
from shared_traces import real
from test_compiled_replay import _random_trace, _same, _shared
from ppt.engine import Entity
from ppt.errors import ConfigError
from ppt.interconnects.networks.analytic import AnalyticNetwork, AnalyticNic
from ppt.interconnects.networks.flownet import FlowNetwork
from ppt.interconnects.networks.network import Network, Nic
from ppt.interconnects.networks.nodememory import NodeMemory
from ppt.interconnects.networks.packetnet import PacketNetwork
from ppt.mpi import ANY_SOURCE, MPIJob
from ppt.mpi.settings import MPISettings


# -- the models ------------------------------------------------------------------------------------
class FarNic(AnalyticNic):
    """The analytic NIC with a latency growing with the distance between node numbers."""
    __slots__ = ()

    def send_off_node(self, dst_node, nbytes, payload, on_sent, delay_s=0.0):
        net = self.net
        wire_s = nbytes / net.bandwidth_Bps
        self.send(net.nic_eid(dst_node), "deliver", payload, net.latency_s * abs(dst_node - self.node) + wire_s)
        if on_sent is not None:
            self.schedule(wire_s, _call, on_sent)


class FarNetwork(AnalyticNetwork):
    def build(self, sim):
        for node in range(self.num_nodes):
            sim.create(node, FarNic, self, node)


class SameAnalytic(AnalyticNetwork):
    """A subclass that changes nothing: its runs must time as the analytic network's."""


class QueuedNic(Nic):
    """Sends one message at a time (the next waits for the last byte of the one before), to the switch."""
    __slots__ = ("free_s",)

    def __init__(self, sim, eid, net, node):
        super().__init__(sim, eid, net, node)
        self.free_s = 0.0

    def send_off_node(self, dst_node, nbytes, payload, on_sent, delay_s=0.0):
        net = self.net
        self.free_s = max(self.now, self.free_s) + nbytes / net.bandwidth_Bps
        self.send(net.switch_eid, "forward", (dst_node, payload), self.free_s - self.now + net.latency_s)
        if on_sent is not None:
            self.schedule_at(self.free_s, _call, on_sent)


class Switch(Entity):
    __slots__ = ("net",)

    def __init__(self, sim, eid, net):
        super().__init__(sim, eid, "switch")
        self.net = net

    def forward(self, message):
        dst_node, payload = message
        self.net.forwarded += 1
        self.send(self.net.nic_eid(dst_node), "deliver", payload, self.net.latency_s)


class StarNetwork(Network):
    """A network of one's own from the contract alone: queued NICs around one switch entity."""
    kind = "star"

    def __init__(self, num_nodes, latency_s=LATENCY_S, bandwidth_Bps=BANDWIDTH_BPS):
        self.num_nodes, self.num_entities, self.switch_eid = num_nodes, num_nodes + 1, num_nodes
        self.latency_s, self.bandwidth_Bps = latency_s, bandwidth_Bps
        self.lookahead_s, self.injection_bandwidth_Bps = latency_s, bandwidth_Bps
        self.forwarded = 0

    def nic_eid(self, node):
        return node

    def build(self, sim):
        for node in range(self.num_nodes):
            sim.create(node, QueuedNic, self, node)
        sim.create(self.switch_eid, Switch, self)

    def stats(self, sim):
        return {"forwarded": self.forwarded}

    @staticmethod
    def merge_stats(parts):
        """In a parallel run the switch counts on the one process it lives on."""
        return {"forwarded": sum(part["forwarded"] for part in parts)}


class StagedMemory(NodeMemory):
    """Same-node copies that start a set-up time after they are asked for."""
    SETUP_S = 3e-7

    def copy(self, nic, nbytes, payload, on_sent=None):
        nic.schedule(self.SETUP_S, self._start, (nic, nbytes, payload, on_sent))

    def _start(self, copy):
        super().copy(*copy)


def _call(fn):
    fn()


def far(nodes):
    return FarNetwork(nodes, LATENCY_S, BANDWIDTH_BPS)


def same(nodes):
    return SameAnalytic(nodes, LATENCY_S, BANDWIDTH_BPS)


def staged(nodes):
    net = AnalyticNetwork(nodes, LATENCY_S, BANDWIDTH_BPS)
    net.node_memory = StagedMemory(BANDWIDTH_BPS, LATENCY_S)
    return net


MODELS = [far, same, StarNetwork, staged]


# -- programs ----------------------------------------------------------------------------------------
def exchanges(mpi):
    """Wildcard receives, eager and rendezvous sizes, nonblocking calls and collectives."""
    comm = mpi.COMM_WORLD
    me, size = comm.rank, comm.size
    out = []
    for nbytes in (8, 100_000):
        reqs = [comm.isend(np.full(nbytes // 8, me), dest=(me + k) % size, tag=k) for k in range(1, size)]
        got = sorted(int(comm.recv(source=ANY_SOURCE, tag=k)[0]) for k in range(1, size))
        mpi.Request.waitall(reqs)
        out.append((got, mpi.Wtime()))
    out.append(comm.allreduce(me))
    out.append(comm.alltoall([me * size + k for k in range(size)]))
    sub = comm.Split(me % 2, me)
    out.append((sub.allgather(me), sub.bcast(me, root=0), mpi.Wtime()))
    return out


def ring(mpi, nbytes):
    comm = mpi.COMM_WORLD
    me, size = comm.rank, comm.size
    for _ in range(3):
        comm.sendrecv(bytes(nbytes), dest=(me + 1) % size, source=(me - 1) % size)
    return mpi.Wtime()


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("ranks_per_node", [1, 2, 3])
def test_programs_on_models_of_ones_own_run_as_recorded(model, ranks_per_node):
    recorded(6, exchanges, ranks_per_node=ranks_per_node, net=model, send_overhead_s=1e-7, recv_overhead_s=2e-7)
    recorded(5, ring, 20_000, ranks_per_node=ranks_per_node, net=model)


def test_a_subclass_that_changes_nothing_times_as_the_analytic_network():
    """The closed form of an eager message, through the model's own code on the compiled engine."""
    def pingpong(mpi):
        comm = mpi.COMM_WORLD
        if comm.rank == 0:
            comm.send(b"x", dest=1)
            comm.recv(source=1)
        else:
            comm.send(comm.recv(source=0), dest=0)
        return mpi.Wtime()
    got = run(2, pingpong, net=same)
    assert got.returns[0] == 2 * message_s(1) and got.network["messages"] == 2


def test_the_star_network_queues_a_nics_messages_one_after_another():
    """Three rendezvous-free messages from one NIC leave one after another: the last arrives after three
    wire times, two latencies (NIC to switch, switch to NIC)."""
    def fan_out(mpi):
        comm = mpi.COMM_WORLD
        if comm.rank == 0:
            mpi.Request.waitall([comm.isend(bytes(1000), dest=d) for d in (1, 2, 3)])
            return None
        comm.recv(source=0)
        return mpi.Wtime()
    got = run(4, fan_out, net=StarNetwork)
    wire_s = 1000 / BANDWIDTH_BPS
    assert got.returns[1:] == [k * wire_s + 2 * LATENCY_S for k in (1, 2, 3)]
    assert got.network == {"forwarded": 3}


def test_a_model_node_memory_counts_its_own_copies_on_the_compiled_engine():
    """Four ranks, two a node, pass 1000 bytes round a ring three times: half the messages cross the network,
    half are copies within a node, which the model in Python counts."""
    job = MPIJob(staged(2), 4, ranks_per_node=2, comm=None)
    result = job.run(ring, 1000)
    memory = job.network.node_memory
    assert result.network["messages"] == 6 and (memory.copies, memory.bytes) == (6, 6000)


def send_one(mpi):
    if mpi.COMM_WORLD.rank == 0:
        mpi.COMM_WORLD.send(b"x", dest=1)
    else:
        mpi.COMM_WORLD.recv(source=0)


def test_an_exception_in_the_model_is_raised_as_recorded():
    """The model raises in one of its events during the run; the run raises it again."""
    class BrokenSwitch(Switch):
        __slots__ = ()

        def forward(self, message):
            raise RuntimeError("the switch cannot forward")

    class Broken(StarNetwork):
        def build(self, sim):
            for node in range(self.num_nodes):
                sim.create(node, QueuedNic, self, node)
            sim.create(self.switch_eid, BrokenSwitch, self)
    with pytest.raises(RuntimeError, match="the switch cannot forward"):
        recorded(2, send_one, net=Broken)


def test_a_model_delivering_within_send_message_is_refused_in_one_line():
    class Instant(QueuedNic):
        __slots__ = ()

        def send_off_node(self, dst_node, nbytes, payload, on_sent, delay_s=0.0):
            self.deliver(payload)

    class InstantStar(StarNetwork):
        def build(self, sim):
            for node in range(self.num_nodes):
                sim.create(node, Instant, self, node)
    with pytest.raises(ConfigError, match="^a network model must deliver a message .* in its own events"):
        run(2, send_one, net=InstantStar)


# -- replay ------------------------------------------------------------------------------------------
def _job_on(model, trace, per_node=2):
    return lambda: MPIJob(model(-(-trace.num_ranks // per_node)), trace.num_ranks, per_node,
                          settings=MPISettings(4096, 1e-7, 2e-7))


#: The DUMPI traces the replay tests read: a real one where the real traces are, and a shipped sample.
TRACES = [*real("hpccg_n4"), "halo3d_n8"]


@pytest.mark.parametrize("name", TRACES)
@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_traces_replay_on_models_of_ones_own_as_recorded(model, name):
    trace = _shared(name)
    assert "predicted_s" in _same(trace, _job_on(model, trace))
    for seed in range(6):
        trace, _ = _random_trace(seed)
        _same(trace, _job_on(model, trace))


class OwnPacketNetwork(PacketNetwork):
    """The packet network's Python model, run beside the compiled engine."""


class OwnFlowNetwork(FlowNetwork):
    """The flow network's Python model, run beside the compiled engine."""


@pytest.mark.parametrize("cls", [OwnPacketNetwork, OwnFlowNetwork])
def test_programs_on_subclasses_of_the_built_in_networks_run_as_recorded(cls):
    """Their Python models beside the engine: the packet network's counts its core's events, not its wake-ups."""
    from ppt.hardware.systems import load_system
    from ppt.machine import Machine
    machine = Machine(load_system("fattree-4-3"), "packet")

    def net(nodes):
        built = cls.from_machine(machine)
        built.node_memory = NodeMemory.from_machine(machine)
        return built
    recorded(8, exchanges, ranks_per_node=2, net=net)


@pytest.mark.parametrize("name", TRACES)
@pytest.mark.parametrize("kind,cls", [("packet", OwnPacketNetwork), ("flow", OwnFlowNetwork), ("packet", None),
                                      ("flow", None)])
def test_subclasses_of_the_built_in_networks_and_model_memory_replay_as_recorded(kind, cls, name):
    """A subclass of the packet or flow network runs its Python model; a model memory beside the built-in
    ones runs the network in C and the copies in Python."""
    from ppt.hardware.systems import load_system
    from ppt.machine import Machine
    trace = _shared(name)
    machine = Machine(load_system("fattree-4-3"), kind)

    def make_job():
        net = machine.network() if cls is None else cls.from_machine(machine)
        memory = NodeMemory.from_machine(machine)
        net.node_memory = memory if cls else StagedMemory(memory.bandwidth_Bps, memory.latency_s)
        return MPIJob(net, trace.num_ranks, 2, settings=MPISettings.from_preset(machine.preset))
    result = json.loads(_same(trace, make_job))
    assert result["predicted_s"] > 0

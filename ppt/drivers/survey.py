"""Latency survey: node 0 sends one message to every other node, one at a time.

Messages leave node 0 ``gap_s`` apart, a gap longer than any message's
latency on the idle network (checked after the run), so each one crosses an
otherwise idle network while the run stays free of cross-node callbacks (and
so runs unchanged on the parallel engine).

Two levels are reported.  The network level (``network_min_s`` ...) is the
NIC-to-NIC latency the network model gives, from the hand-over of a message
to the source NIC to its delivery at the destination: the hardware end-to-end
figure vendors publish.  The MPI level (``min_s`` ...) adds the MPI library's
send and receive overheads of the preset (:mod:`ppt.mpi.settings`), which a
lone message on an idle network pays exactly once each: the one-way latency
users measure with an MPI ping-pong.
"""
from __future__ import annotations

import math

from ppt.errors import SimulationError
from ppt.mpi.settings import MPISettings


class _Recorder:
    """Host of every NIC: records the latency of each arriving survey message."""

    __slots__ = ("sim", "count", "sum_s", "min_s", "max_s")

    def __init__(self, sim):
        self.sim = sim
        self.count = 0
        self.sum_s = 0.0
        self.min_s = math.inf
        self.max_s = 0.0

    def __call__(self, sent_s):
        latency = self.sim.now - sent_s
        self.count += 1
        self.sum_s += latency
        self.min_s = min(self.min_s, latency)
        self.max_s = max(self.max_s, latency)


def latency_survey(machine, nbytes: int = 8, progress=None, source: int = 0) -> dict | None:
    """Min/mean/max one-way latency (s) from ``source`` to every other node, at MPI and at network level
    (on simulation rank 0; None elsewhere)."""
    mpi = MPISettings.from_preset(machine.preset)
    net = machine.network()
    sim = net.simulation(name="survey", progress=progress)
    recorder = _Recorder(sim)
    net.host_every_node(sim, recorder)
    gap = net.idle_latency_bound_s(nbytes)
    targets = [n for n in range(net.num_nodes) if n != source]
    if sim.is_local(net.nic_eid(source)):
        nic = net.nic(sim, source)

        def send_next(index):
            nic.send_message(targets[index], nbytes, sim.now)
            if index + 1 < len(targets):
                nic.schedule(gap, send_next, index + 1)

        nic.schedule(0.0, send_next, 0)
    sim.run()
    parts = sim.gather((recorder.count, recorder.sum_s, recorder.min_s, recorder.max_s))
    events = sim.total_events()
    if parts is None:
        return None
    count = sum(p[0] for p in parts)
    worst = max(p[3] for p in parts)
    if worst >= gap:
        raise SimulationError(f"survey messages overlapped (latency {worst:.3g} s >= gap {gap:.3g} s)")
    network = {"min_s": min(p[2] for p in parts), "mean_s": sum(p[1] for p in parts) / count, "max_s": worst}
    return {"system": machine.name, "bytes": nbytes, "count": count,
            **{key: value + mpi.overhead_s for key, value in network.items()},
            **{f"network_{key}": value for key, value in network.items()},
            "send_overhead_s": mpi.send_overhead_s, "recv_overhead_s": mpi.recv_overhead_s, "events": events}

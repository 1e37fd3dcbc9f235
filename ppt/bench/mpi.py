"""MPI-layer speed: simulated MPI messages (and calls) per wall-clock second, against a bare compiled loop.

Workloads (rank counts and iterations at ``scale`` 1):

``alltoall``
    one alltoall of 1 KiB blocks on 512 ranks (pairwise exchange: P*(P-1) messages);
``allreduce``
    50 allreduces of 8 bytes on 1,024 ranks (recursive doubling: P*log2(P) messages each);
``halo``
    a halo exchange written at the Python level on 1,024 ranks: every iteration each rank posts an
    irecv and an isend of 1 KiB per neighbour and waits for all of them; iteration i exchanges with
    the ring neighbours up to distance ``HALO_REACH[i % 3]`` (2, 4 or 6 neighbours), 30 iterations;
``replay``
    the replay of a synthetic op-stream trace on 1,024 ranks (:mod:`ppt.traces.writers.synthetic`): 20
    iterations of a halo exchange of 1 KiB with the 6 neighbours of a 16x8x8 grid after a compute
    gap, then an 8-byte allreduce; the trace's streams are made as the replay reads them (a few
    numpy operations per 150 iterations of a rank), so its wall time is the replay's.

Each runs on the networks it is given: by default (:data:`NETWORKS`) the contention-free analytic
network of :func:`analytic_job`, whose figures are those of the MPI layer, then the packet networks of
a dragonfly and a torus preset, whose figures add the packet core's events.  Its wall time
is the min and median over ``repeats`` runs; messages/s and calls/s are taken at the min.  The
baseline, measured in the same run, is the network core's bare compiled event loop
(:func:`~ppt.bench.network.bare_loop_events_per_s`) for as many events as the workload executed,
holding one pending event per rank; ``ratio`` is messages/s over the bare loop's events/s (1.0:
a message costs what one bare heap event does).
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Callable

from ppt.bench.network import bare_loop_events_per_s
from ppt.traces.writers.synthetic import SyntheticTrace, recursive_doubling_messages

#: Ranks per node of the analytic network's jobs.
RANKS_PER_NODE = 16
#: Bytes of an alltoall block, of an allreduce's vector and of a halo message.
ALLTOALL_B, ALLREDUCE_B, HALO_B = 1024, 8, 1024
#: Ring distance up to which iteration i of the halo exchanges, cycling: 2, 4 and 6 neighbours.
HALO_REACH = (1, 2, 3)
#: Ranks and iterations of the workloads at scale 1.
ALLTOALL_RANKS = 512
ALLREDUCE_RANKS, ALLREDUCE_ITERATIONS = 1024, 50
HALO_RANKS, HALO_ITERATIONS = 1024, 30
REPLAY_RANKS, REPLAY_ITERATIONS = 1024, 20
#: Fewest ranks a scaled workload keeps (the halo's six neighbours are distinct from 8 ranks up).
MIN_RANKS = 8


# -- the programs every rank runs ----------------------------------------------------
def alltoall(mpi, nbytes: int) -> None:
    """One alltoall of ``nbytes`` per block."""
    mpi.COMM_WORLD.alltoall(None, nbytes=nbytes)


def allreduce_loop(mpi, iterations: int, nbytes: int) -> None:
    """``iterations`` allreduces of ``nbytes``."""
    comm = mpi.COMM_WORLD
    for _ in range(iterations):
        comm.allreduce(None, nbytes=nbytes)


def halo(mpi, iterations: int, nbytes: int) -> None:
    """``iterations`` halo exchanges of ``nbytes`` per neighbour on a ring (see :data:`HALO_REACH`).

    The message to the neighbour at distance d above is tagged 2d, the one to the neighbour below
    2d+1, so every pair of messages between two ranks is told apart however small the ring."""
    comm = mpi.COMM_WORLD
    rank, size = comm.rank, comm.size
    for i in range(iterations):
        distances = range(1, HALO_REACH[i % len(HALO_REACH)] + 1)
        requests = []
        for d in distances:
            requests.append(comm.irecv((rank - d) % size, 2 * d))
            requests.append(comm.irecv((rank + d) % size, 2 * d + 1))
        for d in distances:
            requests.append(comm.isend(None, (rank + d) % size, 2 * d, nbytes=nbytes))
            requests.append(comm.isend(None, (rank - d) % size, 2 * d + 1, nbytes=nbytes))
        mpi.waitall(requests)


def halo_messages(ranks: int, iterations: int) -> int:
    """Messages of :func:`halo`: two per rank and unit of reach, every iteration."""
    return ranks * sum(2 * HALO_REACH[i % len(HALO_REACH)] for i in range(iterations))


# -- workloads ------------------------------------------------------------------------
@dataclass(frozen=True)
class Workload:
    """``program(mpi, *args)`` on ``ranks`` ranks; ``messages``: the count its algorithm sends."""

    name: str
    ranks: int
    program: Callable
    args: tuple
    messages: int
    #: A trace the workload replays (with :func:`~ppt.traces.replay.replay_result`, on the compiled MPI
    #: engine where it can) instead of running ``program``.
    trace: object = None


def scaled_ranks(ranks: int, scale: float) -> int:
    """``ranks * scale`` rounded to a power of two (the collectives' counts stay those of their
    power-of-two algorithms), at least :data:`MIN_RANKS`."""
    return max(MIN_RANKS, 2 ** round(math.log2(max(1.0, ranks * scale))))


def scaled_iterations(iterations: int, scale: float, least: int = 1) -> int:
    """``iterations * scale`` rounded, at least ``least``."""
    return max(least, round(iterations * scale))


def alltoall_workload(ranks: int, name: str = "alltoall") -> Workload:
    """One alltoall of :data:`ALLTOALL_B` blocks on ``ranks`` ranks."""
    return Workload(name, ranks, alltoall, (ALLTOALL_B,), ranks * (ranks - 1))


def allreduce_workload(ranks: int, iterations: int, name: str = "allreduce") -> Workload:
    """``iterations`` allreduces of :data:`ALLREDUCE_B` on ``ranks`` ranks."""
    return Workload(name, ranks, allreduce_loop, (iterations, ALLREDUCE_B),
                    iterations * recursive_doubling_messages(ranks))


def halo_workload(ranks: int, iterations: int, name: str = "halo") -> Workload:
    """``iterations`` halo exchanges of :data:`HALO_B` on ``ranks`` ranks."""
    return Workload(name, ranks, halo, (iterations, HALO_B), halo_messages(ranks, iterations))


def replay_workload(ranks: int, iterations: int, name: str = "replay") -> Workload:
    """The replay of a :class:`~ppt.traces.writers.synthetic.SyntheticTrace` of ``iterations`` on ``ranks`` ranks
    (3-D grid, :data:`HALO_B` messages, 8-byte allreduce), its gaps on the wall clock."""
    trace = SyntheticTrace(ranks, iterations, nbytes=HALO_B, allreduce_B=ALLREDUCE_B)
    return Workload(name, ranks, None, (), trace.messages, trace)


def workloads(scale: float = 1.0) -> list[Workload]:
    """The workloads at ``scale`` (rank counts and iterations times ``scale``)."""
    return [alltoall_workload(scaled_ranks(ALLTOALL_RANKS, scale)),
            allreduce_workload(scaled_ranks(ALLREDUCE_RANKS, scale),
                               scaled_iterations(ALLREDUCE_ITERATIONS, scale)),
            halo_workload(scaled_ranks(HALO_RANKS, scale),
                          scaled_iterations(HALO_ITERATIONS, scale, len(HALO_REACH))),
            replay_workload(scaled_ranks(REPLAY_RANKS, scale), scaled_iterations(REPLAY_ITERATIONS, scale))]


def analytic_job(ranks: int):
    """A job of ``ranks`` ranks, :data:`RANKS_PER_NODE` per node, on a contention-free network
    (1 us latency, 10 GB/s, 0.1 us per hop, 0-4 hops)."""
    from ppt.interconnects.networks.analytic import AnalyticNetwork
    from ppt.mpi import MPIJob
    nodes = -(-ranks // RANKS_PER_NODE)
    net = AnalyticNetwork(nodes, latency_s=1e-6, bandwidth_Bps=10e9, per_hop_s=1e-7,
                          hops=lambda a, b: abs(a - b) % 5)
    return MPIJob(net, ranks, RANKS_PER_NODE)


# -- measuring ------------------------------------------------------------------------
def run_once(workload: Workload, make_job=analytic_job) -> dict:
    """One run of ``workload`` on ``make_job(ranks)``: messages, MPI calls, engine events, wall
    and predicted seconds."""
    job = make_job(workload.ranks)
    if workload.trace is not None:
        from ppt.traces.replay import replay_result
        result = replay_result(workload.trace, job, compute_clock="wall")
    else:
        result = job.run(workload.program, *workload.args)
    return {"messages": sum(r["messages_sent"] for r in result.per_rank), "calls": sum(result.calls.values()),
            "events": result.events, "wall_s": result.wall_s, "predicted_s": result.predicted_s}


def measure(workload: Workload, repeats: int = 3, make_job=analytic_job, log=print, network: str = "analytic") -> dict:
    """``workload`` run ``repeats`` times on ``make_job``'s network (named ``network`` in the row), then the bare
    loop for as many events: one result row."""
    runs = []
    for i in range(repeats):
        log(f"{workload.name} on {network}, {workload.ranks:,} ranks, run {i + 1} of {repeats} ...")
        runs.append(run_once(workload, make_job))
    first = runs[0]
    walls = [run["wall_s"] for run in runs]
    best = min(walls)
    log(f"bare compiled loop, {first['events']:,} events at {workload.ranks:,} pending ...")
    baseline = bare_loop_events_per_s(workload.ranks, first["events"], repeats)
    messages_per_s = first["messages"] / best
    return {"workload": workload.name, "network": network, "ranks": workload.ranks, "messages": first["messages"],
            "calls": first["calls"], "events": first["events"],
            "wall_s": {"min": best, "median": statistics.median(walls)},
            "messages_per_s": messages_per_s, "calls_per_s": first["calls"] / best,
            "baseline_events_per_s": baseline, "ratio": messages_per_s / baseline,
            "predicted_s": first["predicted_s"]}


def measure_mpi(repeats: int = 3, scale: float = 1.0, networks=None, log=print) -> dict:
    """Every workload at ``scale`` on every network of ``networks`` (``(name, make_job)`` pairs, default
    :data:`NETWORKS`), measured ``repeats`` times each (see the module docstring)."""
    from ppt.mpi.job import check_rank_memory
    check_rank_memory(max(w.ranks for w in workloads(scale)))
    return {"repeats": repeats, "scale": scale,
            "workloads": [measure(w, repeats, make_job, log, name) for name, make_job in networks or NETWORKS
                          for w in workloads(scale)]}


def preset_job(kind: str, system):
    """A job factory on network ``kind`` of ``system`` (a preset's name or the preset itself): one rank
    per core; the machine is built at the first job."""
    machines = []

    def make_job(ranks: int):
        from ppt.hardware.systems import load_system
        from ppt.machine import Machine
        from ppt.mpi import MPIJob
        if not machines:
            machines.append(Machine(load_system(system) if isinstance(system, str) else system, kind))
        return MPIJob.on_machine(machines[0], ranks)
    return make_job


#: The networks of ``ppt bench mpi``: the MPI layer alone, then a dragonfly's and a torus's packet networks.
NETWORKS = (("analytic", analytic_job),
            ("packet dragonfly-booksim", preset_job("packet", "dragonfly-booksim")),
            ("packet torus-16x16x16", preset_job("packet", "torus-16x16x16")))

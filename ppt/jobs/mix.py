"""Several jobs on one machine: MPI jobs and synthetic traffic sharing one simulated network.

Every MPI job (a trace replay or a model script) has its own ranks and
``COMM_WORLD`` on its own nodes; a traffic job's sources send only among its
own nodes.  All run in one simulation, which ends when the last MPI rank has
finished: synthetic sources then stop creating packets (those in flight
still arrive).  On the packet network every delivered packet counts for the
job of its source node, so each job gets its own packet count, mean latency
and mean hops.  With ``network.rail_policy`` ``dedicated`` on a network of
several planes, job ``j`` sends on plane ``j mod planes`` (nodes of no job on
plane 0).  A job mix runs serially (one simulation process).  Beside
traffic, the mix checks every :data:`CHECK_EVERY_S` of simulated time
whether its MPI ranks can still move (see :class:`_DeadlockWatch`); if not,
the traffic stops and the run ends with the deadlock report.
"""
from __future__ import annotations

import numpy as np

from ppt.errors import ConfigError
from ppt.interconnects.planes import RAIL_POLICIES
from ppt.jobs.allocation import allocate
from ppt.mpi import MPIJob
from ppt.mpi.mapping import MAPPINGS, map_ranks
from ppt.mpi.settings import MPISettings

#: Simulated seconds between two checks that the MPI ranks running beside traffic can still move.
CHECK_EVERY_S = 10e-6
#: Tie-break keys of those checks: above every entity's key (entity ids below 2**22), below the core's.
CHECK_KEY = 1 << 62


class JobMix:
    """The jobs of ``joblist`` (a :class:`~ppt.jobs.joblist.JobList`) placed on ``machine``.

    ``allocation``: policy or file of :func:`~ppt.jobs.allocation.allocate`
    (with ``seed``); ``ranks_per_node``: default of MPI jobs where the job list
    sets none (None: one rank per core); ``mapping``: how each MPI job's ranks
    fill its own nodes (linear, round-robin or random).  Everything is checked
    here, before anything runs.
    """

    def __init__(self, machine, joblist, allocation: str = "contiguous", seed: int = 0,
                 ranks_per_node: int | None = None, mapping: str = "linear"):
        if mapping not in MAPPINGS:
            raise ConfigError(f"with a job list, --mapping places ranks on each job's own nodes: choose one of "
                              f"{', '.join(MAPPINGS)}, not {mapping!r}")
        self.machine = machine
        self.specs = joblist.jobs
        self.allocation = allocation
        self.seed = seed
        self.packet = machine.network_kind == "packet"
        if not self.packet and any(not spec.is_mpi for spec in self.specs):
            raise ConfigError(f"traffic jobs run on the packet network, not the {machine.network_kind} network")
        default = joblist.default_ranks_per_node(ranks_per_node, machine.cores_per_node)
        counts = joblist.node_counts(default, machine.num_nodes)
        self.nodes = allocate(machine.topology, counts, allocation, seed)
        self.net = machine.network()
        self.programs = [_program(spec) if spec.is_mpi else None for spec in self.specs]
        self.mpi_jobs = [None if not spec.is_mpi else
                         self._mpi_job(spec, nodes, spec.ranks_per_node(default), mapping)
                         for spec, nodes in zip(self.specs, self.nodes)]

    def _mpi_job(self, spec, nodes: list[int], per_node: int, mapping: str) -> MPIJob:
        machine = self.machine
        if per_node > machine.cores_per_node:
            raise ConfigError(f"job {spec.name!r}: {per_node} ranks per node exceed the {machine.cores_per_node} "
                              f"cores of a {machine.name} node")
        slots = map_ranks(spec.ranks, per_node, len(nodes), mapping, self.seed)
        return MPIJob(self.net, spec.ranks, per_node, [nodes[s] for s in slots], self.seed, machine.node_model,
                      comm=None, settings=MPISettings.from_preset(machine.preset))

    def run(self, sampler=None, progress=None) -> dict:
        """Run every job together: the per-job results (see :meth:`_entry`) under ``jobs``, the latest
        MPI job's end ``predicted_s`` and the simulation's end ``span_s`` (s, with the last packets'
        drain), and the whole network's statistics.

        ``sampler``: a :class:`~ppt.interconnects.sampling.Sampler` recording the run, or None;
        ``progress``: the simulation's progress hook."""
        net = self.net
        node_job = np.full(self.machine.num_nodes, -1, dtype=np.int32)
        for job, nodes in enumerate(self.nodes):
            node_job[nodes] = job
        if self.packet and RAIL_POLICIES[net.rails.policy] == "dedicated":
            net.set_node_planes(np.maximum(node_job, 0) % net.rails.planes)
        sim = net.simulation(comm=None, name="jobs", progress=progress)
        if self.packet:
            net.count_jobs(node_job)
        watch = _DeadlockWatch(sim, net, lambda: self._stop_traffic(sim.now))
        if self._start_traffic():
            watch.arm()

        def all_done():
            watch.disarm()
            self._stop_traffic(sim.now)

        countdown = _Countdown(sum(job.num_ranks for job in self.mpi_jobs if job is not None), all_done)
        started = [None if job is None else job.start(sim, countdown.wrap(program[0]), program[1], program[2])
                   for job, program in zip(self.mpi_jobs, self.programs)]
        if sampler is None:
            sim.run()
        else:
            sampler.attach(net, sim)
            sampler.run()
        counters = net.job_counters() if self.packet else [None] * len(self.specs)
        results = [None if job is None else job.result(sim, ranks)
                   for job, ranks in zip(self.mpi_jobs, started)]
        entries = [self._entry(spec, nodes, result, packets)
                   for spec, nodes, result, packets in zip(self.specs, self.nodes, results, counters)]
        network = next(r for r in results if r is not None).network
        return {"system": self.machine.name, "network_kind": self.machine.network_kind,
                "allocation": self.allocation, "seed": self.seed,
                "predicted_s": max(e["predicted_s"] for e in entries if e["predicted_s"] is not None),
                "span_s": net.end_s(sim), "jobs": entries, "network": network}

    def _start_traffic(self) -> bool:
        """Start the traffic jobs' sources; True if there are any."""
        from ppt.interconnects.traffic import TrafficGenerator
        started = False
        for spec, nodes in zip(self.specs, self.nodes):
            if not spec.is_mpi:
                o = spec.options
                TrafficGenerator(self.net, o["pattern"], o["load"], o["process"], self.seed, nodes=sorted(nodes),
                                 message_B=o["message_B"]).attach(self.net)
                started = True
        return started

    def _stop_traffic(self, now_s: float) -> None:
        if self.packet:
            self.net.stop_traffic(now_s)

    def _entry(self, spec, nodes: list[int], result, packets: dict | None) -> dict:
        """One job's results: ``predicted_s`` (when its last rank finished, s), ``max_comm_s`` and
        ``mean_comm_s`` (time in MPI calls of its ranks, s), and for the packets sent from its nodes
        ``packets`` (delivered, responses included), ``mean_packet_latency_s`` and ``mean_hops``
        (None off the packet network; traffic jobs have no MPI times but their ``pattern``, ``load``,
        ``process`` and ``message_B``, bytes)."""
        entry = {"name": spec.name, "kind": spec.kind, "ranks": spec.ranks if spec.is_mpi else len(nodes),
                 "nodes": nodes, "predicted_s": None, "max_comm_s": None, "mean_comm_s": None,
                 "packets": None, "mean_packet_latency_s": None, "mean_hops": None}
        if result is not None:
            comm = [r["comm_s"] for r in result.per_rank]
            entry.update(source=spec.options.get("trace", spec.options.get("script")), predicted_s=result.predicted_s,
                         max_comm_s=max(comm), mean_comm_s=sum(comm) / len(comm),
                         messages_sent=sum(r["messages_sent"] for r in result.per_rank),
                         bytes_sent=sum(r["bytes_sent"] for r in result.per_rank), calls=result.calls)
        else:
            entry.update({k: spec.options[k] for k in ("pattern", "load", "process")},
                         message_B=spec.options["message_B"] or self.net.packetizer.max_payload_B)
        if packets is not None:
            n = packets["delivered"]
            entry.update(packets=n, responses=packets["responses"], bytes_delivered=packets["bytes_delivered"],
                         mean_packet_latency_s=packets["latency_sum_ps"] * 1e-12 / n if n else 0.0,
                         mean_hops=packets["hops_sum"] / n if n else 0.0)
        return entry


class _DeadlockWatch:
    """Stops the traffic (``stop()``) once the simulation's live processes, the MPI ranks, are all
    blocked in MPI calls and nothing queued can wake them (``net.quiescent``): a deadlock, which
    the jobs' results then report.  Looks every :data:`CHECK_EVERY_S`; the checks are bookkeeping,
    not model events, and change no result."""

    def __init__(self, sim, net, stop):
        self.sim, self.net, self.stop = sim, net, stop
        self.checks = 0

    def arm(self) -> None:
        self.checks += 1
        self.sim.post(self.sim.now + CHECK_EVERY_S, CHECK_KEY + self.checks, self._check)

    def disarm(self) -> None:
        """Drop the next check, so that it does not lengthen the run."""
        self.sim.cancel(CHECK_KEY + self.checks)

    def _check(self, _) -> None:
        sim = self.sim
        sim.events -= 1
        if all(p.blocked_in is not None for p in sim.processes if not p.done) and self.net.quiescent(sim):
            self.stop()
        else:
            self.arm()


class _Countdown:
    """Calls ``then()`` when ``count`` ranks have returned from their main functions."""

    def __init__(self, count: int, then):
        self.left = count
        self.then = then

    def wrap(self, main):
        def counted(mpi, *args):
            value = main(mpi, *args)
            self.left -= 1
            if not self.left:
                self.then()
            return value
        return counted


def _program(spec) -> tuple:
    """``(main, args, argv)`` every rank of MPI job ``spec`` runs."""
    if spec.kind == "script":
        from ppt.cli.run import load_main
        return load_main(spec.options["script"]), (), spec.options["argv"]
    from ppt.traces.dumpi import TraceSet
    from ppt.traces.replay import rank_program
    o = spec.options
    main, args, _ = rank_program(TraceSet(o["trace"]), spec.ranks, o["compute_scale"], o["skip_unsupported"],
                                 None, o["keep_startup"])
    return main, args, ()

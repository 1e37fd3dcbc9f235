"""Several jobs on one machine: MPI jobs and synthetic traffic sharing one simulated network.

Every MPI job (a trace replay or a model script) has its own ranks and
``COMM_WORLD`` on its own nodes; a traffic job's sources send only among its
own nodes.  All run in one simulation, which ends when the last MPI rank has
finished: synthetic sources then stop creating packets (those in flight
still arrive).  On the packet network every delivered packet counts for the
job of its source node, so each job gets its own packet count, mean latency
and mean hops.  With ``network.rail_policy`` ``dedicated`` on a network of
several planes, job ``j`` sends on plane ``j mod planes`` (nodes of no job on
plane 0).

A mix runs on the MPI engine as one job does: one engine holds every job's ranks, and the traffic jobs'
sources run in its packet core (:class:`ppt.mpi.engine.program.ProgramRun`), serially or under
``mpiexec``, sampled or not.

Under ``mpiexec -n K`` the mix runs as a single job does: each process
simulates its block of the network with the ranks and traffic sources of its
nodes, and the results (per-job packets summed, MPI times gathered) are
byte-identical to a serial run's.  The traffic stops one lookahead after the
last MPI rank anywhere finished, or at the first check (every
:data:`~ppt.jobs.finish.CHECK_EVERY_S` of simulated time) that finds the MPI
ranks unable to move, a deadlock (:mod:`ppt.jobs.finish`); the run then ends
when the last packets have arrived.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from ppt.engine.core import young_garbage_only
from ppt.engine.parallel import AUTO
from ppt.errors import ConfigError
from ppt.interconnects.topologies.planes import RAIL_POLICIES
from ppt.jobs.allocation import allocate
from ppt.jobs.finish import CHECK_EVERY_S, Countdown, FinishNotices, everywhere
from ppt.mpi import MPIJob
from ppt.mpi.engine.core import lib
from ppt.mpi.engine.program import ProgramRun
from ppt.mpi.mapping import MAPPINGS, map_ranks
from ppt.mpi.settings import MPISettings


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
        self._check_classes()
        self.programs = [_program(spec) if spec.is_mpi else None for spec in self.specs]
        self.mpi_jobs = [None if not spec.is_mpi else
                         self._mpi_job(spec, nodes, spec.ranks_per_node(default), mapping)
                         for spec, nodes in zip(self.specs, self.nodes)]

    def _check_classes(self) -> None:
        """ConfigError for a job's class the network does not have."""
        count = self.net.classes.count if self.packet else 1
        for spec in self.specs:
            if spec.traffic_class >= count:
                where = "network.traffic_classes" if self.packet else f"the {self.machine.network_kind} network"
                raise ConfigError(f"job {spec.name!r} is in traffic class {spec.traffic_class}, but the network has "
                                  f"{count} class{'es' if count > 1 else ''} ({where}); classes count from 0")

    def _mpi_job(self, spec, nodes: list[int], per_node: int, mapping: str) -> MPIJob:
        machine = self.machine
        if per_node > machine.cores_per_node:
            raise ConfigError(f"job {spec.name!r}: {per_node} ranks per node exceed the {machine.cores_per_node} "
                              f"cores of a {machine.name} node")
        slots = map_ranks(spec.ranks, per_node, len(nodes), mapping, self.seed)
        return MPIJob(self.net, spec.ranks, per_node, [nodes[s] for s in slots], self.seed, machine.node_model,
                      comm=None, settings=MPISettings.from_preset(machine.preset))

    def run(self, sampler=None, progress=None, comm=AUTO) -> dict:
        """Run every job together: the per-job results (see :meth:`_entry`) under ``jobs``, the latest
        MPI job's end ``predicted_s`` and the simulation's end ``span_s`` (s, with the last packets'
        drain), and the whole network's statistics.  The same on every simulation process.

        ``sampler``: a :class:`~ppt.drivers.sampling.Sampler` recording the run, or None;
        ``progress``: the simulation's progress hook; ``comm``: the engine's mpi4py communicator
        (default: the mpiexec world, if any; None: serial)."""
        node_job = np.full(self.machine.num_nodes, -1, dtype=np.int32)
        for job, nodes in enumerate(self.nodes):
            node_job[nodes] = job
        net = self.net
        if self.packet and RAIL_POLICIES[net.rails.policy] == "dedicated":
            net.set_node_planes(np.maximum(node_job, 0) % net.rails.planes)
        if self.packet and net.classes.on:
            job_class = np.array([spec.traffic_class for spec in self.specs] + [0], dtype=np.int32)
            net.set_node_classes(job_class[node_job])       # node_job -1 (no job): class 0
        return self._run(node_job, sampler, progress, comm)

    def _run(self, node_job, sampler, progress, comm) -> dict:
        """:meth:`run`: every MPI job's ranks in one engine, the traffic jobs' sources in its packet core,
        stopped one lookahead after the last rank finished (:mod:`ppt.jobs.finish`): the engine
        files the finish notices and stops the sources at the last (``ppt_mpi_notice``), and between runs to
        each check the engine tells whether its ranks can still move (``ppt_mpi_quiescent``: a live rank
        that is not blocked has its resume queued)."""
        countdown = Countdown()
        run = ProgramRun([(job, countdown.wrap(program[0]), *program[1:])
                          for job, program in zip(self.mpi_jobs, self.programs) if job is not None], comm, progress)
        net, m = self.net, run.engine.m
        if self.packet:
            net.count_jobs(node_job)
        clock = run.by_time()
        traffic = self._start_traffic()
        if traffic:             # the sources' lead is zero (see ppt_mpi_set_packet_network), their first wake-up
            lib.ppt_mpi_set_packet_network(m, net.core.c, net.core.message_latency, net.core.lead_s)
            notices = FinishNotices(clock.rank, clock.size, net.lookahead_s, partial(lib.ppt_mpi_notice, m))
            if run.windows is not None:     # a notice crosses one lookahead later: no window may be longer
                run.windows.exchanges.append(notices)
                run.windows.lookahead_s = min(run.windows.lookahead_s, notices.lookahead_s)
            countdown.then = lambda: notices.local_done(lib.ppt_mpi_now(m))
        countdown.start(sum(map(len, run.ranks)))
        run_until = clock.run
        if sampler is not None:
            sampler.attach(net, clock)
            run_until = sampler.run
        with young_garbage_only():
            check_s = CHECK_EVERY_S
            while traffic and lib.ppt_mpi_notices(m) < clock.size:
                run_until(check_s)
                if lib.ppt_mpi_notices(m) < clock.size and everywhere(clock, bool(lib.ppt_mpi_quiescent(m))):
                    net.stop_traffic(check_s)
                    break
                check_s += CHECK_EVERY_S
            run_until(None)
        span_s = max(run.gathered(run.engine.end_s()))
        counters = _summed(run.gathered(net.job_counters())) if self.packet else [None] * len(self.specs)
        results = iter(run.results(span_s))
        return self._outcome([None if job is None else next(results) for job in self.mpi_jobs], counters, span_s)

    def _outcome(self, results: list, counters: list, span_s: float) -> dict:
        """:meth:`run`'s answer from the MPI jobs' JobResults (None for traffic jobs), the per-job packet
        counters (None off the packet network) and the simulation's end, s."""
        entries = [self._entry(spec, nodes, result, packets)
                   for spec, nodes, result, packets in zip(self.specs, self.nodes, results, counters)]
        network = next(r for r in results if r is not None).network
        return {"system": self.machine.name, "network_kind": self.machine.network_kind,
                "allocation": self.allocation, "seed": self.seed,
                "predicted_s": max(e["predicted_s"] for e in entries if e["predicted_s"] is not None),
                "span_s": span_s, "jobs": entries, "network": network}

    def _start_traffic(self) -> bool:
        """Start the traffic jobs' sources; True if there are any."""
        from ppt.drivers.traffic import TrafficGenerator
        started = False
        for spec, nodes in zip(self.specs, self.nodes):
            if not spec.is_mpi:
                o = spec.options
                TrafficGenerator(self.net, o["pattern"], o["load"], o["process"], self.seed, nodes=sorted(nodes),
                                 message_B=o["message_B"], traffic_class=spec.traffic_class).attach(self.net)
                started = True
        return started

    def _entry(self, spec, nodes: list[int], result, packets: dict | None) -> dict:
        """One job's results: ``predicted_s`` (when its last rank finished, s), ``max_comm_s`` and
        ``mean_comm_s`` (time in MPI calls of its ranks, s), and for the packets sent from its nodes
        ``packets`` (delivered, responses included), ``mean_packet_latency_s`` and ``mean_hops``
        (None off the packet network; traffic jobs have no MPI times but their ``pattern``, ``load``,
        ``process`` and ``message_B``, bytes)."""
        entry = {"name": spec.name, "kind": spec.kind, "ranks": spec.ranks if spec.is_mpi else len(nodes),
                 "nodes": nodes, "predicted_s": None, "max_comm_s": None, "mean_comm_s": None,
                 "packets": None, "mean_packet_latency_s": None, "mean_hops": None}
        if self.packet and self.net.classes.on:
            entry["class"] = spec.traffic_class
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


def _summed(parts: list[list[dict]]) -> list[dict]:
    """Per-job packet counters summed over simulation processes' ``parts`` (integers: exact in any order)."""
    return [{key: sum(part[job][key] for part in parts) for key in parts[0][job]} for job in range(len(parts[0]))]


def _program(spec) -> tuple:
    """``(main, args, argv)`` every rank of MPI job ``spec`` runs."""
    if spec.kind == "script":
        from ppt.scripts import load_main
        return load_main(spec.options["script"]), (), spec.options["argv"]
    from ppt.traces.formats import open_trace
    from ppt.traces.replay import rank_program
    o = spec.options
    main, args, _ = rank_program(open_trace(o["trace"]), spec.ranks, o["compute_scale"], o["skip_unsupported"],
                                 None, o["keep_startup"])
    return main, args, ()

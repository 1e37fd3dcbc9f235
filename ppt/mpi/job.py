"""An MPI job: N ranks placed on the nodes of a network, each running ``main(mpi, *args)``.

Each rank is a process in the NIC entity of its node and talks to other ranks
only through the network, so a job runs unchanged on the parallel engine
(``mpiexec -n K``); per-rank results are gathered from all simulation ranks.
"""
from __future__ import annotations

import time

from ppt.engine import parallel
from ppt.errors import ConfigError
from ppt.mpi.api import MPI
from ppt.mpi.collectives import check_algorithms
from ppt.mpi.deadlock import describe
from ppt.mpi.mapping import map_ranks
from ppt.mpi.outcome import JobResult, check_engine, raise_failures, rank_body, stray
from ppt.mpi.p2p import Rank
from ppt.mpi.settings import MPISettings
from ppt.mpi.stats import total_calls



class _NodeHost:
    """Hands messages arriving at a node to the destination rank."""

    __slots__ = ("ranks",)

    def __init__(self):
        self.ranks: dict[int, Rank] = {}

    def __call__(self, msg) -> None:
        self.ranks[msg.dst].arrive(msg)


class MPIJob:
    """``num_ranks`` ranks on ``network`` (a fresh :class:`~ppt.interconnects.networks.network.Network`).

    ``ranks_per_node`` and ``mapping`` (see :func:`~ppt.mpi.mapping.map_ranks`)
    place ranks on nodes; ``node_model`` times ``compute(tasklist)``;
    ``algorithms`` picks collective algorithms by collective name, e.g.
    ``{"allreduce": "ring"}``.  ``threads_per_rank``: cores each rank computes
    on (hybrid MPI + threads; a tasklist is split evenly over them).
    ``settings``: the MPI library's eager/rendezvous switch and per-message
    overheads (:class:`~ppt.mpi.settings.MPISettings`; a machine's come from
    its preset's ``mpi`` section).  ``comm``: the engine's mpi4py
    communicator (default: the mpiexec world, if any).
    """

    def __init__(self, network, num_ranks: int, ranks_per_node: int = 1, mapping: str = "linear", seed: int = 0,
                 node_model=None, algorithms: dict | None = None, comm=parallel.AUTO, threads_per_rank: int = 1,
                 settings: MPISettings = MPISettings(), engine: str = "auto"):
        self.network = network
        #: Where :meth:`run` runs the ranks' programs: ``python``, ``compiled`` (:mod:`ppt.mpi.compiled_rank`;
        #: a ConfigError says why where it cannot) or ``auto`` (compiled where it carries the job, decided
        #: before the run starts: :func:`ppt.mpi.compiled.unsupported`; else the Python engine).
        self.engine = check_engine(engine)
        #: Eager threshold and per-message overheads (see ppt.mpi.settings).
        self.settings = settings
        self.num_ranks = num_ranks
        self.ranks_per_node = ranks_per_node
        self.node_of = map_ranks(num_ranks, ranks_per_node, network.num_nodes, mapping, seed)
        self.node_model = node_model
        if threads_per_rank < 1:
            raise ConfigError(f"threads per rank must be at least 1, got {threads_per_rank}")
        self.threads_per_rank = threads_per_rank
        #: A :class:`~ppt.drivers.sampling.Sampler` recording the network over time, or None.
        self.sampler = None
        self.algorithms = check_algorithms(dict(algorithms or {}))
        self.comm = comm
        self._members: dict[tuple, tuple] = {}
        self._cores: dict[int, object] = {}
        self._ranks_on_node: dict[int, int] = {}
        for node in self.node_of:
            self._ranks_on_node[node] = self._ranks_on_node.get(node, 0) + 1

    @classmethod
    def on_machine(cls, machine, num_ranks: int, ranks_per_node: int | None = None, mapping: str = "linear",
                   seed: int = 0, algorithms: dict | None = None, comm=parallel.AUTO,
                   threads_per_rank: int = 1) -> "MPIJob":
        """A job on a :class:`~ppt.machine.Machine` (default: one rank per core, or per
        ``threads_per_rank`` cores)."""
        per_node = ranks_per_node or max(1, machine.cores_per_node // threads_per_rank)
        if per_node * threads_per_rank > machine.cores_per_node:
            raise ConfigError(f"{per_node} ranks per node x {threads_per_rank} threads exceed the "
                              f"{machine.cores_per_node} cores of a {machine.name} node")
        return cls(machine.network(), num_ranks, per_node, mapping, seed, machine.node_model, algorithms, comm,
                   threads_per_rank, MPISettings.from_preset(machine.preset))

    # -- services for ranks ------------------------------------------------------
    def intern_members(self, members):
        """Shared ``(members, index)`` for a communicator's member list (memory saving)."""
        members = tuple(members)
        found = self._members.get(members)
        if found is None:
            found = self._members[members] = (members, {w: i for i, w in enumerate(members)})
        return found

    def time_compute(self, rank, work) -> float:
        """Seconds ``rank`` needs for tasklist ``work``, split over its threads."""
        return self.core_view(rank).time_compute(work, self.threads_per_rank)

    def core_view(self, rank):
        """The node model as seen by one core of ``rank`` (every core of its ranks' threads active)."""
        if self.node_model is None:
            raise rank.error("compute(tasklist) needs a node model: run the job on a system, or give "
                             "compute() a time in seconds", "compute")
        active = self._ranks_on_node[rank.node] * self.threads_per_rank
        view = self._cores.get(active)
        if view is None:
            view = self._cores[active] = self.node_model.core_view(active)
        return view

    # -- running -------------------------------------------------------------------
    def run(self, main, *args, argv=(), progress=None, engine: str | None = None) -> JobResult:
        """Run ``main(mpi, *args)`` on every rank; raises DeadlockError if ranks stay blocked, MPIError if
        ranks called mismatched collectives.

        ``progress``: a hook for the simulation's progress reports (see :class:`ppt.progress.Progress`);
        ``engine``: this run's MPI engine, in place of the job's (:attr:`engine`).
        """
        engine = engine or self.engine
        if engine != "python":
            from ppt.mpi.compiled_rank import run_job
            result, why = run_job(self, main, args, argv, progress)
            if result is not None:
                return result
            if engine == "compiled":
                raise ConfigError(f"the compiled MPI engine cannot run this job: {why}; use the Python engine")
        wall = time.perf_counter()
        net = self.network
        sim = net.simulation(comm=self.comm, name="mpi", progress=progress)
        ranks = self.start(sim, main, args, argv)
        if self.sampler is None:
            sim.run()
        else:
            self.sampler.attach(net, sim)
            self.sampler.run()
        return self.result(sim, ranks, time.perf_counter() - wall)

    def result(self, sim, ranks: list[Rank], wall_s: float = 0.0) -> JobResult:
        """The outcome of ``ranks`` (from :meth:`start`) once ``sim`` has run, gathered over simulation
        ranks; raises DeadlockError or MPIError as :meth:`run` does."""
        net = self.network
        local = {"blocked": [(r.world_rank, describe(r)) for r in ranks if r.stats.finish_s is None],
                 "per_rank": [self._rank_entry(r) for r in ranks],
                 "returns": [(r.world_rank, r.result) for r in ranks],
                 "stray": [stray(r, env) for r in ranks for env in r.unreceived() if env.ctx % 2],
                 "network": net.stats(sim), "events": sim.events, "now": sim.now}
        parts = _allgather(sim, local)
        raise_failures(parts, self.num_ranks)
        per_rank = sorted((e for p in parts for e in p["per_rank"]), key=lambda e: e["rank"])
        returns = [value for _, value in sorted((x for p in parts for x in p["returns"]), key=lambda x: x[0])]
        return JobResult(ranks=self.num_ranks, predicted_s=max(e["finish_s"] for e in per_rank),
                         per_rank=per_rank, calls=total_calls(per_rank),
                         network=net.merge_stats([p["network"] for p in parts]), returns=returns,
                         events=sum(p["events"] for p in parts), wall_s=wall_s)

    def start(self, sim, main, args=(), argv=()) -> list[Rank]:
        """Start this job's ranks (those local to this simulation rank) in ``sim``, a simulation of
        its network, each to run ``main(mpi, *args)``; other jobs may share ``sim`` on other nodes."""
        ranks = self.local_ranks(sim, argv)
        for rank in ranks:
            rank.proc = rank.nic.start_process(rank_body, rank, main, args, name=f"rank {rank.world_rank}")
        return ranks

    def local_ranks(self, sim, argv=()) -> list[Rank]:
        """This job's ranks local to this simulation rank in ``sim``, each hosted by its node's NIC
        with its MPI view, no process started yet."""
        net = self.network
        hosts: dict[int, _NodeHost] = {}
        ranks = []
        for world_rank, node in enumerate(self.node_of):
            if not sim.is_local(net.nic_eid(node)):
                continue
            nic = net.nic(sim, node)
            host = hosts.get(node)
            if host is None:
                host = hosts[node] = _NodeHost()
                nic.host = host
            rank = Rank(self, world_rank, node, nic)
            host.ranks[world_rank] = rank
            rank.api = MPI.of_rank(rank, self.num_ranks, argv)
            ranks.append(rank)
        return ranks

    def _rank_entry(self, rank) -> dict:
        entry = rank.stats.as_dict(rank.world_rank, rank.node)
        entry["unreceived_messages"] = len(rank.unreceived())
        return entry


def _allgather(sim, obj) -> list:
    parts = sim.gather(obj)
    return parts if sim.size == 1 else sim.comm.bcast(parts, root=0)

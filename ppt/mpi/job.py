"""An MPI job: N ranks placed on the nodes of a network, each running ``main(mpi, *args)``.

Each rank is a greenlet over the MPI engine (:mod:`ppt.mpi.engine.program`) and talks to other ranks
only through the network, so a job runs unchanged on the parallel engine
(``mpiexec -n K``); per-rank results are gathered from all simulation ranks.
"""
from __future__ import annotations

from ppt.engine import parallel
from ppt.errors import ConfigError
from ppt.hostmemory import check_fits
from ppt.mpi.collectives.calls import check_algorithms
from ppt.mpi.engine.program import run_job
from ppt.mpi.mapping import map_ranks
from ppt.mpi.engine.outcome import JobResult
from ppt.mpi.settings import MPISettings


#: Memory of one simulated rank, bytes: its greenlet, stack and MPI state (26.7 KB measured per rank of
#: an 80,000-rank barrier on the analytic network, by the process's peak RSS), rounded up.
BYTES_PER_RANK = 32 * 1024


def check_rank_memory(num_ranks: int) -> None:
    """ConfigError, before anything is built, if ``num_ranks`` simulated ranks do not fit in memory."""
    check_fits(num_ranks * BYTES_PER_RANK, f"a job of {num_ranks:,} simulated ranks",
               "simulate fewer ranks (or sample a smaller run)")


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
                 settings: MPISettings = MPISettings()):
        check_rank_memory(num_ranks)
        self.network = network
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
    def run(self, main, *args, argv=(), progress=None) -> JobResult:
        """Run ``main(mpi, *args)`` on every rank (:mod:`ppt.mpi.engine.program`); raises DeadlockError if
        ranks stay blocked, MPIError if ranks called mismatched collectives.

        ``progress``: a hook for the simulation's progress reports (see :class:`ppt.progress.Progress`).
        """
        return run_job(self, main, args, argv, progress)

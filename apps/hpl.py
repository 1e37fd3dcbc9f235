"""HPL: the High-Performance Linpack benchmark as a stylized application (``ppt app hpl``).

Written from HPL's published algorithm (netlib HPL "Algorithm" page; Dongarra, Luszczek and
Petitet, "The LINPACK Benchmark: past, present and future", 2003); counts in
:mod:`ppt.apps.hpl_counts`.  Ranks form a P x Q grid, row-major (rank = p Q + q, HPL's default
process mapping), with a communicator per process row and per process column.  Panel step j:

1. **Panel factorization** on process column ``j mod Q``: for each of the panel's jb columns,
   the local column work (pivot search, scaling, its share of the updates, with the memory
   traffic of HPL's recursive factorization: halves down to 4-column leaves) and
   an allreduce ``MAXLOC`` over the process column that carries, besides the (value, index)
   pair, the candidate pivot row of jb doubles, as HPL moves the winning row with the search.
2. **Panel broadcast** along every process row from column ``j mod Q`` (L: the rank's panel
   rows x jb doubles, and jb pivot indices): ``1ring`` (increasing ring: each column receives
   from its left neighbour and passes on to its right one, Q - 1 messages per row) or ``long``
   (HPL's spread-roll: the panel cut in Q pieces scattered from the root, then rolled round the
   row in a ring allgather).
3. **Row swaps and U**: the jb pivot rows of the trailing columns are exchanged within each
   process column so that every process row ends with U (jb rows x its trailing columns).
   Simplification of HPL's spread-roll / binary-exchange swap: a ring allgather over the
   process column, each process row contributing ``ceil(jb / P)`` rows of its trailing columns.
   Then U's triangular solve on every process row (TRSM).
4. **Trailing update**: DGEMM of the rank's trailing rows x trailing columns x jb.

With look-ahead depth 1 (HPL's default), the process column holding panel j + 1 first updates
that panel's columns, factors it and starts its broadcast, then updates the rest of its
trailing matrix; the other columns pre-post the receive of panel j + 1 before their update, so
the transfer overlaps it.  A forwarding column passes the panel on when it reaches the next
step (HPL forwards while updating, between DGEMM chunks), and the ``long`` broadcast is
collective, so it does not overlap.  The final triangular solve (O(N^2)) is not modelled.

**Sampling** (``sample_steps = K``): simulating all ceil(N / NB) steps of a full machine is out
of reach (N = 4.5 M, NB = 192: 23,600 steps), so K steps spread evenly over the run (the first
and the last among them) are simulated, each after a barrier together with the step before it,
which fills the look-ahead and the broadcast pipeline as in the full run.  A step's time T(j)
is what it adds to that pipelined stretch (the latest rank's end of step j less the latest
rank's end of step j - 1); it depends on the trailing matrix's size, and the run's time is the
trapezoid sum of T over all steps (the trapezoid integral between samples plus half the two
end samples).  T falls about quadratically with j, so the trapezoid errs high by about
(run / K)^2 / (2 run^2): tests/test_hpl.py holds K = 12 within 2 % of the full simulation.
Compute and communication times of a sampled run are scaled by the same factor as its time.

Reported: the time, Gflop/s = (2/3 N^3 + 3/2 N^2) / time / 10^9 (HPL's formula), Rpeak (the
ranks' cores at the node model's peak, :attr:`NodeModel.peak_flops_per_s`) and Rmax/Rpeak.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ppt.apps.hpl_counts import (WORD_B, dgemm_tasklist, hpl_flops, near_square_grid, owned, panel_column_tasklist,
                                 panel_steps, panel_width, trsm_tasklist)
from ppt.apps.registry import AppModel, Param, register
from ppt.apps.result import AppResult
from ppt.errors import ConfigError

#: Broadcast variants of the panel along a process row.
BCASTS = ("1ring", "long")
#: Bytes of a pivot index.
INDEX_B = 4


def pivot_B(jb: int) -> int:
    """Bytes of one pivot search's exchange: (value, index) and the candidate row of jb doubles."""
    return WORD_B * (2 + jb)


@dataclass(frozen=True)
class HPLSim:
    """HPL of order ``n`` with ``nb``-column blocks on a ``p`` x ``q`` grid; ``lookahead`` 0 or 1;
    ``bcast`` one of :data:`BCASTS`; ``sample_steps`` 0 (every step) or K >= 2 sampled steps;
    ``dgemm_efficiency`` (0: the machine's processor's) scales the level-3 work; ``threads`` cores per
    rank, which share every part of its work evenly (a threaded BLAS; HPL's hybrid runs)."""

    n: int
    nb: int
    p: int
    q: int
    lookahead: int = 1
    bcast: str = "1ring"
    sample_steps: int = 0
    dgemm_efficiency: float = 0.0
    threads: int = 1

    def __post_init__(self):
        for name in ("n", "nb", "p", "q", "threads"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"HPL {name} must be a positive integer, got {value!r}")
        if self.nb > self.n:
            raise ConfigError(f"HPL NB={self.nb} exceeds N={self.n}; give NB <= N (HPL runs use 64 to 256)")
        if self.lookahead not in (0, 1):
            raise ConfigError(f"HPL look-ahead depth must be 0 or 1, got {self.lookahead}")
        if self.bcast not in BCASTS:
            raise ConfigError(f"unknown HPL broadcast {self.bcast!r}; choose one of: {', '.join(BCASTS)}")
        if not 0 <= self.dgemm_efficiency <= 1:
            raise ConfigError(f"dgemm_efficiency={self.dgemm_efficiency}: give a fraction in (0, 1], or 0 for the "
                              f"processor preset's")
        if self.sample_steps == 1 or self.sample_steps < 0:
            raise ConfigError(f"sample_steps={self.sample_steps}: give 0 (simulate every step) or at least 2")

    @property
    def ranks(self) -> int:
        return self.p * self.q

    @property
    def steps(self) -> int:
        return panel_steps(self.n, self.nb)

    def sampled(self) -> list[int]:
        """The panel steps simulated: all, or ``sample_steps`` spread evenly (first and last included)."""
        last = self.steps - 1
        if not self.sample_steps or self.sample_steps >= self.steps:
            return list(range(self.steps))
        return sorted({round(i * last / (self.sample_steps - 1)) for i in range(self.sample_steps)})

    @property
    def is_sampled(self) -> bool:
        return len(self.sampled()) < self.steps

    def run(self, machine, progress=None, seed: int = 0) -> AppResult:
        from ppt.mpi import MPIJob
        node = machine.node_model
        efficiency = self.dgemm_efficiency or (node.dgemm_efficiency if node is not None else 1.0)
        per_node = min(machine.cores_per_node // self.threads, self.ranks)
        job = MPIJob.on_machine(machine, self.ranks, per_node, seed=seed, threads_per_rank=self.threads).run(
            hpl_main, self, efficiency, progress=progress)
        result = AppResult.of_job(job, threads=self.threads)
        simulated_s = job.predicted_s
        if self.is_sampled:
            step_s = step_times(self, job.returns)
            total_s = trapezoid_sum(self.sampled(), [step_s[j] for j in self.sampled()])
            scale = total_s / simulated_s
            result.predicted_s, result.compute_s, result.comm_s = (total_s, result.compute_s * scale,
                                                                   result.comm_s * scale)
        rpeak = node.peak_flops_per_s / node.cores * self.ranks * self.threads if node is not None else math.nan
        gflops = hpl_flops(self.n) / result.predicted_s / 1e9
        result.extra = {"N": self.n, "NB": self.nb, "P": self.p, "Q": self.q, "gflops": gflops,
                        "rpeak_gflops": rpeak / 1e9, "rmax_over_rpeak": gflops * 1e9 / rpeak,
                        "steps": self.steps, "steps_simulated": len(self.sampled()), "simulated_s": simulated_s,
                        "dgemm_efficiency": efficiency}
        return result

    def traffic(self):
        """``(source, destination, bytes, messages)`` of the panel broadcasts (as increasing rings) and
        the U exchanges (column rings) of the simulated steps, for ``--network auto``'s estimate (the
        pivot searches' small messages are left out)."""
        for j in self.sampled():
            jb = panel_width(self.n, self.nb, j)
            root = j % self.q
            for p in range(self.p):
                panel = owned(self.n, self.nb, j, p, self.p) * jb * WORD_B
                for hop in range(self.q - 1):
                    q = (root + hop) % self.q
                    yield p * self.q + q, p * self.q + (q + 1) % self.q, panel, 1
            for q in range(self.q):
                piece = math.ceil(jb / self.p) * owned(self.n, self.nb, j + 1, q, self.q) * WORD_B
                for p in range(self.p if self.p > 1 else 0):
                    yield p * self.q + q, ((p + 1) % self.p) * self.q + q, piece, self.p - 1


def trapezoid_sum(steps: list[int], times: list[float]) -> float:
    """Sum over every step 0 .. steps[-1] of a step time known at ``steps``: the trapezoid integral
    between the samples plus half of the two end samples (the endpoint correction of a sum)."""
    total = 0.5 * (times[0] + times[-1])
    for a, b, ta, tb in zip(steps, steps[1:], times, times[1:]):
        total += 0.5 * (ta + tb) * (b - a)
    return total


def hpl_main(mpi, sim: HPLSim, efficiency: float):
    """Rank program.  A sampled run returns, per sampled step j, this rank's start time and its
    times at the end of step j - 1 (a warm-up that fills the look-ahead) and of step j."""
    world = mpi.COMM_WORLD
    p, q = divmod(world.rank, sim.q)
    row = world.split(p, q)                      # this process row, ranked by column
    col = world.split(q, p)                      # this process column, ranked by row
    n, nb, P, Q = sim.n, sim.nb, sim.p, sim.q

    def factor(j):
        rows = owned(n, nb, j, p, P)
        jb = panel_width(n, nb, j)
        for c in range(jb):
            mpi.compute(panel_column_tasklist(rows, jb - c - 1, jb))
            if P > 1:
                col.allreduce(None, op=mpi.MAXLOC, nbytes=pivot_B(jb))

    def panel_B(j):
        return owned(n, nb, j, p, P) * panel_width(n, nb, j) * WORD_B + panel_width(n, nb, j) * INDEX_B

    def ring_post(j):
        """Receive panel j from the left neighbour (not on its owner column)."""
        if Q > 1 and q != j % Q:
            return row.irecv(source=(q - 1) % Q, tag=j)
        return None

    def ring_send(j):
        """Pass panel j to the right neighbour unless it owns the panel (the ring's end)."""
        if Q > 1 and (q + 1) % Q != j % Q:
            return row.isend(None, (q + 1) % Q, tag=j, nbytes=panel_B(j))
        return None

    def broadcast(j, ahead):
        """Panel j along the row (``ahead``: what the look-ahead already did for it: its receive
        posted, or on the owner column its send started); returns the sends still in flight."""
        if sim.bcast == "long":
            piece = math.ceil(panel_B(j) / Q)
            if Q > 1:
                row.scatter(None, root=j % Q, nbytes=piece, algorithm="binomial")
                row.allgather(None, nbytes=piece, algorithm="ring")
            return []
        if q == j % Q:
            return [] if ahead["sent"] else [s for s in (ring_send(j),) if s is not None]
        recv = ahead["recv"] or ring_post(j)
        if recv is not None:
            recv.wait()
        send = ring_send(j)
        return [send] if send is not None else []

    def swap_and_update(j, look, more):
        """Row swaps and U, TRSM, the trailing update (look-ahead: panel j + 1's columns, its
        factorization and, in a continuous run, its broadcast start first).  Returns what was done
        ahead for panel j + 1 (see :func:`broadcast`) and the sends started."""
        jb = panel_width(n, nb, j)
        m_loc = owned(n, nb, j + 1, p, P)
        n_loc = owned(n, nb, j + 1, q, Q)
        if P > 1:
            col.allgather(None, nbytes=math.ceil(jb / P) * n_loc * WORD_B, algorithm="ring")
        mpi.compute(trsm_tasklist(jb, n_loc, efficiency))
        nxt = j + 1
        ahead = {"recv": None, "sent": False}
        sends = []
        if look and nxt < sim.steps:
            early = more and sim.bcast == "1ring"
            if q == nxt % Q:
                first = panel_width(n, nb, nxt)
                mpi.compute(dgemm_tasklist(m_loc, first, jb, efficiency))
                factor(nxt)
                if early:
                    sends = [s for s in (ring_send(nxt),) if s is not None]
                    ahead["sent"] = True
                mpi.compute(dgemm_tasklist(m_loc, n_loc - first, jb, efficiency))
                return ahead, sends
            if early:
                ahead["recv"] = ring_post(nxt)
        mpi.compute(dgemm_tasklist(m_loc, n_loc, jb, efficiency))
        return ahead, sends

    look = sim.lookahead == 1

    def run_steps(seq):
        """Steps ``seq`` (consecutive) as one pipelined stretch; this rank's time at the end of each."""
        pending, ends = [], []
        ahead = {"recv": None, "sent": False}
        if look and q == seq[0] % Q:
            factor(seq[0])
        for j in seq:
            if not look and q == j % Q:
                factor(j)
            pending += broadcast(j, ahead)
            ahead, sends = swap_and_update(j, look, j != seq[-1])
            pending += sends
            ends.append(mpi.wtime())
        mpi.waitall(pending)
        return ends

    if not sim.is_sampled:
        run_steps(list(range(sim.steps)))
        return None
    times = {}
    for j in sim.sampled():
        world.barrier()
        start = mpi.wtime()
        times[j] = (start, *run_steps([j - 1, j] if j else [j]))
    return times


def step_times(sim: HPLSim, returns) -> dict[int, float]:
    """Seconds each sampled step adds to a pipelined run: the latest rank's end of the step less the
    latest rank's end of the warm-up step before it (the first step: less the common start)."""
    out = {}
    for j in sim.sampled():
        marks = [r[j] for r in returns]
        before = max(m[-2] for m in marks) if len(marks[0]) == 3 else marks[0][0]
        out[j] = max(m[-1] for m in marks) - before
    return out


def _build(ranks: int, params: dict) -> HPLSim:
    p, q = params["P"], params["Q"]
    if (p == 0) != (q == 0):
        raise ConfigError("give both app.P and app.Q, or neither (then the grid is the most square P <= Q)")
    if p == 0:
        p, q = near_square_grid(ranks)
    elif p * q != ranks:
        raise ConfigError(f"app.P x app.Q = {p} x {q} = {p * q} is not the {ranks} ranks; give a grid of {ranks}")
    return HPLSim(params["N"], params["NB"], p, q, params["lookahead"], params["bcast"], params["sample_steps"],
                  params["dgemm_efficiency"], params["threads"])


register(AppModel(
    "hpl", "High-Performance Linpack: LU on a P x Q grid; Gflop/s, Rmax/Rpeak",
    {"N": Param(10000, "order of the matrix (HPL's N)"),
     "NB": Param(192, "block size: columns per panel"),
     "P": Param(0, "process rows (0: the most square grid with P <= Q)"),
     "Q": Param(0, "process columns (0: with P)"),
     "lookahead": Param(1, "look-ahead depth, 0 or 1 (HPL's DEPTH)"),
     "bcast": Param("1ring", "panel broadcast: 1ring (increasing ring) or long (spread-roll)"),
     "sample_steps": Param(0, "panel steps simulated, spread over the run and summed by the "
                              "trapezoid rule (0: all)"),
     "dgemm_efficiency": Param(0.0, "fraction of the FMA peak DGEMM sustains (0: the processor preset's)"),
     "threads": Param(1, "cores per rank (a threaded BLAS sharing the rank's work)")},
    _build, source="netlib HPL algorithm (https://www.netlib.org/benchmark/hpl/algorithm.html); "
                   "Dongarra, Luszczek, Petitet 2003",
    columns=(("gflops", "Gflop/s"), ("rmax_over_rpeak", "Rmax/Rpeak"))))

"""A stylized CloverLeaf: 2-D Lagrangian-Eulerian hydrodynamics on a structured grid.

CloverLeaf (UK Mini-App Consortium, https://uk-mac.github.io/CloverLeaf/; A. C.
Mallinson et al., "CloverLeaf: Preparing Hydrodynamics Codes for Exascale",
CUG 2013) splits the ``x_cells x y_cells`` mesh into one chunk per rank,
``chunks_x x chunks_y`` chosen among the factor pairs of the rank count to
minimise the chunks' perimeter, extra cells going to the first chunks of a
row or column.  Each time step runs these kernels, every one a sweep over the
chunk's cells, with halo exchanges (``update_halo``) of the fields the next
kernel reads::

    timestep:   ideal_gas; update_halo(density0, energy0, pressure, xvel0, yvel0; depth 1)
                viscosity; update_halo(viscosity; depth 1)
                calc_dt;   allreduce MIN (8 B)
    PdV(predict): PdV; allreduce MAX (error check); ideal_gas; update_halo(pressure; depth 1); revert
    accelerate
    PdV:        PdV; allreduce MAX (error check)
    flux_calc
    advection:  update_halo(density1, energy1, vol_flux_x, vol_flux_y; depth 2)
                advec_cell (first direction)
                update_halo(density1, energy1, xvel1, yvel1, mass_flux_x, mass_flux_y; depth 2)
                advec_mom (xvel1, with the nodal fluxes and masses), advec_mom (yvel1)
                advec_cell (second direction)
                update_halo(the same six fields; depth 2)
                advec_mom x 2
    reset_field
    every summary_frequency steps and after the last: ideal_gas, field_summary;
                5 reduces (SUM, 8 B each) to rank 0

An ``update_halo`` exchanges with the left and right neighbours (one message
each way holding every requested field), waits, then with the bottom and top
neighbours (rows including the corners just received), so a rank at chunk
``(i, j)`` sends per step ``6 * (#x-neighbours + #y-neighbours)`` messages.  A
message holds ``fields * depth * (n + 2 depth)`` doubles, ``n`` the chunk's
cells along the face (node-centred fields have one more; ignored).

Kernel work (:data:`KERNELS`): per cell, arrays streamed in and out, neighbour
loads (stencil reads that hit in cache), floating-point operations and
divides or square roots, counted from the loops of CloverLeaf 1.3's Fortran
kernels (UK-MAC/CloverLeaf_ref, ``kernels/*_kernel.f90``): each loop of a
kernel streams the distinct 2-D arrays it reads and writes (an array updated
in place counts as written), 1-D mesh arrays are ignored.  ``advec_mom`` is
two kernels: the first velocity of a sweep also computes the nodal fluxes and
masses the second reuses.  See ``docs/apps/cloverleaf.md``.

Not modelled: the visualisation and the initial generation of the mesh, the
reflective boundary update (local copies), tiling and OpenMP loop details
(``threads`` split a chunk's work evenly), and the one-element differences
between cell- and node-centred arrays.
"""
from __future__ import annotations

from dataclasses import dataclass

from ppt.apps.registry import AppModel, Param, register
from ppt.apps.stepsampling import AppResult, positive, run_steps
from ppt.errors import ConfigError
from ppt.hardware.tasklist import MemAccess, Tasklist

WORD_B = 8
#: Bytes of one modelled streaming access: a whole number of every preset's cache lines (64 B on the
#: x86 presets, 128 B on Blue Gene/Q), since the node model counts an access shorter than a line as a
#: whole line -- 64-byte accesses made Blue Gene/Q move every streamed byte twice.
STREAM_B = 128
#: Lanes the model assumes a vectorised kernel uses (AVX, 4 doubles): flops issue per 4 cells.
CELLS_PER_VECTOR = 4
#: Doubles one divide's time (the processor's ``divide_cycles``, a scalar divide's reciprocal throughput)
#: covers: Sandy Bridge to Haswell divide 128 bits at a time, so a 4-wide AVX divide (VDIVPD ymm) takes
#: twice a scalar one's cycles (A. Fog, instruction tables: 20-44 vs 10-22 cycles on Sandy Bridge,
#: 16-28 vs 8-14 on Ivy Bridge and Haswell).
CELLS_PER_DIVIDE = 2
#: 2-D arrays a chunk allocates (density0/1, energy0/1, pressure, viscosity, soundspeed, xvel0/1, yvel0/1,
#: vol_flux_x/y, mass_flux_x/y, volume, xarea, yarea and seven work arrays): the reuse distance of a field
#: from one kernel to the next is the whole working set.
WORKING_SET_ARRAYS = 25
#: Field summaries at the end of a step of each kind.
SUMMARIES = {"hydro": 0, "summary": 1, "summary2": 2}
#: Reduces of a field summary (CloverLeaf sums vol, mass, ie, ke and press, one 8-byte reduce each).
SUMMARY_REDUCES = 5


@dataclass(frozen=True)
class Kernel:
    """Per-cell work of one kernel sweep: arrays ``read`` and ``written`` from/to the field arrays (a
    written array costs two line transfers from memory: the write-allocate fill and the write-back),
    ``stencil`` further loads of neighbouring cells (reused from cache), ``flops`` and ``divides``
    (divides and square roots)."""

    read: int
    written: int
    stencil: int
    flops: int
    divides: int


KERNELS = {
    "ideal_gas": Kernel(2, 2, 0, 8, 2),
    "viscosity": Kernel(4, 1, 10, 36, 7),
    "calc_dt": Kernel(8, 0, 8, 35, 5),
    "pdv_predict": Kernel(9, 2, 8, 43, 4),
    "pdv": Kernel(11, 2, 14, 39, 4),
    "revert": Kernel(2, 2, 0, 0, 0),
    "accelerate": Kernel(8, 2, 14, 36, 1),
    "flux_calc": Kernel(6, 2, 4, 12, 0),
    "advec_cell": Kernel(11, 6, 8, 47, 5),
    "advec_mom_first": Kernel(13, 7, 14, 41, 4),
    "advec_mom_second": Kernel(9, 4, 4, 27, 4),
    "reset_field": Kernel(4, 4, 0, 0, 0),
    "field_summary": Kernel(6, 0, 6, 26, 0),
}

#: The halo exchanges of a step, in order: (fields, depth).
HALOS = {"timestep": (5, 1), "viscosity": (1, 1), "pdv_predict": (1, 1),
         "advec_cell": (4, 2), "advec_mom_1": (6, 2), "advec_mom_2": (6, 2)}


def decompose(ranks: int, x_cells: int, y_cells: int) -> tuple[int, int]:
    """``(chunks_x, chunks_y)``: the factor pair of ``ranks`` whose chunks have the smallest perimeter
    ``2 (x_cells/chunks_x + y_cells/chunks_y)`` (the first, smallest ``chunks_x``, on a tie)."""
    best = None
    for cx in range(1, ranks + 1):
        if ranks % cx:
            continue
        cy = ranks // cx
        perimeter = x_cells / cx + y_cells / cy
        if best is None or perimeter < best[0]:
            best = (perimeter, cx, cy)
    return best[1], best[2]


def split(cells: int, chunks: int, index: int) -> int:
    """Cells of chunk ``index`` when ``cells`` split over ``chunks``: the remainder goes to the first ones."""
    return cells // chunks + (index < cells % chunks)


def kernel_tasklist(kernel: Kernel, nx: int, ny: int, depth: int = 2) -> Tasklist:
    """Work of one sweep of ``kernel`` over a chunk of ``nx x ny`` cells (halo ``depth`` cells wide)."""
    cells = nx * ny
    padded_B = (nx + 2 * depth) * (ny + 2 * depth) * WORD_B
    streamed = kernel.read + 2 * kernel.written
    row_B = 2 * (nx + 2 * depth) * WORD_B * max(1, kernel.read + kernel.written)
    accesses = []
    if streamed:
        accesses.append(MemAccess(cells * streamed * WORD_B / STREAM_B, STREAM_B,
                                  reuse_profile=((WORKING_SET_ARRAYS * padded_B, 1.0),)))
    if kernel.stencil:
        accesses.append(MemAccess(cells * kernel.stencil / CELLS_PER_VECTOR, CELLS_PER_VECTOR * WORD_B,
                                  reuse_profile=((row_B, 1.0),)))
    return Tasklist(int_ops=cells / CELLS_PER_VECTOR, vector_ops=((cells * kernel.flops / CELLS_PER_VECTOR,
                                                                   CELLS_PER_VECTOR),),
                    divides=cells * kernel.divides / CELLS_PER_DIVIDE, accesses=tuple(accesses))


def pack_tasklist(doubles: int) -> Tasklist:
    """Copying ``doubles`` halo values into a message buffer (or out of one): a load and a store each."""
    return Tasklist(accesses=(MemAccess(2 * doubles * WORD_B / STREAM_B, STREAM_B,
                                        reuse_profile=((2 * doubles * WORD_B, 1.0),)),))


@dataclass(frozen=True)
class CloverLeafSim:
    """CloverLeaf on ``ranks`` ranks: a ``x_cells x y_cells`` mesh, ``steps`` time steps, a field summary
    every ``summary_frequency`` steps and after the last; ``sample_steps`` > 0 simulates that many hydro
    steps and one step of each summary kind and scales (:mod:`ppt.apps.stepsampling`); ``threads``
    cores per rank."""

    ranks: int
    x_cells: int = 3840
    y_cells: int = 3840
    steps: int = 87
    summary_frequency: int = 10
    sample_steps: int = 0
    threads: int = 1

    def __post_init__(self):
        for name in ("ranks", "x_cells", "y_cells", "steps", "summary_frequency", "threads"):
            positive(name, getattr(self, name), "cloverleaf")
        if isinstance(self.sample_steps, bool) or not isinstance(self.sample_steps, int) or self.sample_steps < 0:
            raise ConfigError(f"cloverleaf parameter sample_steps must be an integer >= 0, got {self.sample_steps!r}")
        cx, cy = self.chunks
        if cx > self.x_cells or cy > self.y_cells:
            raise ConfigError(f"{self.ranks} ranks split the {self.x_cells}x{self.y_cells} mesh into {cx}x{cy} "
                              f"chunks, more than it has cells; use at most {self.x_cells * self.y_cells} ranks")
        if min(self.x_cells // cx, self.y_cells // cy) < 2:
            raise ConfigError(f"{cx}x{cy} chunks of the {self.x_cells}x{self.y_cells} mesh are under 2 cells "
                              f"wide, thinner than CloverLeaf's depth-2 halo; use fewer ranks")

    @property
    def chunks(self) -> tuple[int, int]:
        return decompose(self.ranks, self.x_cells, self.y_cells)

    def chunk_cells(self, rank: int) -> tuple[int, int]:
        """``(nx, ny)`` cells of ``rank``'s chunk (x fastest: rank = j * chunks_x + i)."""
        cx, cy = self.chunks
        return split(self.x_cells, cx, rank % cx), split(self.y_cells, cy, rank // cx)

    def step_sequence(self) -> list[str]:
        """Kind of every step: ``"summary"`` after a field summary -- steps ``summary_frequency``,
        ``2 summary_frequency``, ... (1-based) and the last step (CloverLeaf summarises at the end) --,
        ``"summary2"`` on a last step that is also a multiple of the frequency (two summaries),
        ``"hydro"`` otherwise."""
        kinds = []
        for step in range(1, self.steps + 1):
            count = (step % self.summary_frequency == 0) + (step == self.steps)
            kinds.append(("hydro", "summary", "summary2")[count])
        return kinds

    def sends_per_rank(self, rank: int) -> int:
        """Closed-form halo messages ``rank`` sends in the run: one per update_halo and neighbour."""
        cx, cy = self.chunks
        i, j = rank % cx, rank // cx
        neighbours = (i > 0) + (i < cx - 1) + (j > 0) + (j < cy - 1)
        return self.steps * len(HALOS) * neighbours

    def run(self, machine, progress=None, seed: int = 0, ranks_per_node: int | None = None) -> AppResult:
        """Run on ``machine`` (a :class:`~ppt.machine.Machine`), one rank per ``threads`` cores by default."""
        from ppt.mpi import MPIJob
        job = MPIJob.on_machine(machine, self.ranks, ranks_per_node, seed=seed, threads_per_rank=self.threads)
        cx, cy = self.chunks
        return run_steps("cloverleaf", job, cloverleaf_main, self, self.step_sequence(), "hydro",
                         self.sample_steps, {"chunks_x": cx, "chunks_y": cy}, progress)


def cloverleaf_main(mpi, sim: CloverLeafSim, kinds: list[str]) -> list[tuple]:
    """Rank program: the steps ``kinds``; returns the step log ``[(kind, start_s, end_s, compute_s)]``."""
    cx, cy = sim.chunks
    cart = mpi.COMM_WORLD.cart_create([cy, cx])
    j_lo, j_hi = cart.cart_shift(0, 1)
    i_lo, i_hi = cart.cart_shift(1, 1)
    nx, ny = sim.chunk_cells(mpi.rank)
    work = {name: kernel_tasklist(kernel, nx, ny) for name, kernel in KERNELS.items()}
    spent = [0.0]

    def compute(name):
        spent[0] += mpi.compute(work[name])

    def update_halo(fields, depth):
        for axis, (peers, length) in enumerate((((i_lo, i_hi), ny + 2 * depth), ((j_lo, j_hi), nx + 2 * depth))):
            doubles = fields * depth * length
            reqs = []
            for side, peer in enumerate(peers):          # side 0 sends down (lo), 1 up (hi)
                if peer >= 0:
                    spent[0] += mpi.compute(pack_tasklist(doubles))
                    reqs.append(cart.irecv(peer, 2 * axis + 1 - side))
                    reqs.append(cart.isend(None, peer, 2 * axis + side, nbytes=doubles * WORD_B))
            mpi.waitall(reqs)
            spent[0] += mpi.compute(pack_tasklist(doubles * (len(reqs) // 2)))

    log = []
    for kind in kinds:
        start, spent[0] = mpi.wtime(), 0.0
        compute("ideal_gas")
        update_halo(*HALOS["timestep"])
        compute("viscosity")
        update_halo(*HALOS["viscosity"])
        compute("calc_dt")
        cart.allreduce(None, op=mpi.MIN, nbytes=WORD_B)
        compute("pdv_predict")
        cart.allreduce(None, op=mpi.MAX, nbytes=WORD_B)
        compute("ideal_gas")
        update_halo(*HALOS["pdv_predict"])
        compute("revert")
        compute("accelerate")
        compute("pdv")
        cart.allreduce(None, op=mpi.MAX, nbytes=WORD_B)
        compute("flux_calc")
        update_halo(*HALOS["advec_cell"])
        compute("advec_cell")
        update_halo(*HALOS["advec_mom_1"])
        compute("advec_mom_first")
        compute("advec_mom_second")
        compute("advec_cell")
        update_halo(*HALOS["advec_mom_2"])
        compute("advec_mom_first")
        compute("advec_mom_second")
        compute("reset_field")
        for _ in range(SUMMARIES[kind]):
            compute("ideal_gas")
            compute("field_summary")
            for _ in range(SUMMARY_REDUCES):
                cart.reduce(None, op=mpi.SUM, root=0, nbytes=WORD_B)
        log.append((kind, start, mpi.wtime(), spent[0]))
    return log


PARAMS = {
    "x_cells": Param(3840, "global mesh cells in x (bm16: 3840)"),
    "y_cells": Param(3840, "global mesh cells in y (bm16: 3840)"),
    "steps": Param(87, "time steps (the _short decks run 87)"),
    "summary_frequency": Param(10, "steps between field summaries (5 reduces to rank 0)"),
    "sample_steps": Param(0, "0: simulate every step; N: N hydro steps + one of each summary kind, scaled"),
    "threads": Param(1, "cores per rank (OpenMP threads splitting a chunk's work)"),
}


def build(ranks: int, params: dict) -> CloverLeafSim:
    """A :class:`CloverLeafSim` on ``ranks`` ranks from the registry's parameters."""
    return CloverLeafSim(ranks, **params)


register(AppModel("cloverleaf", "2-D Lagrangian-Eulerian hydrodynamics (CloverLeaf mini-app)",
                  PARAMS, build, "A. C. Mallinson et al., CloverLeaf: Preparing Hydrodynamics Codes for "
                  "Exascale, CUG 2013; UK-MAC CloverLeaf_ref"))

"""A stylized Lennard-Jones molecular dynamics code in the style of miniMD and LAMMPS' ``bench/in.lj``.

The problem (LAMMPS ``bench/in.lj``; miniMD's default input, Heroux et al.,
"Improving performance via mini-applications", Sandia SAND2009-5574): atoms
on an fcc lattice of reduced density ``rho = 0.8442`` (4 atoms per unit cell,
``nx x ny x nz`` cells, so 32,000 atoms for 20^3), a Lennard-Jones potential
cut off at ``rc = 2.5 sigma``, a neighbour skin of ``0.3 sigma``, neighbour
lists rebuilt every ``reneigh`` (20) steps, velocity-Verlet (NVE) with
``dt = 0.005``, Newton's third law on (half neighbour lists, ghost forces sent
back).  The box is split over a 3-D process grid (balanced factors of the
rank count, largest along x, as MPI_Dims_create).

Closed forms (``V`` a volume, ``A`` an area, all in sigma units):

* neighbours listed per atom ``4/3 pi (rc + skin)^3 rho / 2`` (38.8), of which
  ``4/3 pi rc^3 rho / 2`` (27.6) inside the cut-off;
* ghosts: the halo of width ``rg = rc + skin`` is exchanged dimension by
  dimension (x, then y with x's ghosts, then z with both), one message per
  direction and swap; the slab sent across a face of a ``Lx x Ly x Lz``
  sub-domain holds ``rho * rg * Ly * Lz`` atoms along x, ``rho * rg *
  (Lx + 2 rg) * Lz`` along y and ``rho * rg * (Lx + 2 rg)(Ly + 2 rg)`` along
  z (a sub-domain thinner than ``rg`` needs ``ceil(rg / L)`` swaps, each a
  slab at most ``L`` thick);
* migration: per rebuild, the atoms crossing one face are ``rho A <|v_x|>
  reneigh dt`` with ``<|v_x|> = sqrt(2 T / pi)`` (Maxwell), ``T`` the
  temperature (1.44, in.lj's initial value).

Per step (LAMMPS Verlet::run order), per rank::

    initial_integrate                         (x += v dt + f dt^2/2m; v += f dt/2m)
    if rebuild step:  exchange   (per direction: atom count, then atoms: 2 messages)
                      borders    (per direction: ghost count, then ghosts: 2 messages)
                      neighbour-list build (binned, half list)
    else:             forward communication (ghost positions, 1 message per direction)
    force             (pair loop over the half list; energy and virial on thermo steps)
    reverse communication (ghost forces, 1 message per direction)
    final_integrate   (v += f dt/2m)
    if thermo step:   3 allreduces (temperature, energy, pressure: 8 B each)

A dimension with one rank copies its ghosts locally (periodic images) and
sends nothing; with two ranks both neighbours are the same rank.  Rebuild
steps are steps ``reneigh``, ``2 reneigh``, ...; thermo steps ``thermo``,
``2 thermo``, ... (1-based).

Work per atom (counted from the pair loop of a Lennard-Jones kernel as
LAMMPS ``pair_lj_cut`` and miniMD ``force_lj`` describe it, estimates):
per listed pair a neighbour index load, a gather of the neighbour's position
and the squared distance (9 flops); per pair inside the cut-off one divide,
16 flops and a load and store of the neighbour's force; the neighbour build
tests ``(5/2 rg)^3 rho / 2`` candidates per atom (half of the 125-bin stencil
of bins rg/2 wide) at 9 flops each.  The pair loop is scalar code.

Not modelled: load imbalance from density fluctuations (every rank holds the
mean atom count), sorting of atoms, the multiple-bin-size details of the
stencil, branch mispredictions in the neighbour build, and OpenMP.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ppt.apps.registry import AppModel, Param, register
from ppt.apps.stepsampling import AppResult, positive, run_steps
from ppt.errors import ConfigError
from ppt.hardware.tasklist import MemAccess, Tasklist
from ppt.mpi.surface.environment import balanced_factors

WORD_B = 8
INDEX_B = 4
#: fcc lattice: atoms per unit cell.
ATOMS_PER_CELL = 4
#: Doubles per migrating atom (position and velocity) and per ghost (position); per ghost force.
ATOM_DOUBLES = 6
GHOST_DOUBLES = 3
#: Stencil of the binned neighbour build: bins rg/2 wide, 5 x 5 x 5 bins, half of them for a half list.
STENCIL_SPAN = 2.5
#: Flops per listed pair (distance), per pair inside the cut-off (force and updates), per candidate (build).
PAIR_DISTANCE_FLOPS = 9
PAIR_FORCE_FLOPS = 16
PAIR_ENERGY_FLOPS = 6
CANDIDATE_FLOPS = 9
INTEGRATE_FLOPS = 12
#: Communication phases of a step (their index is part of a message's tag).
PHASES = ("exchange", "borders", "forward", "reverse")
#: Allreduces of a thermo output (temperature, potential energy, pressure).
THERMO_REDUCES = 3


@dataclass(frozen=True)
class MDProblem:
    """The Lennard-Jones system (reduced units): density, cut-off, skin, time step and temperature."""

    density: float = 0.8442
    cutoff: float = 2.5
    skin: float = 0.3
    dt: float = 0.005
    temperature: float = 1.44

    @property
    def ghost_cutoff(self) -> float:
        return self.cutoff + self.skin

    @property
    def lattice(self) -> float:
        """fcc lattice constant ``(4 / rho)^(1/3)``."""
        return (ATOMS_PER_CELL / self.density) ** (1 / 3)

    def half_neighbours(self, radius: float) -> float:
        """Neighbours within ``radius`` per atom, each pair counted once: ``4/3 pi r^3 rho / 2``."""
        return 4 / 3 * math.pi * radius ** 3 * self.density / 2


def ghost_slabs(problem: MDProblem, local: tuple[float, float, float]) -> list[list[float]]:
    """Per dimension, the atoms of each swap's slab across one face (see module doc).  Along a dimension
    with one rank the slabs are local periodic images: copied, not sent."""
    rg, rho = problem.ghost_cutoff, problem.density
    extent = list(local)
    slabs = []
    for d in range(3):
        area = math.prod(extent[k] for k in range(3) if k != d)
        swaps, remaining = [], rg
        while remaining > 1e-12:
            thickness = min(local[d], remaining)
            swaps.append(rho * thickness * area)
            remaining -= thickness
        slabs.append(swaps)
        extent[d] = local[d] + 2 * rg
    return slabs


@dataclass(frozen=True)
class MiniMDSim:
    """Lennard-Jones MD on ``ranks`` ranks: an fcc box of ``nx x ny x nz`` unit cells, ``steps`` steps,
    neighbour rebuild every ``reneigh``, thermo output every ``thermo`` steps; ``sample_steps`` > 0
    simulates that many regular steps plus one of each periodic kind and scales."""

    ranks: int
    nx: int = 20
    ny: int = 20
    nz: int = 20
    steps: int = 100
    reneigh: int = 20
    thermo: int = 100
    sample_steps: int = 0
    threads: int = 1
    problem: MDProblem = MDProblem()

    def __post_init__(self):
        for name in ("ranks", "nx", "ny", "nz", "steps", "reneigh", "thermo", "threads"):
            positive(name, getattr(self, name), "minimd")
        if isinstance(self.sample_steps, bool) or not isinstance(self.sample_steps, int) or self.sample_steps < 0:
            raise ConfigError(f"minimd parameter sample_steps must be an integer >= 0, got {self.sample_steps!r}")
        box = self.box
        for d, (cells, procs) in enumerate(zip((self.nx, self.ny, self.nz), self.grid)):
            if procs > cells:
                raise ConfigError(f"{self.ranks} ranks put {procs} sub-domains along {'xyz'[d]} on {cells} "
                                  f"lattice cells; use fewer ranks or a larger box")
        if self.problem.ghost_cutoff >= min(box):
            raise ConfigError(f"the {box[0]:.3g} x {box[1]:.3g} x {box[2]:.3g} sigma box is not wider than the "
                              f"ghost cut-off {self.problem.ghost_cutoff} sigma; use at least 3 cells a side")

    @property
    def atoms(self) -> int:
        return ATOMS_PER_CELL * self.nx * self.ny * self.nz

    @property
    def box(self) -> tuple[float, float, float]:
        a = self.problem.lattice
        return self.nx * a, self.ny * a, self.nz * a

    @property
    def grid(self) -> list[int]:
        """Process grid (x, y, z), largest factor along x."""
        return balanced_factors(self.ranks, 3)

    @property
    def local(self) -> tuple[float, float, float]:
        """Sub-domain edge lengths, sigma."""
        return tuple(length / procs for length, procs in zip(self.box, self.grid))

    @property
    def local_atoms(self) -> float:
        return self.atoms / self.ranks

    def slabs(self) -> list[list[float]]:
        return ghost_slabs(self.problem, self.local)

    def swaps(self) -> list[list[float]]:
        """The slabs sent as messages: those of dimensions split over more than one rank."""
        return [slabs if procs > 1 else [] for slabs, procs in zip(self.slabs(), self.grid)]

    def ghosts(self) -> float:
        """Ghost atoms per rank (both faces of every swap, received or copied)."""
        return 2 * sum(sum(slabs) for slabs in self.slabs())

    def step_sequence(self) -> list[str]:
        """Kind of every step: ``"thermo"`` (a thermo step, also rebuilding when due: ``"thermo+neigh"``),
        ``"neigh"`` (rebuild) or ``"plain"``."""
        kinds = []
        for step in range(1, self.steps + 1):
            neigh, thermo = step % self.reneigh == 0, step % self.thermo == 0
            kinds.append("thermo+neigh" if neigh and thermo else "thermo" if thermo else
                         "neigh" if neigh else "plain")
        return kinds

    def sends_per_step(self, kind: str) -> int:
        """Closed-form point-to-point messages a rank sends in a step of ``kind`` (allreduces apart):
        per swap and direction 2 (exchange) + 2 (borders) + 1 (reverse) on rebuild steps, 1 + 1 otherwise."""
        swaps = sum(len(slabs) for slabs in self.swaps())
        exchange = 2 * sum(1 for slabs in self.swaps() if slabs)           # one exchange pass per dimension
        if "neigh" in kind:
            return 2 * exchange + 2 * 2 * swaps + 2 * swaps
        return 2 * 2 * swaps

    def run(self, machine, progress=None, seed: int = 0, ranks_per_node: int | None = None) -> AppResult:
        """Run on ``machine`` (a :class:`~ppt.machine.Machine`)."""
        from ppt.mpi import MPIJob
        job = MPIJob.on_machine(machine, self.ranks, ranks_per_node, seed=seed, threads_per_rank=self.threads)
        extra = {"atoms": self.atoms, "grid": self.grid, "ghosts_per_rank": self.ghosts(),
                 "atoms_per_rank": self.local_atoms}
        return run_steps("minimd", job, minimd_main, self, self.step_sequence(), "plain", self.sample_steps,
                         extra, progress)


def gather_profile(atoms: float) -> tuple:
    """Reuse distance of a random access to per-atom arrays of ``atoms`` atoms (positions or forces)."""
    return ((atoms * GHOST_DOUBLES * WORD_B, 1.0),)


def force_tasklist(sim: MiniMDSim, energy: bool) -> Tasklist:
    """The pair loop over a rank's half neighbour list (with energy and virial on thermo steps)."""
    p = sim.problem
    atoms = sim.local_atoms
    listed = atoms * p.half_neighbours(p.ghost_cutoff)
    inside = atoms * p.half_neighbours(p.cutoff)
    owned = atoms + sim.ghosts()
    list_B = listed * INDEX_B
    return Tasklist(
        int_ops=listed * 2, float_ops=listed * PAIR_DISTANCE_FLOPS
        + inside * (PAIR_FORCE_FLOPS + (PAIR_ENERGY_FLOPS if energy else 0)), divides=inside,
        accesses=(MemAccess(listed, INDEX_B, reuse_profile=((list_B + 2 * owned * 24, 1.0),)),
                  MemAccess(listed * GHOST_DOUBLES, WORD_B, reuse_profile=gather_profile(owned)),
                  MemAccess(inside * 2 * GHOST_DOUBLES, WORD_B, reuse_profile=gather_profile(owned)),
                  MemAccess(atoms * 4 * GHOST_DOUBLES, WORD_B, reuse_profile=gather_profile(atoms))))


def neighbour_tasklist(sim: MiniMDSim) -> Tasklist:
    """Binning every owned and ghost atom and building the half neighbour list."""
    p = sim.problem
    atoms = sim.local_atoms
    owned = atoms + sim.ghosts()
    candidates = atoms * (STENCIL_SPAN * p.ghost_cutoff) ** 3 * p.density / 2
    listed = atoms * p.half_neighbours(p.ghost_cutoff)
    return Tasklist(int_ops=owned * 10 + candidates * 2, float_ops=candidates * CANDIDATE_FLOPS,
                    accesses=(MemAccess(owned * 4, WORD_B, reuse_profile=gather_profile(owned)),
                              MemAccess(candidates * GHOST_DOUBLES, WORD_B, reuse_profile=gather_profile(owned)),
                              MemAccess(listed, INDEX_B, reuse_profile=((listed * INDEX_B, 1.0),))))


def integrate_tasklist(sim: MiniMDSim) -> Tasklist:
    """Half of velocity Verlet over the rank's atoms: positions, velocities and forces in, out."""
    atoms = sim.local_atoms
    return Tasklist(float_ops=atoms * INTEGRATE_FLOPS / 2,
                    accesses=(MemAccess(atoms * 5 * GHOST_DOUBLES / 2, WORD_B,
                                        reuse_profile=((atoms * 3 * GHOST_DOUBLES * WORD_B, 1.0),)),))


def copy_tasklist(doubles: float) -> Tasklist:
    """Packing or unpacking ``doubles`` values of a message (a load and a store each)."""
    return Tasklist(accesses=(MemAccess(2 * doubles, WORD_B, reuse_profile=((2 * doubles * WORD_B, 1.0),)),))


def minimd_main(mpi, sim: MiniMDSim, kinds: list[str]) -> list[tuple]:
    """Rank program: the steps ``kinds``; returns the step log ``[(kind, start_s, end_s, compute_s)]``."""
    cart = mpi.COMM_WORLD.cart_create(sim.grid, [True] * 3)
    shifts = [cart.cart_shift(d, 1) for d in range(3)]
    swaps, slabs = sim.swaps(), sim.slabs()
    p = sim.problem
    area = [p.density * sim.local[(d + 1) % 3] * sim.local[(d + 2) % 3] for d in range(3)]
    migrating = [a * math.sqrt(2 * p.temperature / math.pi) * sim.reneigh * p.dt for a in area]
    work = {"force": force_tasklist(sim, False), "force_energy": force_tasklist(sim, True),
            "neighbour": neighbour_tasklist(sim), "integrate": integrate_tasklist(sim)}
    spent = [0.0]

    def compute(work_item):
        spent[0] += mpi.compute(work_item)

    def swap(d, tag, counts_first, doubles_of):
        """Both directions of every swap along ``d``: optionally a count message, then the data."""
        lo, hi = shifts[d]
        if not swaps[d]:                                   # periodic images along d: copied locally
            if tag != "exchange":
                compute(copy_tasklist(2 * sum(slabs[d]) * doubles_of))
            return
        for k, atoms in enumerate(swaps[d] if tag != "exchange" else [migrating[d]]):
            nbytes = int(round(atoms * doubles_of)) * WORD_B
            compute(copy_tasklist(atoms * doubles_of))
            for direction, (dest, src) in enumerate(((lo, hi), (hi, lo))):
                base = (PHASES.index(tag) * 8 + k) * 4 + 2 * direction
                if counts_first:
                    cart.sendrecv(None, dest, base, source=src, recvtag=base, nbytes=INDEX_B)
                cart.sendrecv(None, dest, base + 1, source=src, recvtag=base + 1, nbytes=nbytes)
            compute(copy_tasklist(atoms * doubles_of))

    log = []
    for kind in kinds:
        start, spent[0] = mpi.wtime(), 0.0
        compute(work["integrate"])
        if "neigh" in kind:
            for d in range(3):
                swap(d, "exchange", True, ATOM_DOUBLES)
            for d in range(3):
                swap(d, "borders", True, GHOST_DOUBLES)
            compute(work["neighbour"])
        else:
            for d in range(3):
                swap(d, "forward", False, GHOST_DOUBLES)
        compute(work["force_energy" if "thermo" in kind else "force"])
        for d in reversed(range(3)):
            swap(d, "reverse", False, GHOST_DOUBLES)
        compute(work["integrate"])
        if "thermo" in kind:
            for _ in range(THERMO_REDUCES):
                cart.allreduce(None, nbytes=WORD_B)
        log.append((kind, start, mpi.wtime(), spent[0]))
    return log


PARAMS = {
    "nx": Param(20, "fcc unit cells along x (4 atoms each; 20^3 = in.lj's 32,000 atoms)"),
    "ny": Param(20, "fcc unit cells along y"),
    "nz": Param(20, "fcc unit cells along z"),
    "steps": Param(100, "time steps (in.lj runs 100)"),
    "reneigh": Param(20, "steps between neighbour-list rebuilds (with atom migration)"),
    "thermo": Param(100, "steps between thermo outputs (3 allreduces)"),
    "sample_steps": Param(0, "0: simulate every step; N: N plain steps + one of each periodic kind, scaled"),
    "threads": Param(1, "cores per rank (threads splitting a rank's work)"),
}


def build(ranks: int, params: dict) -> MiniMDSim:
    """A :class:`MiniMDSim` on ``ranks`` ranks from the registry's parameters."""
    return MiniMDSim(ranks, **params)


register(AppModel("minimd", "Lennard-Jones molecular dynamics (miniMD, LAMMPS in.lj)",
                  PARAMS, build, "M. A. Heroux et al., Mantevo miniMD, SAND2009-5574; LAMMPS bench/in.lj"))

"""A stylized implicit Monte Carlo (IMC) thermal radiation code, in the style of LANL's Branson.

Branson (https://github.com/lanl/branson; A. Long, "Evaluating the Branson
IMC proxy app") transports photon particles on a mesh split over ranks
("particle passing"): a particle reaching its rank's sub-domain boundary is
put in a buffer for the neighbour owning the next cell, buffers are sent in
messages of at most ``batch`` particles, and ranks keep transporting what they
receive until a global count says every particle of the time step is done;
particles still flying at the end of the step are kept as census particles
for the next one.

The model: an ``nx x ny x nz`` cell mesh on a 3-D process grid (balanced
factors of the rank count, as MPI_Dims_create).  Each step a rank emits its
share of ``photons`` -- cells in the source region (the first
``source_fraction`` of the mesh along x) emit ``source_ratio`` times more per
cell than the others, so ranks over the source carry more work (load
imbalance) -- and adds its census particles.  Then, in rounds::

    transport the particles in hand          (compute)
    isend each neighbour its leavers, in messages of <= batch particles
      (at least one message per neighbour, whose header holds the count)
    recv from each neighbour: the count message, then the rest
    allreduce SUM of particles now in hand   (8 B); stop when it is 0

and at the end of the step an allreduce of the energy tallies (4 doubles) and
the temperature update of the rank's cells.

Simplification -- no particle is tracked.  A particle in hand leaves the
sub-domain (a box of volume ``V``, surface ``S``) before it is absorbed or
reaches census with Wigner's rational escape probability::

    P_esc = 1 / (1 + l / lambda),   l = 4 V / S (mean chord, Cauchy),
    1 / lambda = 1 / mfp + 1 / census_length         (cell widths)

(census treated as a second exponential event); of the others a share
``lambda / mfp`` is absorbed and ``lambda / census_length`` reaches census.
Leavers cross a face with probability proportional to its area; those
crossing the mesh boundary escape the problem.  A rank draws its outcomes
from these probabilities with a multinomial draw of numpy's PCG64 generator,
seeded by ``(seed, rank)``, so a run is deterministic and each rank's draws
depend only on its own counts.  A particle segment costs ``lambda (1 -
P_esc)`` cell crossings (the mean track length in the sub-domain) plus its
end event.  Arriving particles are treated like new ones (uniform in the
sub-domain), an approximation for particles that enter through a face.

Termination uses a blocking allreduce per round, where Branson passes
completion counts up a binary tree of ranks without stopping transport.

Replicated mode (``mode="replicated"``, Branson's ``REPLICATED`` transport
type): every rank holds the whole mesh and tracks its share of the particles
(``photons // ranks``, the first ``photons % ranks`` ranks one more) over it;
no particle is passed.  A step is: an allreduce of the source energy (8 B),
emission, one transport segment over the whole mesh (a leaver leaves the
problem), two allreduces of a per-cell tally (absorbed and track-length
energy: ``8 nx ny nz`` bytes each), the temperature update of every cell, and
the allreduce of the energy tallies -- 4 allreduces per step, none per round.

Not modelled: frequency groups, the mesh-passing mode and one-sided tallies.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ppt.apps.registry import AppModel, Param, register
from ppt.apps.stepsampling import AppResult, positive
from ppt.errors import ConfigError
from ppt.hardware.tasklist import MemAccess, Tasklist
from ppt.mpi.surface.environment import balanced_factors

WORD_B = 8
#: Bytes of one photon in a message: position, direction, energy, initial energy, distance to census,
#: cell and group (ten 8-byte fields; Branson's Photon class holds about these).
PARTICLE_B = 80
#: Bytes of one cell's data read per crossing (opacities, temperature, tallies).
CELL_B = 64
#: Work per cell crossing: distance to the three bounding planes (3 divides), to the next collision
#: (a logarithm) and the implicit-capture deposit (an exponential), about 40 flops besides
#: (a logarithm or exponential counted as 20 flops).
CROSSING_FLOPS = 40 + 2 * 20
CROSSING_DIVIDES = 3
#: Work per particle event (absorption, census, leaving) and per emitted particle (position, direction,
#: energy from 5 random numbers).
EVENT_FLOPS = 20
EMISSION_FLOPS = 50
RANDOM_INT_OPS = 10
#: Work per cell of the end-of-step temperature update.
CELL_UPDATE_FLOPS = 20
#: Doubles of the end-of-step tally allreduce (emitted, absorbed, escaped and census energy).
TALLY_DOUBLES = 4
#: Face order: -x, +x, -y, +y, -z, +z.
FACES = 6
#: Parallel modes: the mesh split over ranks with particle passing, or the whole mesh on every rank.
MODES = ("decomposed", "replicated")
#: Allreduces per step in replicated mode: source energy, the two per-cell tallies, the energy tallies.
REPLICATED_ALLREDUCES = 4


@dataclass(frozen=True)
class IMCSim:
    """IMC on ``ranks`` ranks: ``nx x ny x nz`` cells, ``photons`` emitted per step over ``steps`` steps,
    messages of at most ``batch`` particles; ``mfp`` (mean free path to absorption) and
    ``census_length`` (distance to the end of the step) in cell widths; the source region is the first
    ``source_fraction`` of the mesh along x, emitting ``source_ratio`` times more per cell.
    ``mode`` is ``decomposed`` (particle passing) or ``replicated`` (whole mesh on every rank)."""

    ranks: int
    nx: int = 64
    ny: int = 64
    nz: int = 64
    photons: int = 1_000_000
    steps: int = 5
    batch: int = 1000
    mfp: float = 4.0
    census_length: float = 20.0
    source_fraction: float = 0.25
    source_ratio: float = 10.0
    threads: int = 1
    mode: str = "decomposed"

    def __post_init__(self):
        if self.mode not in MODES:
            raise ConfigError(f"imc parameter mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        for name in ("ranks", "nx", "ny", "nz", "photons", "steps", "batch", "threads"):
            positive(name, getattr(self, name), "imc")
        for name in ("mfp", "census_length", "source_ratio"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ConfigError(f"imc parameter {name} must be a number > 0, got {value!r}")
        if not 0 <= self.source_fraction <= 1:
            raise ConfigError(f"imc parameter source_fraction must lie in [0, 1], got {self.source_fraction!r}")
        for axis, (cells, procs) in enumerate(zip((self.nx, self.ny, self.nz), self.grid)):
            if cells % procs:
                raise ConfigError(f"{self.ranks} ranks split the mesh {procs} ways along {'xyz'[axis]}, which "
                                  f"does not divide its {cells} cells; choose a rank count whose factors divide "
                                  f"{self.nx}x{self.ny}x{self.nz}")

    @property
    def replicated(self) -> bool:
        """Whether every rank holds the whole mesh (no particle passing)."""
        return self.mode == "replicated"

    @property
    def cells(self) -> int:
        """Cells of the whole mesh."""
        return self.nx * self.ny * self.nz

    @property
    def grid(self) -> list[int]:
        """Process grid (x, y, z), largest factor along x; [1, 1, 1] when replicated (a rank's
        domain is the whole mesh)."""
        return [1, 1, 1] if self.replicated else balanced_factors(self.ranks, 3)

    @property
    def local(self) -> tuple[int, int, int]:
        """Cells of a rank's sub-domain along x, y, z."""
        return tuple(cells // procs for cells, procs in zip((self.nx, self.ny, self.nz), self.grid))

    def coords(self, rank: int) -> tuple[int, int, int]:
        """Grid coordinates (x, y, z) of ``rank`` (row-major, z fastest, as cart_create)."""
        px, py, pz = self.grid
        return rank // (py * pz), rank // pz % py, rank % pz

    def emitted(self, rank: int) -> int:
        """Particles ``rank`` emits per step: its share of the emission weight, rounded (replicated:
        an even share of ``photons``; the shares sum to ``photons`` exactly)."""
        if self.replicated:
            share, extra = divmod(self.photons, self.ranks)
            return share + (rank < extra)
        lx = self.local[0]
        x0 = self.coords(rank)[0] * lx
        edge = self.source_fraction * self.nx
        hot = min(max(edge - x0, 0.0), lx)                       # source columns in this sub-domain
        weight = (hot * self.source_ratio + lx - hot) * self.local[1] * self.local[2]
        total = (edge * self.source_ratio + self.nx - edge) * self.ny * self.nz
        return int(round(self.photons * weight / total))

    def outcomes(self) -> np.ndarray:
        """Probabilities of a particle segment's end: leaving across each of the 6 faces, absorption,
        census (they sum to 1; see module doc)."""
        lx, ly, lz = self.local
        volume = lx * ly * lz
        areas = np.array([ly * lz, ly * lz, lx * lz, lx * lz, lx * ly, lx * ly], dtype=float)
        length = 1.0 / (1.0 / self.mfp + 1.0 / self.census_length)
        escape = 1.0 / (1.0 + 4.0 * volume / areas.sum() / length)
        stay = 1.0 - escape
        return np.concatenate([escape * areas / areas.sum(),
                               [stay * length / self.mfp, stay * length / self.census_length]])

    def crossings(self) -> float:
        """Mean cell crossings of a particle segment: ``lambda (1 - P_esc)``."""
        length = 1.0 / (1.0 / self.mfp + 1.0 / self.census_length)
        return length * (1.0 - self.outcomes()[:FACES].sum())

    def transport_tasklist(self, particles: int, in_hand: int) -> Tasklist:
        """Transporting ``particles`` segments with ``in_hand`` particles held (their records streamed)."""
        lx, ly, lz = self.local
        crossings = particles * self.crossings()
        mesh_B = lx * ly * lz * CELL_B
        return Tasklist(int_ops=crossings * RANDOM_INT_OPS, float_ops=crossings * CROSSING_FLOPS
                        + particles * EVENT_FLOPS, divides=crossings * CROSSING_DIVIDES,
                        accesses=(MemAccess(crossings, CELL_B, reuse_profile=((mesh_B, 1.0),)),
                                  MemAccess(2 * particles, PARTICLE_B,
                                            reuse_profile=((max(in_hand, 1) * PARTICLE_B + mesh_B, 1.0),))))

    def emission_tasklist(self, particles: int) -> Tasklist:
        """Creating ``particles`` photons (5 random numbers each) and storing their records."""
        return Tasklist(int_ops=particles * 5 * RANDOM_INT_OPS, float_ops=particles * EMISSION_FLOPS,
                        accesses=(MemAccess(particles, PARTICLE_B,
                                            reuse_profile=((particles * PARTICLE_B, 1.0),)),))

    def update_tasklist(self) -> Tasklist:
        """The end-of-step temperature update of a rank's cells."""
        cells = self.local[0] * self.local[1] * self.local[2]
        return Tasklist(float_ops=cells * CELL_UPDATE_FLOPS,
                        accesses=(MemAccess(cells, CELL_B, reuse_profile=((cells * CELL_B, 1.0),)),))

    def run(self, machine, progress=None, seed: int = 0, ranks_per_node: int | None = None) -> AppResult:
        """Run on ``machine`` (a :class:`~ppt.machine.Machine`); ``seed`` seeds every rank's generator."""
        from ppt.mpi import MPIJob
        job = MPIJob.on_machine(machine, self.ranks, ranks_per_node, seed=seed, threads_per_rank=self.threads)
        result = job.run(imc_replicated_main if self.replicated else imc_main, self, seed, progress=progress)
        per_rank = result.per_rank
        logs = result.returns
        rounds = [max(log[s]["rounds"] for log in logs) for s in range(self.steps)]
        passed = sum(log[s]["sent"] for log in logs for s in range(self.steps))
        emitted = sum(log[s]["emitted"] for log in logs for s in range(self.steps))
        extra = {"grid": self.grid, "rounds_per_step": rounds, "particles_passed": passed,
                 "photons_emitted": emitted, "photons_per_s": emitted / result.predicted_s,
                 "fom_photons_per_s": self.photons / result.predicted_s,
                 "emitted_per_rank_max": max(self.emitted(r) for r in range(self.ranks)),
                 "emitted_per_rank_mean": emitted / self.steps / self.ranks}
        return AppResult("imc", self.ranks, self.threads, result.predicted_s,
                         sum(r["compute_s"] for r in per_rank) / len(per_rank),
                         sum(r["comm_s"] for r in per_rank) / len(per_rank),
                         {"step": {"steps": self.steps, "step_s": result.predicted_s / self.steps}}, False, extra,
                         result)


def imc_main(mpi, sim: IMCSim, seed: int) -> list[dict]:
    """Rank program; returns per step its particle accounting: emitted, census_in, absorbed, escaped,
    census_out, sent (particles passed to neighbours), rounds and messages sent."""
    world = mpi.COMM_WORLD
    cart = world.cart_create(sim.grid)
    neighbours = []
    for axis in range(3):
        neighbours.extend(cart.cart_shift(axis, 1))              # -axis, +axis
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, mpi.rank])))
    probabilities = sim.outcomes()
    emitted = sim.emitted(mpi.rank)
    update = sim.update_tasklist()
    census = 0
    log = []
    for _ in range(sim.steps):
        entry = {"emitted": emitted, "census_in": census, "absorbed": 0, "escaped": 0, "census_out": 0,
                 "sent": 0, "rounds": 0, "messages": 0}
        mpi.compute(sim.emission_tasklist(emitted))
        in_hand = emitted + census
        while True:
            entry["rounds"] += 1
            ends = rng.multinomial(in_hand, probabilities)
            mpi.compute(sim.transport_tasklist(in_hand, in_hand))
            entry["absorbed"] += int(ends[FACES])
            entry["census_out"] += int(ends[FACES + 1])
            sends = []
            for face, peer in enumerate(neighbours):
                leaving = int(ends[face])
                if peer < 0:
                    entry["escaped"] += leaving
                    continue
                entry["sent"] += leaving
                first = min(leaving, sim.batch)
                sends.append(cart.isend(leaving, peer, face, nbytes=max(first * PARTICLE_B, WORD_B)))
                for rest in range(first, leaving, sim.batch):
                    sends.append(cart.isend(None, peer, face, nbytes=min(sim.batch, leaving - rest) * PARTICLE_B))
            entry["messages"] += len(sends)
            in_hand = 0
            for face, peer in enumerate(neighbours):
                if peer < 0:
                    continue
                incoming = face ^ 1                              # the neighbour sent across its opposite face
                arriving = cart.recv(peer, incoming)
                for _ in range(sim.batch, arriving, sim.batch):
                    cart.recv(peer, incoming)
                in_hand += arriving
            mpi.waitall(sends)
            if cart.allreduce(in_hand, op=mpi.SUM, nbytes=WORD_B) == 0:
                break
        census = entry["census_out"]
        cart.allreduce(None, op=mpi.SUM, nbytes=TALLY_DOUBLES * WORD_B)
        mpi.compute(update)
        log.append(entry)
    return log


def imc_replicated_main(mpi, sim: IMCSim, seed: int) -> list[dict]:
    """Rank program of replicated mode (module doc); returns per step the same accounting as
    :func:`imc_main` (one round, nothing sent)."""
    world = mpi.COMM_WORLD
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, mpi.rank])))
    probabilities = sim.outcomes()
    emitted = sim.emitted(mpi.rank)
    update = sim.update_tasklist()
    tally_B = sim.cells * WORD_B
    census = 0
    log = []
    for _ in range(sim.steps):
        world.allreduce(None, op=mpi.SUM, nbytes=WORD_B)                 # total source energy
        mpi.compute(sim.emission_tasklist(emitted))
        in_hand = emitted + census
        ends = rng.multinomial(in_hand, probabilities)
        mpi.compute(sim.transport_tasklist(in_hand, in_hand))
        census = int(ends[FACES + 1])
        log.append({"emitted": emitted, "census_in": in_hand - emitted, "absorbed": int(ends[FACES]),
                    "escaped": int(ends[:FACES].sum()), "census_out": census, "sent": 0, "rounds": 1,
                    "messages": 0})
        world.allreduce(None, op=mpi.SUM, nbytes=tally_B)                # absorbed energy per cell
        world.allreduce(None, op=mpi.SUM, nbytes=tally_B)                # track-length energy per cell
        mpi.compute(update)
        world.allreduce(None, op=mpi.SUM, nbytes=TALLY_DOUBLES * WORD_B)
    return log


PARAMS = {
    "nx": Param(64, "mesh cells along x"),
    "ny": Param(64, "mesh cells along y"),
    "nz": Param(64, "mesh cells along z"),
    "photons": Param(1_000_000, "particles emitted per time step (all ranks)"),
    "steps": Param(5, "time steps"),
    "batch": Param(1000, "particles per message at most (buffer size)"),
    "mfp": Param(4.0, "mean free path to absorption, cell widths"),
    "census_length": Param(20.0, "distance a particle flies in a time step (c dt), cell widths"),
    "source_fraction": Param(0.25, "share of the mesh along x that is the hot source region"),
    "source_ratio": Param(10.0, "emission per cell in the source region over the rest"),
    "threads": Param(1, "cores per rank (threads splitting a rank's particles)"),
    "mode": Param("decomposed", "decomposed (mesh split, particle passing) or replicated (whole mesh on "
                                "every rank, particles split, end-of-step reductions only)"),
}


def build(ranks: int, params: dict) -> IMCSim:
    """An :class:`IMCSim` on ``ranks`` ranks from the registry's parameters."""
    return IMCSim(ranks, **params)


register(AppModel("imc", "implicit Monte Carlo photon transport in the style of Branson",
                  PARAMS, build, "LANL Branson proxy app (github.com/lanl/branson), particle-passing and "
                  "replicated modes"))

"""SNAPSim: a stylized SNAP (discrete-ordinates transport) on the simulated MPI.

The model follows the control flow of lanl/SNAP (``translv.f90`` ->
``outer.f90`` -> ``inner.f90`` -> ``sweep.f90`` -> ``octsweep.f90`` ->
``dim3_sweep.f90``) with the classic KBA sweep (``multiswp=0``, ``swp_typ=0``):

    for each time step:
        for each outer iteration:
            outer source (cross-group scattering, all groups)
            for each inner iteration:
                inner source (all groups)
                for each corner (jd, kd) in SNAP's corner_sch order:      # an octant pair
                    for each group g:
                        for iop in 1..2*nc:                                # x direction -, then +
                            recv the y face from the upwind y neighbour (if any)
                            recv the z face from the upwind z neighbour (if any)
                            wait for the previous chunk's sends
                            compute the chunk (dim3_sweep tasklist)
                            isend the y and z faces to the downwind neighbours (if any)
                allreduce MAX over ng doubles (inner convergence, ``glmax``)
            allreduce MAX of one double (outer convergence)

Octants and groups pipeline the way SNAP's do: there is no synchronisation
between chunks, groups, x directions or corners, so a rank starts the next
chunk as soon as its upstream faces arrive and the wavefronts of successive
groups and octants follow each other through the process grid.

Ranks form a 2-D Cartesian communicator over y-z: ``cart_create([npez, npey])``
(row-major, so y is the fast coordinate as in SNAP, where
``yproc = mod(iproc, npey)``).  ``jd = 1`` sweeps towards -y: faces arrive from
the +y neighbour and leave to the -y neighbour (``thrd_comm.f90``
``sweep_recv_bdry``/``sweep_send_bdry``).  A y face holds
``nang x ichunk x nz_local`` doubles, a z face ``nang x ichunk x ny_local``.

Angles: SNAP's input ``nang`` is the number of angles *per octant*
(``sn.f90``: "nang - number of discrete ordinates per octant"; a 3-D run has
``8 * nang`` directions).  :class:`SNAPSim` takes SNAP's ``nang``; the
strong-scaling studies (:mod:`ppt.apps.scaling`) quote total angles.

Not modelled: SNAP's newer concurrent-corner sweep (``multiswp=1``), OpenMP
threads, the per-time-step cross-section expansion and ``dinv`` set-up, and
the outer-iteration convergence test's flux copy.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ppt.apps.registry import AppModel, Param, register
from ppt.apps.snap_counts import (WORD_B, chunk_count, inner_source_tasklist, outer_source_tasklist,
                                  sweep_tasklist)
from ppt.errors import ConfigError

#: SNAP's corner orders (setup.f90, corner_sch): by (jd, kd); the first when npey <= npez.
CORNERS_Y_FIRST = ((1, 1), (2, 1), (2, 2), (1, 2))
CORNERS_Z_FIRST = ((1, 1), (1, 2), (2, 2), (2, 1))
#: Tag spacing per group (SNAP: mtag = g*g_off + 2*nc*(jd-1 + 2*(kd-1)) + iop).
CORNERS = 4


@dataclass(frozen=True)
class SNAPSim:
    """SNAPSim of a SNAP problem: global mesh ``nx x ny x nz`` cells over ``npey x npez`` ranks,
    ``ichunk`` x cells per chunk, ``nang`` angles per octant, ``ng`` groups, ``nmom``
    scattering order, ``nsteps`` time steps of ``outers`` outer x ``inners`` inner iterations
    (fixed counts: no convergence test decides); ``threads`` cores per rank (SNAP's OpenMP
    threads work on different groups at once, so each rank's work splits evenly over them)."""

    nx: int
    ny: int
    nz: int
    npey: int
    npez: int
    ichunk: int
    nang: int
    ng: int
    nsteps: int = 1
    outers: int = 1
    inners: int = 1
    nmom: int = 1
    threads: int = 1

    def __post_init__(self):
        for name in ("nx", "ny", "nz", "npey", "npez", "ichunk", "nang", "ng", "nsteps", "outers", "inners",
                     "nmom", "threads"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"SNAP input {name} must be a positive integer, got {value!r}")
        if self.threads > self.ng:
            raise ConfigError(f"{self.threads} threads per rank exceed the {self.ng} groups they share out")
        if self.nmom > 4:
            raise ConfigError(f"SNAP input nmom must be 1 to 4 (SNAP's limit), got {self.nmom}")
        if self.ny % self.npey:
            raise ConfigError(f"npey={self.npey} does not divide ny={self.ny}; choose npey among the divisors of ny")
        if self.nz % self.npez:
            raise ConfigError(f"npez={self.npez} does not divide nz={self.nz}; choose npez among the divisors of nz")

    @property
    def ranks(self) -> int:
        return self.npey * self.npez

    @property
    def ny_local(self) -> int:
        return self.ny // self.npey

    @property
    def nz_local(self) -> int:
        return self.nz // self.npez

    @property
    def nc(self) -> int:
        """x-chunks per direction."""
        return chunk_count(self.nx, self.ichunk)

    @property
    def corners(self) -> tuple:
        return CORNERS_Y_FIRST if self.npey <= self.npez else CORNERS_Z_FIRST

    @property
    def sweeps(self) -> int:
        """Inner iterations (full sweeps) in the run."""
        return self.nsteps * self.outers * self.inners

    def y_face_B(self) -> int:
        """Bytes of a face sent along y: nang x ichunk x nz_local doubles."""
        return self.nang * self.ichunk * self.nz_local * WORD_B

    def z_face_B(self) -> int:
        """Bytes of a face sent along z: nang x ichunk x ny_local doubles."""
        return self.nang * self.ichunk * self.ny_local * WORD_B

    def sends_per_rank(self, y: int, z: int) -> int:
        """Closed-form sweep messages sent by the rank at (y, z): per sweep, per group and
        per chunk (2 nc per corner) one message to each downwind neighbour that exists;
        over the 4 corners the -y neighbour is downwind twice and the +y neighbour twice
        (likewise z)."""
        downwind = 2 * ((y > 0) + (y < self.npey - 1) + (z > 0) + (z < self.npez - 1))
        return self.sweeps * self.ng * 2 * self.nc * downwind

    def sweep_traffic(self):
        """``(source rank, destination rank, bytes, messages)`` of every rank's sweep messages to each
        neighbour (the per-iteration allreduces are left out): each existing neighbour is downwind in 2 of
        the 4 corners, for every sweep, group and chunk.  Rank = z * npey + y (row-major Cartesian grid)."""
        per_neighbour = self.sweeps * self.ng * 2 * self.nc * 2
        for z in range(self.npez):
            for y in range(self.npey):
                rank = z * self.npey + y
                for dy, dz, nbytes in ((-1, 0, self.y_face_B()), (1, 0, self.y_face_B()),
                                       (0, -1, self.z_face_B()), (0, 1, self.z_face_B())):
                    if 0 <= y + dy < self.npey and 0 <= z + dz < self.npez:
                        yield rank, rank + dz * self.npey + dy, nbytes, per_neighbour

    def run(self, machine, ranks_per_node: int | None = None, record: bool = False, seed: int = 0,
            progress=None) -> "SNAPResult":
        """Run on ``machine`` (a :class:`~ppt.machine.Machine`), one rank per core by default
        (``ranks_per_node`` = the node's cores); ``record`` keeps every rank's chunk log."""
        from ppt.mpi import MPIJob
        per_node = min(ranks_per_node or max(1, machine.cores_per_node // self.threads), self.ranks)
        job = MPIJob.on_machine(machine, self.ranks, per_node, seed=seed, threads_per_rank=self.threads).run(
            snap_main, self, record, progress=progress)
        ranks = job.per_rank
        return SNAPResult(self, job.predicted_s, sum(r["compute_s"] for r in ranks) / len(ranks),
                          sum(r["comm_s"] for r in ranks) / len(ranks), sum(r["messages_sent"] for r in ranks),
                          job)


def snap_main(mpi, inp: "SNAPSim", record: bool = False):
    """Rank program.  With ``record``, returns this rank's chunk log
    ``[(corner, group, iop, start_s, end_s), ...]`` (corner = SNAP's jd, kd pair index)."""
    world = mpi.COMM_WORLD
    cart = world.cart_create([inp.npez, inp.npey])
    if cart is None:
        return None
    z, y = cart.coords
    z_lo, z_hi = cart.cart_shift(0, 1)
    y_lo, y_hi = cart.cart_shift(1, 1)
    ny, nz, nc = inp.ny_local, inp.nz_local, inp.nc
    work = {cells: sweep_tasklist(inp.nang, inp.ichunk, ny, nz, inp.ng, inp.nx, inp.nmom, cells)
            for cells in {inp.ichunk, inp.nx - (nc - 1) * inp.ichunk}}
    chunk_s: dict[int, float] = {}
    outer_work = outer_source_tasklist(inp.nx, ny, nz, inp.ng, inp.nmom)
    inner_work = inner_source_tasklist(inp.nx, ny, nz, inp.ng, inp.nmom)
    y_face, z_face = inp.y_face_B(), inp.z_face_B()
    log = [] if record else None
    for _ in range(inp.nsteps):
        for _ in range(inp.outers):
            mpi.compute(outer_work)
            for _ in range(inp.inners):
                mpi.compute(inner_work)
                sends = []
                for corner, (jd, kd) in enumerate(inp.corners):
                    y_up, y_down = (y_hi, y_lo) if jd == 1 else (y_lo, y_hi)
                    z_up, z_down = (z_hi, z_lo) if kd == 1 else (z_lo, z_hi)
                    for g in range(inp.ng):
                        for iop in range(2 * nc):
                            tag = (g * CORNERS + corner) * 2 * nc + iop
                            if y_up >= 0:
                                cart.recv(y_up, tag)
                            if z_up >= 0:
                                cart.recv(z_up, tag)
                            if sends:
                                mpi.waitall(sends)
                            ich = nc - 1 - iop if iop < nc else iop - nc
                            cells = min(inp.ichunk, inp.nx - ich * inp.ichunk)
                            start = mpi.wtime()
                            if cells in chunk_s:
                                mpi.compute(chunk_s[cells])
                            else:
                                chunk_s[cells] = mpi.compute(work[cells])
                            if record:
                                log.append((corner, g, iop, start, mpi.wtime()))
                            sends = []
                            if y_down >= 0:
                                sends.append(cart.isend(None, y_down, tag, nbytes=y_face))
                            if z_down >= 0:
                                sends.append(cart.isend(None, z_down, tag, nbytes=z_face))
                mpi.waitall(sends)
                cart.allreduce(None, op=mpi.MAX, nbytes=inp.ng * WORD_B)
            cart.allreduce(None, op=mpi.MAX, nbytes=WORD_B)
    return log


@dataclass
class SNAPResult:
    """One SNAPSim run.  ``predicted_s``: simulated run time; ``compute_s`` / ``comm_s``: the
    mean over ranks of time in compute and inside MPI calls; ``messages``: point-to-point
    messages sent (all ranks, collectives included); ``job``: the full
    :class:`~ppt.mpi.JobResult` (its ``returns`` hold the chunk logs of a recorded run)."""

    sim: SNAPSim
    predicted_s: float
    compute_s: float
    comm_s: float
    messages: int
    job: object

    def as_json(self) -> dict:
        return {"cores": self.sim.ranks * self.sim.threads, "ranks": self.sim.ranks,
                "threads": self.sim.threads, "npey": self.sim.npey, "npez": self.sim.npez,
                "predicted_s": self.predicted_s, "compute_s": self.compute_s, "comm_s": self.comm_s,
                "messages": self.messages}


#: Octants of a 3-D angular quadrature: SNAP's nang counts angles per octant.
OCTANTS = 8


def decompose(cores: int, ny: int, nz: int) -> tuple[int, int]:
    """The most square ``(npey, npez)`` with npey * npez = cores, npey | ny and npez | nz."""
    if cores < 1:
        raise ConfigError(f"core count must be positive, got {cores}")
    options = [(p, cores // p) for p in range(1, cores + 1)
               if cores % p == 0 and ny % p == 0 and nz % (cores // p) == 0]
    if not options:
        raise ConfigError(f"{cores} cores cannot be split into npey x npez with npey dividing ny={ny} and npez "
                          f"dividing nz={nz} (at most {ny * nz} ranks); choose another core count")
    return min(options, key=lambda d: (abs(math.log(d[0] / d[1])), d[0]))


def problem_sim(p: dict, cores: int, iterations: int = 1, npey: int | None = None,
                npez: int | None = None) -> SNAPSim:
    """SNAPSim of the problem ``p`` (the keys of :data:`ppt.apps.scaling.STUDIES`) on ``cores`` cores, the
    y-z grid the most square that SNAP's input rule allows, hybrid (threads per rank) beyond one rank per
    y-z cell column."""
    if p["angles"] % OCTANTS:
        raise ConfigError(f"angles={p['angles']} is not a multiple of the {OCTANTS} octants; give total angles "
                          f"such as 192 (24 per octant)")
    if (npey is None) != (npez is None):
        raise ConfigError("give both --npey and --npez, or neither (then the grid is chosen automatically)")
    threads = 1
    if npey is None:
        threads, (npey, npez) = hybrid_decompose(cores, p["ny"], p["nz"], p["ng"])
    elif cores % (npey * npez) or cores // (npey * npez) > p["ng"]:
        raise ConfigError(f"npey x npez = {npey} x {npez} = {npey * npez} ranks does not fit {cores} cores")
    else:
        threads = cores // (npey * npez)
    return SNAPSim(nx=p["nx"], ny=p["ny"], nz=p["nz"], npey=npey, npez=npez, ichunk=p["ichunk"],
                   nang=p["angles"] // OCTANTS, ng=p["ng"], inners=iterations, threads=threads)


def hybrid_decompose(cores: int, ny: int, nz: int, ng: int) -> tuple[int, tuple[int, int]]:
    """``(threads, (npey, npez))`` with the fewest threads per rank (at most ``ng``) that decompose."""
    for threads in range(1, ng + 1):
        if cores % threads == 0:
            try:
                return threads, decompose(cores // threads, ny, nz)
            except ConfigError:
                continue
    return 1, decompose(cores, ny, nz)         # raises the one-line error for pure MPI


def _build(ranks: int, params: dict) -> SNAPSim:
    """SNAPSim of the registered problem on ``ranks`` cores (hybrid as :func:`problem_sim` decides)."""
    return problem_sim(params, ranks, params["iterations"])


register(AppModel(
    "snap", "SNAP discrete-ordinates transport, KBA sweeps (default: study 1)",
    {"nx": Param(32, "global cells along x"), "ny": Param(32, "global cells along y (split over npey)"),
     "nz": Param(48, "global cells along z (split over npez)"),
     "angles": Param(192, "discrete directions in all 8 octants (SNAP's nang x 8)"),
     "ng": Param(8, "energy groups"), "ichunk": Param(8, "x cells per sweep chunk"),
     "iterations": Param(1, "inner iterations simulated (one time step, one outer)")},
    _build, source="lanl/SNAP (https://github.com/lanl/SNAP); ppt.apps.scaling study 1"))

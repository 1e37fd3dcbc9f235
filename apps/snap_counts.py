"""Operation counts of SNAP's sweep and source loops, turned into tasklists.

The counts come from reading the loops of the public SNAP proxy application
(lanl/SNAP, https://github.com/lanl/SNAP, ``src/``), configured as the
strong-scaling studies run it: 3-D (``ndimen=3``, ``cmom = nmom**2``),
time-dependent (``timedep=1``, so ``vdelt /= 0``), negative-flux fixup on
(``fixup=1``, SNAP's default) with no negative flux found (the fixup loop makes
one pass and exits), ``angcpy=1`` (``update_ptr`` is false during iterations,
so ``ptr_out`` is not written), ``src_opt /= 3`` (no MMS source).

Sweep: ``dim3_sweep.f90``, one call = one x-chunk of one octant of one group
----------------------------------------------------------------------------
Every statement in the ``k_loop / j_loop / ic_loop`` body is array syntax over
the ``nang`` angles of the octant, so it counts as one vector operation of
width ``nang`` (``VECTOR``); ``cmom = nmom**2``.  Per cell:

====  ==========================================================  ===============
ref   statement (dim3_sweep)                                       vector ops
====  ==========================================================  ===============
A     ``psi = psi + ec(:,l)*qtot(l,...)``, l = 2..cmom              2 (cmom-1)
B     ``pc = (psi + psii*mu*hi + psij*eta*hj + psik*xi*hk``
      ``      + ptr_in*vdelt) * dinv``                             8 mul + 4 add = 12
C     ``hv = one``; ``sum_hv = SUM(hv)`` (hv is nang x 4)          4
D     fixup pass: ``fxhv(:,1:4) = two*pc - (psii|psij|psik|ptr_in)``  8
      ``WHERE (fxhv < zero) hv = zero``; ``SUM(hv)``               4 + 4
E     ``psii|psij|psik = fxhv(:,n)*hv(:,n)``                        3
F     leakages ``SUM(wmu*psii)``, ``SUM(weta*psij)``, ``SUM(wxi*psik)``  6
G     ``psi = w*psi``                                               1
H     ``flux0 = flux0 + SUM(psi)``                                  1
I     ``fluxm(l) = fluxm(l) + SUM(ec(:,l+1)*psi)``, l = 1..cmom-1   2 (cmom-1)
====  ==========================================================  ===============

Total ``43 + 4 (cmom-1)`` vector operations per cell (= flops per
cell-angle); no divides on this path (``pc / den`` runs only when a negative
flux needs fixing).  Scalar floating-point operations per cell: the three
leakage updates ``flk = flk + ist*SUM(...)`` (6), the flux moment sums into
``flux0``/``fluxm`` (cmom) and the ``sum_hv == SUM(hv)`` exit test (1):
``7 + cmom``.  Integer operations per cell: 18 (the global index
``i = (ich-1)*ichunk+ic``, the ``i > nx``, ``i == nx``/``i == 1``,
``j == jlo``, ``k == klo``, ``j == jhi``, ``k == khi``, ``fixup``, ``vdelt``
and ``ndimen`` tests, the three leakage index offsets and the loop counters).

Memory accesses per cell, as ``nang``-element vector loads/stores of
``8 nang`` bytes (each statement's array operands; loop temporaries included):
A ``1 + 3 (cmom-1)``, B 10, C 8, D 24, E 11, F 6, G 3, H 1, I ``2 (cmom-1)``;
total ``64 + 5 (cmom-1)``.  Five of them are each cell's first touch of a
large array and get their own reuse distance (see :func:`sweep_tasklist`):
``psii(:,j,k)`` (reused by the next x cell), ``psij(:,ic,k)`` (next j row,
``ichunk`` cells later), ``psik(:,ic,j)`` (next k plane, ``ichunk*ny`` cells
later), ``dinv(:,ic,j,k,ich,g)`` (the other x direction of the same corner and
group, or the previous corner) and ``ptr_in(:,i,j,k,oct,g)`` (the previous
inner iteration).  The rest touch the angle constants (mu, eta, xi, w, wmu,
weta, wxi, ec) and loop temporaries (psi, pc, hv, fxhv) and stay in L1.
Cell-indexed arrays walked along the ``ic`` loop (contiguous in x) are counted
per x row of the chunk: ``qtot(1:cmom,...)`` 1 load, ``flux0`` and ``fluxm``
a load and a store each, ``flkx/flky/flkz`` a load and a store each.
Per chunk, the face copies ``psij = jb_in`` (``ichunk*nz`` angle vectors),
``psik = kb_in`` (``ichunk*ny``) and ``jb_out = psij``, ``kb_out = psik``
load and store every face vector once.

Sources: ``outer.f90`` and ``inner.f90``
-----------------------------------------
``outer_src_calc`` (the cross-group source, once per outer iteration): for
every group ``g``, x row ``(j,k)`` and every other group ``gp /= g``:
``expxs_reg`` gathers ``cs0(i) = xs(map(i))`` (an index load and a gather per
cell), ``qo0 = qo0 + cs0*flux0(:,j,k,gp)`` (2 ops per cell); with ``nmom > 1``
``expxs_slgg`` fills ``csm`` (``cmom-1`` stores per cell) and
``qom = qom + csm*fluxm`` adds ``2 (cmom-1)`` ops per cell.  Vector operations
run over the x row (width ``nx``); ``ng (ng-1)`` group pairs per row.

``inner_src_calc`` (every inner iteration): per group and cell
``q(1) = qo0 + f0*sxs`` (2 ops) and ``2 (cmom-1)`` for the moments;
``inner_df_calc``: the ``WHERE (ABS(flux0pi) < tolr)`` test, then
``df = ABS(flux0/flux0pi - df)`` and ``MAXVAL``: one divide and 4 ops per cell.

All sizes in bytes, counts per call; ``ny``/``nz`` are a rank's local sizes.
"""
from __future__ import annotations

import math

from ppt.hardware.tasklist import MemAccess, Tasklist

WORD_B = 8
#: Integer (index/branch) operations per cell of dim3_sweep.
SWEEP_INT_OPS_PER_CELL = 18
#: First touches of large arrays per cell: psii, psij, psik, dinv, ptr_in.
SWEEP_FIRST_TOUCHES = 5
#: Angle vectors every cell touches besides ec(:,1:cmom): mu, eta, xi, w, wmu, weta, wxi, psi, pc, hv(4), fxhv(4).
LOCAL_VECTORS = 17
#: Loads/stores of cell-indexed arrays per x row of a chunk: qtot, flux0, fluxm, flkx/y/z.
ROW_ACCESSES = {"qtot": 1, "flux0": 2, "fluxm": 2, "leakage": 6}


def cmom_of(nmom: int) -> int:
    """Computational moments of a 3-D problem (sn.f90: ``cmom = nmom**2``)."""
    return nmom * nmom


def sweep_cell_counts(nmom: int = 1) -> dict:
    """Per-cell counts of dim3_sweep (module doc): vector ops (width nang), scalar flops,
    integer ops and nang-vector memory accesses."""
    extra = cmom_of(nmom) - 1
    return {"vector_ops": 43 + 4 * extra, "float_ops": 7 + cmom_of(nmom), "int_ops": SWEEP_INT_OPS_PER_CELL,
            "vector_accesses": 64 + 5 * extra}


def sweep_tasklist(nang: int, ichunk: int, ny: int, nz: int, ng: int, nx: int | None = None,
                   nmom: int = 1, cells_x: int | None = None) -> Tasklist:
    """Work of one dim3_sweep call: an x-chunk of ``cells_x`` (default ``ichunk``) x ``ny`` x ``nz``
    local cells, ``nang`` angles, of a rank holding ``nx`` (default ``ichunk``) x ny x nz cells
    and ``ng`` groups.

    Reuse distances (bytes touched between two uses of the same data, for the
    node model's cache levels) follow the loop order: ``fresh_B`` is what one
    cell streams (its dinv and ptr_in angle vectors and cell-indexed scalars).
    """
    nx = ichunk if nx is None else nx
    cells_x = ichunk if cells_x is None else cells_x
    cmom = cmom_of(nmom)
    counts = sweep_cell_counts(nmom)
    cells = cells_x * ny * nz
    rows = ny * nz
    vec_B = WORD_B * nang
    fresh_B = 2 * vec_B + WORD_B * (2 * cmom + 3)
    local_B = (LOCAL_VECTORS + cmom) * vec_B + fresh_B                       # distinct data per cell
    group_B = nx * ny * nz * fresh_B                                           # one x direction of one group
    repeat = counts["vector_accesses"] - SWEEP_FIRST_TOUCHES
    profile_far = ((group_B, 0.5), (4 * ng * group_B, 0.5))                    # dinv/qtot/flux: see doc
    accesses = [
        MemAccess(cells * repeat, vec_B, reuse_profile=((local_B, 1.0),)),
        MemAccess(cells, vec_B, reuse_profile=((local_B, 1.0 - 1.0 / cells_x),
                                               (cells * fresh_B, 1.0 / cells_x))),          # psii
        MemAccess(cells, vec_B, reuse_profile=((cells_x * fresh_B, 1.0),)),                  # psij
        MemAccess(cells, vec_B, reuse_profile=((cells_x * ny * fresh_B, 1.0),)),             # psik
        MemAccess(cells, vec_B, reuse_profile=profile_far),                                  # dinv
        MemAccess(cells, vec_B, reuse_profile=((8 * ng * group_B, 1.0),)),                   # ptr_in
        MemAccess(rows * ROW_ACCESSES["qtot"], WORD_B * cmom * cells_x, reuse_profile=profile_far),
        MemAccess(rows * (ROW_ACCESSES["flux0"] + ROW_ACCESSES["leakage"]), WORD_B * cells_x,
                  reuse_profile=profile_far),
        MemAccess(2 * cells_x * (ny + nz), vec_B, reuse_profile=((cells_x * (ny + nz) * vec_B, 1.0),)),  # faces
    ]
    if cmom > 1:
        accesses.append(MemAccess(rows * ROW_ACCESSES["fluxm"], WORD_B * (cmom - 1) * cells_x,
                                  reuse_profile=profile_far))
    return Tasklist(int_ops=cells * counts["int_ops"], float_ops=cells * counts["float_ops"],
                    vector_ops=((cells * counts["vector_ops"], nang),), accesses=tuple(accesses))


def outer_source_tasklist(nx: int, ny: int, nz: int, ng: int, nmom: int = 1) -> Tasklist:
    """Work of ``outer_src`` on one rank (all ``ng`` groups, nx x ny x nz local cells)."""
    extra = cmom_of(nmom) - 1
    rows = ny * nz * ng * (ng - 1)
    flux_B = nx * ny * nz * ng * WORD_B * (1 + extra)          # all groups' flux moments
    ops = 2 + (2 * extra if nmom > 1 else 0)
    accesses = [
        MemAccess(rows, nx * 4, reuse_profile=((nx * (4 + 2 * WORD_B), 1.0),)),          # map row
        MemAccess(rows * nx, WORD_B, reuse_profile=((nx * WORD_B, 1.0),)),                # xs(map(i)) gather
        MemAccess(rows * (1 + extra), nx * WORD_B, reuse_profile=((flux_B, 1.0),)),       # flux0/fluxm(gp)
        MemAccess(rows * 2 * (1 + extra), nx * WORD_B, reuse_profile=((nx * WORD_B * 4, 1.0),)),  # qo0/qom
    ]
    if nmom > 1:
        accesses.append(MemAccess(rows * extra, nx * WORD_B, reuse_profile=((nx * WORD_B * 4, 1.0),)))  # csm
    return Tasklist(int_ops=rows * (nx + 4), vector_ops=((rows * ops, nx),), accesses=tuple(accesses))


def inner_source_tasklist(nx: int, ny: int, nz: int, ng: int, nmom: int = 1) -> Tasklist:
    """Work of ``inner_src`` plus ``inner_df_calc`` on one rank (all groups, local cells)."""
    extra = cmom_of(nmom) - 1
    cells = nx * ny * nz
    rows = ny * nz * ng
    group_B = cells * WORD_B * (4 + 3 * extra)
    accesses = [
        MemAccess(rows * (4 + 4 * extra), nx * WORD_B, reuse_profile=((group_B, 1.0),)),   # qo0, f0, sxs, q
        MemAccess(rows * 3, nx * WORD_B, reuse_profile=((group_B, 1.0),)),                 # flux0pi, flux0, df
    ]
    return Tasklist(int_ops=rows * 4, divides=cells * ng,
                    vector_ops=((rows * (2 + 2 * extra + 4), nx),), accesses=tuple(accesses))


def chunk_count(nx: int, ichunk: int) -> int:
    """x-chunks per sweep direction (``nc`` in SNAP)."""
    return math.ceil(nx / ichunk)

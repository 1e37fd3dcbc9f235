"""A halo-exchange stencil on a Cartesian communicator (a model of explicit finite-difference codes).

Each rank owns ``cells`` (nx, ny, nz) of a global grid split over a 3-D
process grid (``mpi.COMM_WORLD`` factored by :func:`dims_create`).  Every
iteration exchanges one face of ``halo_B_per_cell`` bytes per cell with each
of the six neighbours (nonblocking, PROC_NULL at non-periodic edges),
computes a 7-point stencil tasklist per cell, and every ``reduce_every``
iterations allreduces a residual (8 bytes).
"""
from __future__ import annotations

import math

from ppt.mpi.surface.environment import balanced_factors

#: Per-cell work of a 7-point stencil: 7 loads, 1 store, 6 adds and 2 multiplies.
STENCIL_FLOPS = 8
STENCIL_ACCESSES = 8
WORD_B = 8


def dims_create(size: int, ndims: int = 3) -> list[int]:
    """A near-cubic factorisation of ``size`` into ``ndims`` factors, largest first (like MPI_Dims_create)."""
    return balanced_factors(size, ndims)


def stencil_tasklist(cells: int, hit_rates=(0.9, 0.8, 0.7)):
    """Tasklist of one stencil sweep over ``cells`` cells."""
    return [("fALU", STENCIL_FLOPS * cells), ("MEM_ACCESS", STENCIL_ACCESSES * cells, WORD_B, list(hit_rates))]


def halo_main(mpi, cells=(32, 32, 32), iterations=10, periodic=False, halo_B_per_cell=WORD_B, reduce_every=1):
    """Rank program; returns the simulated seconds per iteration seen by this rank."""
    world = mpi.COMM_WORLD
    cart = world.cart_create(dims_create(world.size), [periodic] * 3)
    if cart is None:
        return None
    nx, ny, nz = cells
    faces = [ny * nz, ny * nz, nx * nz, nx * nz, nx * ny, nx * ny]
    work = stencil_tasklist(math.prod(cells))
    start = mpi.wtime()
    for step in range(iterations):
        reqs = []
        for axis in range(3):
            lower, upper = cart.cart_shift(axis, 1)
            for k, (peer, tag) in enumerate(((lower, 2 * axis), (upper, 2 * axis + 1))):
                nbytes = faces[2 * axis + k] * halo_B_per_cell
                reqs.append(cart.irecv(peer, tag ^ 1))
                reqs.append(cart.isend(None, peer, tag, nbytes=nbytes))
        mpi.waitall(reqs)
        mpi.compute(work)
        if reduce_every and (step + 1) % reduce_every == 0:
            cart.allreduce(0.0, nbytes=WORD_B)
    return (mpi.wtime() - start) / iterations


def main(mpi):
    """``ppt run`` entry: ``--script-args 'NX NY NZ ITERATIONS'`` (defaults 32 32 32 10)."""
    values = [int(a) for a in mpi.argv] or [32, 32, 32, 10]
    return halo_main(mpi, tuple(values[:3]), values[3] if len(values) > 3 else 10)

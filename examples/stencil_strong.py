"""Strong scaling of a 3-D stencil: one fixed global grid split over however many ranks the job has.

Each rank owns its share of an NX x NY x NZ grid (the process grid is
:func:`ppt.apps.halo.dims_create` of the rank count), exchanges faces with its
six neighbours and allreduces a residual every step, so compute shrinks with
the rank count while messages shrink more slowly and the allreduce grows.
``--script-args 'NX NY NZ STEPS'`` (default 128 128 128 2: a small problem, so a sweep up to 1024 ranks on three systems takes seconds of CPU per point).

    ppt scale examples/stencil_strong.py --ranks 16,64,256,1024 --system edison,hopper,mira
    ppt sweep run examples/stencil_strong.py --ranks 16,64,256,1024 --system edison,hopper,mira --out scale --plot scale.png
"""
from ppt.apps.halo import dims_create, halo_main


def main(mpi):
    nx, ny, nz, steps = [int(a) for a in mpi.argv] if mpi.argv else (128, 128, 128, 2)
    dims = dims_create(mpi.COMM_WORLD.size)
    cells = tuple(max(1, -(-n // d)) for n, d in zip((nx, ny, nz), dims))
    return halo_main(mpi, cells, steps)

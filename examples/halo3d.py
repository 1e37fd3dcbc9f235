"""A 3-D halo exchange: the skeleton of an explicit finite-difference code, as a PPT model.

What it teaches: a Cartesian communicator and its neighbours
(``cart_create``, ``cart_shift``), nonblocking point-to-point with sizes in
bytes and no payload (``irecv``, ``isend(None, ..., nbytes=...)``,
``mpi.waitall``), compute as a tasklist of operation counts that the node
model turns into seconds (``mpi.compute``), and one small reduction per step
(``allreduce``).

Every rank owns a block of NX x NY x NZ cells of a global grid that the ranks
split in three dimensions.  Each time step it

1. sends each of its six faces to the neighbour on that side and receives
   the neighbour's face into its ghost cells (one 8-byte value per cell),
2. updates every cell from its six neighbours (a 7-point stencil), and
3. sums a residual over all ranks (an 8-byte allreduce), as a solver checking
   convergence does.

Run it (``--script-args`` reach ``main`` as ``mpi.argv``)::

    ppt run examples/halo3d.py --system hopper --ranks 64 --network analytic
    ppt run examples/halo3d.py --system edison --ranks 96 --script-args '64 64 64 5'

``main`` returns the simulated seconds per time step seen by the rank.
"""

#: Bytes of one grid value (a double).
WORD_B = 8


def stencil_tasklist(cells: int) -> list:
    """The work of one 7-point stencil sweep over ``cells`` cells, as LANL PPT style tasklist entries.

    Each cell reads itself and six neighbours and writes one result (8 memory
    accesses of 8 bytes), and combines them with 6 adds and 2 multiplies
    (8 floating-point operations).  The stencil's neighbours were touched
    shortly before, so most accesses hit in cache: the hit rates say that 90 %
    of the accesses hit in L1, 80 % of the rest in L2 and 70 % of what still
    remains in L3; everything else goes to main memory.
    """
    return [
        ("fALU", 8 * cells),                               # 6 adds + 2 multiplies per cell
        ("iALU", 3 * cells),                               # index arithmetic
        ("MEM_ACCESS", 8 * cells, WORD_B, [0.9, 0.8, 0.7]),
    ]


def main(mpi):
    # -- arguments: cells per rank in x, y, z and the number of steps ----------------
    values = [int(a) for a in mpi.argv] or [32, 32, 32, 10]
    nx, ny, nz = values[:3]
    steps = values[3] if len(values) > 3 else 10

    # -- a 3-D grid of ranks --------------------------------------------------------
    world = mpi.COMM_WORLD
    dims = mpi.Compute_dims(world.size, 3)                # e.g. 64 ranks -> [4, 4, 4]
    cart = world.cart_create(dims, periods=[False, False, False])

    # The neighbours on either side of each axis.  At the edge of a non-periodic
    # grid the neighbour is PROC_NULL, and messages to or from it complete at once.
    neighbours = [cart.cart_shift(axis, 1) for axis in range(3)]     # [(lower, upper), ...]
    face_cells = [ny * nz, nx * nz, nx * ny]                         # cells of a face normal to x, y, z
    work = stencil_tasklist(nx * ny * nz)

    start = mpi.wtime()
    for step in range(steps):
        # 1. halo exchange: post all receives and sends, then wait for all twelve.
        #    Tags say which side a face travels to, so faces of one axis cannot mix.
        requests = []
        for axis, (lower, upper) in enumerate(neighbours):
            nbytes = face_cells[axis] * WORD_B
            requests.append(cart.irecv(source=lower, tag=2 * axis))          # lower's upper face
            requests.append(cart.irecv(source=upper, tag=2 * axis + 1))      # upper's lower face
            requests.append(cart.isend(None, dest=upper, tag=2 * axis, nbytes=nbytes))
            requests.append(cart.isend(None, dest=lower, tag=2 * axis + 1, nbytes=nbytes))
        mpi.waitall(requests)

        # 2. the stencil update: the node model turns the operation counts into seconds.
        mpi.compute(work)

        # 3. a global residual, as a convergence check does (one double; no payload needed).
        cart.allreduce(0.0, op=mpi.SUM, nbytes=WORD_B)
    return (mpi.wtime() - start) / steps

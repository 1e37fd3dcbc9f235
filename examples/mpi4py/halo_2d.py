"""2-D halo exchange on a periodic Cartesian grid of ranks with nonblocking messages.

Each rank owns an 8x8 tile of a global field plus a one-cell ghost frame.
``Create_cart`` (periodic both ways) and ``Shift`` find the four neighbours;
every step posts ``Irecv`` for four ghost edges, ``Isend`` of the four
boundary edges (columns are copied into contiguous buffers first) and
completes all eight requests with ``Request.Waitall``; then a 5-point
averaging stencil updates the tile.  After a few steps ``Reduce`` and
``Allreduce`` report the field's sum (conserved) and maximum.

Run it::

    mpiexec -n 4 python examples/mpi4py/halo_2d.py
    ppt exec examples/mpi4py/halo_2d.py -n 4 --system edison
"""
import numpy as np
from mpi4py import MPI

TILE, STEPS = 8, 10

world = MPI.COMM_WORLD
dims = MPI.Compute_dims(world.Get_size(), 2)
cart = world.Create_cart(dims, periods=[True, True], reorder=False)
rank = cart.Get_rank()
cx, cy = cart.Get_coords(rank)
(up, down), (left, right) = cart.Shift(0, 1), cart.Shift(1, 1)

# Global cell (i, j) starts with value i + 10 j, so every tile differs.
field = np.zeros((TILE + 2, TILE + 2))
i = np.arange(TILE)[:, None] + cx * TILE
j = np.arange(TILE)[None, :] + cy * TILE
field[1:-1, 1:-1] = i + 10.0 * j
print(f"tile at {[cx, cy]} of {dims}: neighbours up {up} down {down} left {left} right {right}")

for step in range(STEPS):
    recv = {name: np.empty(TILE) for name in ("top", "bottom", "west", "east")}
    send = {"top": field[1, 1:-1].copy(), "bottom": field[-2, 1:-1].copy(),
            "west": field[1:-1, 1].copy(), "east": field[1:-1, -2].copy()}
    requests = [
        cart.Irecv(recv["top"], source=up, tag=1), cart.Irecv(recv["bottom"], source=down, tag=0),
        cart.Irecv(recv["west"], source=left, tag=3), cart.Irecv(recv["east"], source=right, tag=2),
        cart.Isend(send["top"], dest=up, tag=0), cart.Isend(send["bottom"], dest=down, tag=1),
        cart.Isend(send["west"], dest=left, tag=2), cart.Isend(send["east"], dest=right, tag=3),
    ]
    MPI.Request.Waitall(requests)
    field[0, 1:-1], field[-1, 1:-1] = recv["top"], recv["bottom"]
    field[1:-1, 0], field[1:-1, -1] = recv["west"], recv["east"]
    inner = field[1:-1, 1:-1]
    field[1:-1, 1:-1] = 0.5 * inner + 0.125 * (field[:-2, 1:-1] + field[2:, 1:-1]
                                               + field[1:-1, :-2] + field[1:-1, 2:])

tile_sum = field[1:-1, 1:-1].sum()
total = np.zeros(1)
cart.Reduce(np.array([tile_sum]), total, op=MPI.SUM, root=0)
peak = cart.allreduce(field[1:-1, 1:-1].max(), op=MPI.MAX)
print(f"after {STEPS} steps: tile sum {tile_sum:.6f}, global max {peak:.6f}")
if rank == 0:
    n = cart.Get_size() * TILE * TILE
    expected = sum(a + 10.0 * b for a in range(dims[0] * TILE) for b in range(dims[1] * TILE))
    print(f"field sum {total[0]:.6f} over {n} cells (conserved: {abs(total[0] - expected) < 1e-6 * expected})")
cart.Free()

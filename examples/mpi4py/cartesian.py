"""Cartesian process topologies: a 2-D grid, its coordinates, neighbours and row/column sub-grids.

* ``MPI.Compute_dims`` picks a balanced 2-D grid for the number of ranks;
* ``Create_cart`` (periodic in x, not in y), ``Get_dim``, ``Get_topo``,
  ``Get_coords``, ``Get_cart_rank``, ``Get_topology() == MPI.CART``;
* ``Shift`` in both directions (``MPI.PROC_NULL`` off the non-periodic edge)
  and a ``Sendrecv`` to those neighbours, which does nothing for PROC_NULL;
* ``Sub`` into row and column communicators and a reduction along each.

Run it::

    mpiexec -n 6 python examples/mpi4py/cartesian.py
    ppt exec examples/mpi4py/cartesian.py -n 6 --system edison
"""
from mpi4py import MPI


def show(r):
    return "PROC_NULL" if r == MPI.PROC_NULL else str(r)


world = MPI.COMM_WORLD
size = world.Get_size()
dims = MPI.Compute_dims(size, 2)
cart = world.Create_cart(dims, periods=[True, False], reorder=False)
rank = cart.Get_rank()
coords = cart.Get_coords(rank)
print(f"grid {dims}: rank {rank} at {coords}, ndim {cart.Get_dim()},"
      f" is cart {cart.Get_topology() == MPI.CART}")
topo_dims, topo_periods, topo_coords = cart.Get_topo()
print(f"Get_topo: dims {list(topo_dims)} periods {[bool(p) for p in topo_periods]} coords {list(topo_coords)}")
print(f"Get_cart_rank of my coords: {cart.Get_cart_rank(coords)},"
      f" of (0, 0): {cart.Get_cart_rank([0, 0])}")

# Neighbours: x wraps around, y stops at the edges.
west, east = cart.Shift(0, 1)
south, north = cart.Shift(1, 1)
print(f"Shift x: from {show(west)} to {show(east)}; Shift y: from {show(south)} to {show(north)}")

# Pass my coordinates one step "up" in y; the bottom row receives nothing.
got = cart.sendrecv(coords, dest=north, source=south)
print(f"from below: {got}")

# Rows keep dimension 1 (vary y), columns keep dimension 0 (vary x).
rows = cart.Sub([False, True])
cols = cart.Sub([True, False])
print(f"Sub: row rank {rows.Get_rank()}/{rows.Get_size()} sum {rows.allreduce(rank)};"
      f" column rank {cols.Get_rank()}/{cols.Get_size()} sum {cols.allreduce(rank)}")

for c in (rows, cols, cart):
    c.Free()

"""Cartesian communicators (MPI_Cart_*): ranks in row-major order on a grid of ``dims``."""
from __future__ import annotations

import math

from ppt.mpi.surface.core.calls import mpi_call
from ppt.mpi.surface.communicators.comm import INT_B, Comm
from ppt.mpi.constants import CART, PROC_NULL


class Cartcomm(Comm):
    """A communicator with a Cartesian topology (row-major rank order)."""

    __slots__ = ("dims", "periods")

    def __init__(self, rank, members, index, comm_id, name, dims, periods):
        super().__init__(rank, members, index, comm_id, name)
        #: Ranks along each dimension, and 1 for each periodic one, 0 else (lists, as mpi4py gives them).
        self.dims = [int(d) for d in dims]
        self.periods = [int(bool(p)) for p in periods]

    def _topology(self) -> dict:
        return {"dims": self.dims, "periods": self.periods}

    @property
    def ndim(self) -> int:
        return len(self.dims)

    @property
    def topology(self) -> int:
        return CART

    is_topo = True

    @property
    def topo(self) -> tuple[list, list, list]:
        """``(dims, periods, coords)`` as lists (MPI_Cart_get)."""
        return list(self.dims), list(self.periods), list(self.coords)

    @mpi_call("MPI_Cart_sub")
    def sub(self, remain_dims):
        """The Cartesian communicators of the dimensions kept (``remain_dims[d]`` true): one per
        combination of the dropped dimensions' coordinates."""
        keep = [bool(k) for k in remain_dims]
        if len(keep) != len(self.dims):
            raise self._rank.error(f"remain_dims {list(remain_dims)} needs {len(self.dims)} entries")
        coords = self.coords
        color = key = 0
        for c, d, k in zip(coords, self.dims, keep):
            if k:
                key = key * d + c
            else:
                color = color * d + c
        entries = self._allgather((color, key, self._rank.next_ctx), 3 * INT_B, None, 3 * INT_B)
        comm_id = self._new_id(max(e[2] for e in entries))
        chosen = sorted((k, r) for r, (c, k, _) in enumerate(entries) if c == color)
        dims = [d for d, k in zip(self.dims, keep) if k]
        periods = [p for p, k in zip(self.periods, keep) if k]
        return self._make([self.members[r] for _, r in chosen], comm_id, "sub", Cartcomm, dims=dims,
                          periods=periods)

    @property
    def coords(self) -> "Coords":
        """This rank's coordinates: a list (as mpi4py's) that also equals the tuple cart_coords gives."""
        return Coords(self.cart_coords(self.rank))

    def cart_coords(self, rank: int) -> tuple:
        """Coordinates of ``rank``."""
        if not 0 <= rank < self.size:
            raise self._rank.error(f"rank {rank} is out of range for {self.label} of size {self.size}",
                                   "MPI_Cart_coords")
        coords = []
        for d in reversed(self.dims):
            rank, c = divmod(rank, d)
            coords.append(c)
        return tuple(reversed(coords))

    def cart_rank(self, coords) -> int:
        """Rank at ``coords`` (periodic dimensions wrap; others must be in range)."""
        if len(coords) != len(self.dims):
            raise self._rank.error(f"coordinates {tuple(coords)} need {len(self.dims)} entries", "MPI_Cart_rank")
        rank = 0
        for c, d, periodic in zip(coords, self.dims, self.periods):
            if periodic:
                c %= d
            elif not 0 <= c < d:
                raise self._rank.error(f"coordinate {c} is outside the non-periodic dimension of size {d}",
                                       "MPI_Cart_rank")
            rank = rank * d + c
        return rank

    def cart_shift(self, direction: int, disp: int = 1) -> tuple[int, int]:
        """``(source, dest)``: the ranks ``disp`` steps down/up along ``direction`` (PROC_NULL off a
        non-periodic edge)."""
        if not 0 <= direction < len(self.dims):
            raise self._rank.error(f"direction {direction} is not a dimension of {self.dims}", "MPI_Cart_shift")
        here = list(self.coords)

        def neighbour(step):
            coords = list(here)
            coords[direction] += step
            c, d = coords[direction], self.dims[direction]
            if not self.periods[direction] and not 0 <= c < d:
                return PROC_NULL
            return self.cart_rank(coords)

        return neighbour(-disp), neighbour(disp)

    @property
    def inedges(self) -> list:
        """The neighbours of the neighbourhood collectives: per dimension, one step down, then one step up."""
        return [peer for d in range(len(self.dims)) for peer in self.cart_shift(d)]

    outedges = inedges


class Coords(list):
    """Cartesian coordinates: mpi4py's list, equal to the tuple :meth:`Cartcomm.cart_coords` returns too."""

    __slots__ = ()

    def __eq__(self, other):
        return list.__eq__(self, list(other)) if isinstance(other, tuple) else list.__eq__(self, other)

    def __ne__(self, other):
        return not self == other

    __hash__ = None


def Get_coords(self, rank: int) -> list:
    """mpi4py's ``Cartcomm.Get_coords``: the coordinates of ``rank`` as a list."""
    return list(self.cart_coords(rank))


@mpi_call("MPI_Cart_create")
def cart_create(self, dims, periods=None, reorder: bool = False):
    """A Cartesian communicator over the first prod(dims) ranks (row-major); None on the others."""
    dims = [int(d) for d in dims]
    periods = [bool(p) for p in periods] if periods is not None else [False] * len(dims)
    if not dims or any(d < 1 for d in dims) or len(periods) != len(dims):
        raise self._rank.error(f"bad Cartesian shape dims={dims} periods={periods}: give positive "
                               "dims and one period flag per dim")
    cells = math.prod(dims)
    if cells > self.size:
        raise self._rank.error(f"Cartesian grid {dims} has {cells} cells, more than the "
                               f"{self.size} ranks of {self.label}")
    comm_id = self._new_id(self._agree())
    if self.rank >= cells:
        return None
    return self._make(list(self.members[:cells]), comm_id, "cart", Cartcomm, dims=dims,
                      periods=periods)


#: Comm's call that makes a Cartesian communicator, by its PEP 8 and its mpi4py name.
COMM = {"cart_create": cart_create, "Create_cart": cart_create}

"""Groups: ordered sets of processes (world ranks), and their algebra (MPI_Group_*)."""
from __future__ import annotations

from ppt.mpi.surface.core.calls import mpi_call
from ppt.mpi.constants import IDENT, PROC_NULL, SIMILAR, UNDEFINED, UNEQUAL
from ppt.mpi.surface.core.nulls import NullOwner
from ppt.mpi.unsupported import Refusing


class Group(metaclass=Refusing):
    """An ordered set of processes (world ranks); ``rank`` is the caller's rank in it or UNDEFINED."""

    __slots__ = ("_rank", "members", "index", "freed")

    def __init__(self, rank=None, members=()):
        """The group of world ranks ``members`` seen by ``rank``; without a rank, mpi4py's ``MPI.Group()``:
        a null group, equal to ``MPI.GROUP_NULL``."""
        self._rank = NullOwner("MPI.GROUP_NULL") if rank is None else rank
        self.members = tuple(members)
        self.index = {world: i for i, world in enumerate(self.members)}
        self.freed = rank is None

    def __repr__(self):
        return f"group of {len(self.members)}"

    def __bool__(self):
        """False for a null or freed group, as mpi4py's handles."""
        return not self.freed

    @property
    def size(self) -> int:
        return len(self.members)

    @property
    def rank(self) -> int:
        return self.index.get(self._rank.world_rank, UNDEFINED)

    def _check_ranks(self, ranks, call, unique=True) -> list[int]:
        ranks = [int(r) for r in ranks]
        for r in ranks:
            if not 0 <= r < self.size:
                raise self._rank.error(f"rank {r} is not in the {self} (0..{self.size - 1})", call)
        if unique and len(set(ranks)) != len(ranks):
            raise self._rank.error(f"ranks {ranks} repeat a rank", call)
        return ranks

    @mpi_call("MPI_Group_incl")
    def incl(self, ranks) -> "Group":
        """The group of the listed ranks, in that order."""
        return Group(self._rank, [self.members[r] for r in self._check_ranks(ranks, "MPI_Group_incl")])

    @mpi_call("MPI_Group_excl")
    def excl(self, ranks) -> "Group":
        """This group without the listed ranks (order kept)."""
        drop = set(self._check_ranks(ranks, "MPI_Group_excl"))
        return Group(self._rank, [w for i, w in enumerate(self.members) if i not in drop])

    @mpi_call("MPI_Group_range_incl")
    def range_incl(self, ranges) -> "Group":
        """The group of the ranks in ``ranges``, triples ``(first, last, stride)`` (last included)."""
        return self.incl(self._ranges(ranges))

    @mpi_call("MPI_Group_range_excl")
    def range_excl(self, ranges) -> "Group":
        return self.excl(self._ranges(ranges))

    def _ranges(self, ranges) -> list[int]:
        ranks = []
        for first, last, stride in ranges:
            if stride == 0:
                raise self._rank.error(f"range ({first}, {last}, {stride}) has stride 0")
            ranks.extend(range(first, last + (1 if stride > 0 else -1), stride))
        return ranks

    @mpi_call("MPI_Group_dup")
    def dup(self) -> "Group":
        return Group(self._rank, self.members)

    @mpi_call("MPI_Group_compare")
    def compare(self, other: "Group") -> int:
        """IDENT (same members, same order), SIMILAR (same members) or UNEQUAL."""
        if self.members == other.members:
            return IDENT
        return SIMILAR if set(self.members) == set(other.members) else UNEQUAL

    @staticmethod
    @mpi_call("MPI_Group_union")
    def union(group1: "Group", group2: "Group") -> "Group":
        """``group1``'s members, then those of ``group2`` not in it (mpi4py's ``Group.Union(g1, g2)``)."""
        return Group(group1._rank, list(group1.members) + [w for w in group2.members if w not in group1.index])

    @staticmethod
    @mpi_call("MPI_Group_intersection")
    def intersection(group1: "Group", group2: "Group") -> "Group":
        """``group1``'s members that are in ``group2``, in ``group1``'s order."""
        return Group(group1._rank, [w for w in group1.members if w in group2.index])

    @staticmethod
    @mpi_call("MPI_Group_difference")
    def difference(group1: "Group", group2: "Group") -> "Group":
        """``group1``'s members not in ``group2``, in ``group1``'s order."""
        return Group(group1._rank, [w for w in group1.members if w not in group2.index])

    @mpi_call("MPI_Group_translate_ranks")
    def translate_ranks(self, ranks=None, other: "Group" = None) -> list[int]:
        """Ranks in ``other`` of the listed ranks of this group (UNDEFINED where absent; all if None)."""
        ranks = list(range(self.size) if ranks is None else ranks)
        self._check_ranks([r for r in ranks if r != PROC_NULL], "MPI_Group_translate_ranks", unique=False)
        return [PROC_NULL if r == PROC_NULL else other.index.get(self.members[r], UNDEFINED) for r in ranks]

    @mpi_call("MPI_Group_free")
    def free(self) -> None:
        self.freed = True

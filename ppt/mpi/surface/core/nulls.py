"""Null handles a program makes itself: mpi4py's constructors without arguments (``MPI.Comm()``,
``MPI.Group()``, ``MPI.Request()``, ...) give objects of the class that equal its null handle
(``MPI.COMM_NULL`` ...), are false, and refuse MPI calls as MPICH refuses an invalid handle."""
from __future__ import annotations

from ppt.mpi.constants import UNDEFINED
from ppt.mpi.errors import MPIError


class NullOwner:
    """The ``_rank`` of a null handle: an MPI call on the handle fails in one line naming it."""

    __slots__ = ("handle",)

    #: No MPI call in progress, no CPU meter, and no rank in any communicator.
    call = meter = None
    world_rank = UNDEFINED

    def __init__(self, handle: str):
        self.handle = handle

    def error(self, message: str, call: str | None = None) -> MPIError:
        return MPIError(f"{call or 'MPI'}: invalid handle: {self.handle} is a null handle; make the object with "
                        f"an MPI call before using it")


class Null:
    """A null handle of mpi4py (``MPI.COMM_NULL`` ...): false, and equal to itself, to None (what PPT
    returns where MPI gives no communicator) and to a freed object of its ``kinds`` (class names), as a
    handle turns null when freed."""

    __slots__ = ("name", "kinds")

    def __init__(self, name: str, *kinds: str):
        self.name = name
        self.kinds = kinds

    def __eq__(self, other):
        return other is self or other is None or \
            type(other).__name__ in self.kinds and getattr(other, "freed", False) is True

    def __ne__(self, other):
        return not self == other

    __hash__ = object.__hash__

    def __bool__(self):
        return False

    def __repr__(self):
        return self.name


#: The null handles, by mpi4py name.
NULLS = {null.name: null for null in (
    Null("COMM_NULL", "Comm", "Cartcomm"), Null("GROUP_NULL", "Group"), Null("OP_NULL", "Op"),
    Null("DATATYPE_NULL", "Datatype"), Null("MESSAGE_NULL", "Message"), Null("INFO_NULL"),
    Null("ERRHANDLER_NULL"), Null("WIN_NULL", "Win"), Null("FILE_NULL"), Null("SESSION_NULL"))}

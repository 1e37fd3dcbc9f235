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

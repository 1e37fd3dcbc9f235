"""The error of a wrong MPI call (one line naming the rank and the call)."""
from ppt.errors import PPTError


class MPIError(PPTError):
    """A simulated rank called MPI wrongly: bad rank, size, freed communicator, collective mismatch."""


def rank_error(rank, message: str, call: str | None = None) -> MPIError:
    """The error of ``rank`` (its ``world_rank``) in ``call`` (default: the call it is in, ``rank.call``):
    ``rank 3 in MPI_Send: message``.  A rank class takes it as its ``error`` method."""
    return MPIError(f"rank {rank.world_rank} in {call or rank.call or 'MPI'}: {message}")


class AbortCalled(MPIError):
    """A rank called ``MPI_Abort``: every rank stops and the run ends with ``errorcode`` as its exit status."""

    def __init__(self, rank: int, errorcode: int):
        super().__init__(f"rank {rank} called MPI_Abort with error code {errorcode}; every rank was stopped")
        self.rank = rank
        self.errorcode = errorcode


class UnsupportedCall(MPIError, AttributeError):
    """A part of mpi4py the simulated MPI does not model, named in one line.

    It is an AttributeError too, so a program that tests for a feature
    (``hasattr(comm, "Create_intercomm")``, ``getattr(MPI, "Win", None)``)
    learns it is absent and takes its other path, as on an MPI without it,
    while a program that uses the feature stops with the one-line error.
    """

"""The error of a wrong MPI call (one line naming the rank and the call)."""
from ppt.errors import PPTError


class MPIError(PPTError):
    """A simulated rank called MPI wrongly: bad rank, size, freed communicator, collective mismatch."""

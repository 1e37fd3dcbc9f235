"""The error of a wrong MPI call (one line naming the rank and the call)."""
from ppt.errors import PPTError


class MPIError(PPTError):
    """A simulated rank called MPI wrongly: bad rank, size, freed communicator, collective mismatch."""


def rank_error(rank, message: str, call: str | None = None) -> MPIError:
    """The error of ``rank`` (its ``world_rank``) in ``call`` (default: the call it is in, ``rank.call``):
    ``rank 3 in MPI_Send: message``.  A rank class takes it as its ``error`` method."""
    return MPIError(f"rank {rank.world_rank} in {call or rank.call or 'MPI'}: {message}")


class AbortCalled(MPIError):
    """A rank called ``MPI_Abort``: every rank stops and the run ends with ``errorcode`` as its exit status.

    ``comm``: the communicator's name in MPICH's report (``MPI_COMM_WORLD``, ``MPI_COMM_SELF``, or another
    label), ``comm_id`` its context id there, ``comm_rank`` the caller's rank in it."""

    def __init__(self, rank: int, errorcode: int, comm: str = "MPI_COMM_WORLD", comm_id: int = 0,
                 comm_rank: int | None = None):
        super().__init__(f"rank {rank} called MPI_Abort with error code {errorcode}; every rank was stopped")
        self.rank = rank
        self.errorcode = errorcode
        self.comm = comm
        self.comm_id = comm_id
        self.comm_rank = rank if comm_rank is None else comm_rank

    def mpich_message(self) -> str:
        """The line MPICH prints on stderr for this abort."""
        return (f"Abort({self.errorcode}) on node {self.rank} (rank {self.comm_rank} in comm {self.comm_id}): "
                f"application called MPI_Abort({self.comm}, {self.errorcode}) - process {self.comm_rank}")


class AfterFinalize(MPIError):
    """A rank called MPI (``call``) after MPI_Finalize: under MPICH its process prints
    :meth:`mpich_message` and exits with status 1."""

    def __init__(self, rank: int, call: str):
        super().__init__(f"rank {rank} in {call}: called after MPI_Finalize")
        self.rank = rank
        self.call = call

    def mpich_message(self) -> str:
        return (f"Attempting to use an MPI routine (internal_{self.call.removeprefix('MPI_')}) before initializing "
                "or after finalizing MPICH")


class OtherThread(MPIError):
    """A thread other than the rank's own called MPI: the simulated ranks are greenlets of one thread, so
    every MPI call of a rank must come from the thread that runs it (MPI_THREAD_FUNNELED)."""

    def __init__(self, rank: int, call: str):
        import threading
        super().__init__(f"rank {rank} in {call}: called from thread {threading.current_thread().name!r}, not the "
                         f"rank's own; the simulated MPI runs each rank on one thread (MPI_THREAD_FUNNELED): "
                         f"make MPI calls from the thread that runs the rank")
        self.rank = rank


class UnsupportedCall(MPIError, AttributeError):
    """A part of mpi4py the simulated MPI does not model, named in one line.

    It is an AttributeError too, so a program that tests for a feature
    (``hasattr(comm, "Create_intercomm")``, ``getattr(MPI, "Win", None)``)
    learns it is absent and takes its other path, as on an MPI without it,
    while a program that uses the feature stops with the one-line error.
    """

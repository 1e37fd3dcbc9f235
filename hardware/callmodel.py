"""What a preset's model predicts for each MPI call ``ppt calibrate`` times on the host.

The calibration job times mpi4py buffer calls of 8 bytes on 2 ranks
(:mod:`ppt.hardware.pingpong_worker`); :func:`modelled_s` runs the same calls,
with the same arguments, on a 2-rank job of the fitted preset, so that
what a real call costs beyond the model's messages can become the preset's
``mpi.call_overhead_s`` (:func:`ppt.hardware.hostcalls.with_call_costs`).
"""
from __future__ import annotations

import numpy as np

#: Calls of each kind the model is timed over (its times do not vary from call to call).
REPEATS = 10


def _calls(mpi) -> dict:
    """The timed calls by MPI call, as the calibration job makes them (8 bytes, a double per rank)."""
    comm = mpi.COMM_WORLD
    peer = 1 - comm.Get_rank()
    root = comm.Get_rank() == 0
    small, other, pair, pairs = np.ones(1), np.empty(1), np.ones(2), np.empty(2)
    return {
        "MPI_Sendrecv": lambda: comm.Sendrecv(small, peer, 12, other, peer, 12),
        "MPI_Allreduce": lambda: comm.Allreduce(small, other),
        "MPI_Bcast": lambda: comm.Bcast(small, 0),
        "MPI_Reduce": lambda: comm.Reduce(small, other, root=0),
        "MPI_Gather": lambda: comm.Gather(small, pairs if root else None, 0),
        "MPI_Scatter": lambda: comm.Scatter(pair if root else None, other, 0),
        "MPI_Allgather": lambda: comm.Allgather(small, pairs),
        "MPI_Alltoall": lambda: comm.Alltoall(pair, pairs),
        "MPI_Alltoallv": lambda: comm.Alltoallv([pair, [1, 1], [0, 1], mpi.DOUBLE], [pairs, [1, 1], [0, 1], mpi.DOUBLE]),
        "MPI_Barrier": comm.Barrier,
    }


def modelled_s(job) -> dict:
    """Simulated seconds per call of each timed MPI call on ``job`` (an :class:`~ppt.mpi.job.MPIJob` of 2 ranks
    with no call overheads of its own: ``mpi.call_overhead_s`` is what this measures against)."""
    times = {}

    def program(mpi):
        for name, call in _calls(mpi).items():
            mpi.COMM_WORLD.Barrier()
            start = mpi.Wtime()
            for _ in range(REPEATS):
                call()
            if mpi.COMM_WORLD.Get_rank() == 0:
                times[name] = (mpi.Wtime() - start) / REPEATS

    job.run(program)
    return times

"""What a preset's model predicts for each MPI call ``ppt calibrate`` times on the host.

The calibration job times mpi4py buffer calls of 8 bytes on 2 ranks
(:mod:`ppt.hardware.pingpong_worker`); :func:`modelled_s` runs the same calls,
with the same arguments, on a 2-rank job of the fitted preset, so that
what a real call costs beyond the model's messages can become the preset's
``mpi.call_overhead_s`` (:func:`ppt.hardware.hostcalls.with_call_costs`).
"""
from __future__ import annotations

from ppt.hardware.hostcalls import CALL_OF_KIND
from ppt.hardware.pingpong_worker import per_call

#: Calls of each kind the model is timed over (its times do not vary from call to call).
REPEATS = 10


def modelled_s(job) -> dict:
    """Simulated seconds per call of each timed MPI call on ``job`` (an :class:`~ppt.mpi.job.MPIJob` of 2 ranks
    with no call overheads of its own: ``mpi.call_overhead_s`` is what this measures against)."""
    times = {}

    def program(mpi):
        calls = per_call(mpi.COMM_WORLD, mpi)
        for kind, name in CALL_OF_KIND.items():
            mpi.COMM_WORLD.Barrier()
            start = mpi.Wtime()
            for _ in range(REPEATS):
                calls[kind]()
            if mpi.COMM_WORLD.Get_rank() == 0:
                times[name] = (mpi.Wtime() - start) / REPEATS

    job.run(program)
    return times

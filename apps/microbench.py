"""MPI microbenchmarks on a simulated machine: ping-pong latency/bandwidth, allreduce and alltoall timing.

Each benchmark is a rank program run by an :class:`~ppt.mpi.MPIJob`; the
drivers return plain rows (sizes in bytes, times in seconds, bandwidth in
bytes/s) for tables and plots.
"""
from __future__ import annotations

from ppt.mpi import MPIJob


def pingpong_program(mpi, sizes, repetitions):
    """Ranks 0 and 1 bounce each size ``repetitions`` times; rank 0 returns one-way times (s)."""
    comm = mpi.COMM_WORLD
    one_way = []
    for nbytes in sizes:
        start = mpi.wtime()
        for _ in range(repetitions):
            if comm.rank == 0:
                comm.send(None, 1, nbytes=nbytes)
                comm.recv(1)
            elif comm.rank == 1:
                comm.recv(0)
                comm.send(None, 0, nbytes=nbytes)
        one_way.append((mpi.wtime() - start) / (2 * repetitions))
    return one_way


def collective_program(mpi, collective, sizes, repetitions):
    """Time ``repetitions`` calls of ``collective`` per size; every rank returns the mean seconds per call."""
    comm = mpi.COMM_WORLD
    call = getattr(comm, collective)
    times = []
    for nbytes in sizes:
        comm.barrier()
        start = mpi.wtime()
        for _ in range(repetitions):
            call(None, nbytes=nbytes)
        times.append((mpi.wtime() - start) / repetitions)
    return times


def pingpong(machine, sizes, repetitions: int = 4, ranks_per_node: int = 1, nodes=None) -> list[dict]:
    """One-way time (half the round trip) and bandwidth between ranks 0 and 1.

    ``nodes``: (source node, destination node); default nodes 0 and 1 (or
    both ranks on node 0 when ``ranks_per_node`` is 2).
    """
    mapping = list(nodes) if nodes is not None else "linear"
    job = MPIJob.on_machine(machine, 2, max(ranks_per_node, 2 if nodes and nodes[0] == nodes[1] else 1), mapping)
    times = job.run(pingpong_program, list(sizes), repetitions).returns[0]
    return [{"bytes": n, "latency_s": t, "bandwidth_Bps": n / t if t else 0.0} for n, t in zip(sizes, times)]


def collective_timing(machine, collective: str, num_ranks: int, sizes, repetitions: int = 2,
                      ranks_per_node: int | None = None, algorithms: dict | None = None) -> list[dict]:
    """Mean time per call of ``collective`` ("allreduce", "alltoall", ...) on ``num_ranks`` ranks.

    ``sizes``: bytes per rank (allreduce) or per block (alltoall); the slowest rank's time is reported.
    """
    job = MPIJob.on_machine(machine, num_ranks, ranks_per_node, algorithms=algorithms)
    result = job.run(collective_program, collective, list(sizes), repetitions)
    slowest = [max(times) for times in zip(*result.returns)]
    return [{"bytes": n, "ranks": num_ranks, "time_s": t} for n, t in zip(sizes, slowest)]

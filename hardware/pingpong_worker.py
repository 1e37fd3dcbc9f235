"""Real MPI ping-pong between ranks 0 and 1, run by ``ppt calibrate`` as ``mpiexec -n 2 python THIS SIZES ROUNDS BATCH_S [MAX_S]``.

A standalone script (numpy and mpi4py only, no ``ppt`` import, so the ranks start fast).
Sizes are visited in rounds: every round times each size once (a few warm-up
round trips, then enough timed round trips to last about ``BATCH_S`` seconds),
so a burst of load from other processes on the host spoils one round of every
size rather than every round of one size; no new round starts after
``MAX_S`` seconds (at least 3 rounds run).  Rank 0 prints one JSON object:
``{"sizes": [...], "one_way_s": [[round 0, round 1, ...] per size], "round_trips": [...]}``,
each time being half the mean round trip of its round, in seconds.

Messages use mpi4py's buffer interface (``Send``/``Recv`` of a numpy byte
array): what is timed is the MPI library plus mpi4py's call overhead, with no
pickling.
"""
import json
import sys

import numpy as np
from mpi4py import MPI


def main(argv):
    sizes = [int(s) for s in argv[1].split(",")]
    rounds = int(argv[2])
    budget_s = float(argv[3])
    max_s = float(argv[4]) if len(argv) > 4 else float("inf")
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    if comm.Get_size() != 2:
        raise SystemExit("pingpong_worker: run with exactly 2 ranks")
    peer = 1 - rank
    buffers = {n: np.ones(max(n, 1), dtype=np.uint8) for n in sizes}

    def bounce(n, trips):
        buf = [buffers[n], n, MPI.BYTE]
        for _ in range(trips):
            if rank == 0:
                comm.Send(buf, peer, 7)
                comm.Recv(buf, peer, 7)
            else:
                comm.Recv(buf, peer, 7)
                comm.Send(buf, peer, 7)

    # Round trips per size: from a short probe, so each timed batch lasts about budget_s (rank 0 decides).
    trips = []
    for n in sizes:
        bounce(n, 3)
        comm.Barrier()
        start = MPI.Wtime()
        bounce(n, 5)
        probe_s = (MPI.Wtime() - start) / 5
        count = comm.bcast(max(3, min(5000, int(budget_s / max(probe_s, 1e-7)))) if rank == 0 else None, root=0)
        trips.append(count)

    one_way = [[] for _ in sizes]
    started = MPI.Wtime()
    for done in range(rounds):
        # stop after MAX_S seconds (rank 0 decides), so a busy host does not stretch the run; 3 rounds at least
        if comm.bcast(done >= 3 and MPI.Wtime() - started > max_s if rank == 0 else None, root=0):
            break
        for i, n in enumerate(sizes):
            bounce(n, 2)
            comm.Barrier()
            start = MPI.Wtime()
            bounce(n, trips[i])
            one_way[i].append((MPI.Wtime() - start) / (2 * trips[i]))
    if rank == 0:
        json.dump({"sizes": sizes, "one_way_s": one_way, "round_trips": trips,
                   "mpi_library": MPI.Get_library_version().strip().splitlines()[0]}, sys.stdout)
        sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv)

"""Ping-pong latency between two ranks: half the round-trip time per message size, timed with MPI.Wtime.

Rank 0 sends a buffer of each size to rank 1 and waits for it to come back,
``iterations`` times after a few untimed warm-up rounds, and prints the
one-way latency in microseconds (two decimals) for each size.  Both ranks
must be two MPI processes: on any other count the program exits with a
message and status 1.  Its timings depend on the machine, so the tests
compare only the sizes it prints (and its exit status on the wrong count).

Arguments: the largest size in bytes (default 4 MiB; sizes are 0 and the
powers of two up to it) and the timed round trips per size (default 100).

Run it::

    mpiexec -n 2 python examples/mpi4py/pingpong_latency.py 65536 20
    ppt exec examples/mpi4py/pingpong_latency.py 65536 20 -n 2 --system edison --ranks-per-node 1 --compute none
"""
import sys

import numpy as np
from mpi4py import MPI

WARMUP = 5

comm = MPI.COMM_WORLD
if comm.size != 2:
    sys.exit(f"pingpong_latency.py needs exactly 2 MPI processes, not {comm.size}")
largest = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 22
iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 100
sizes = [0] + [1 << k for k in range(largest.bit_length()) if 1 << k <= largest]
peer = 1 - comm.rank

if comm.rank == 0:
    print("# one-way latency, two ranks")
    print(f"# {'bytes':<10}{'latency_us':>12}")
for size in sizes:
    buf = np.zeros(size, dtype="B")
    comm.Barrier()
    for round_trip in range(WARMUP + iterations):
        if round_trip == WARMUP:
            start = MPI.Wtime()
        if comm.rank == 0:
            comm.Send(buf, dest=peer)
            comm.Recv(buf, source=peer)
        else:
            comm.Recv(buf, source=peer)
            comm.Send(buf, dest=peer)
    if comm.rank == 0:
        latency_us = (MPI.Wtime() - start) / (2 * iterations) * 1e6
        print(f"{size:<12}{latency_us:>12.2f}")

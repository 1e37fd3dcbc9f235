"""Real MPI between ranks 0 and 1, run by ``ppt calibrate`` as ``mpiexec -n 2 python THIS SIZES ROUNDS BATCH_S [MAX_S]``.

A standalone script (numpy and mpi4py only, no ``ppt`` import, so the ranks start fast).  mpi4py is imported
by :func:`main` alone: :func:`per_call` also gives the calibration's model (:mod:`ppt.hardware.callmodel`) the
same calls on a simulated MPI.
It times two things, each as a list of timed operations:

* a ping-pong per size in SIZES (bytes): mpi4py's buffer interface
  (``Send``/``Recv`` of a numpy byte array), so what is timed is the MPI
  library plus mpi4py's call overhead, with no pickling; one-way time = half
  a round trip;
* the call kinds of :data:`CALLS`, one 8-byte message or a Python float
  each: the uppercase buffer calls and their lowercase twins that pickle
  (``send``/``recv``, ``isend``/``irecv`` + ``wait``, ``allreduce``, ``bcast``,
  ``reduce``, ``gather``, ``scatter``, ``allgather``, ``alltoall``),
  so the difference is what mpi4py's object layer costs per call, and
  ``Alltoallv`` with its counts and displacements; the
  point-to-point kinds are timed per one-way message (half a round trip),
  the others per call.

Operations are visited in rounds: every round times each operation once (a
few warm-up repetitions, then enough timed ones to last about ``BATCH_S``
seconds), so a burst of load from other processes on the host spoils one
round of every operation rather than every round of one; no new round starts
after ``MAX_S`` seconds (at least 3 rounds run).  Rank 0 prints one JSON object:
``{"sizes": [...], "one_way_s": [[round 0, round 1, ...] per size], "round_trips": [...],
"calls": {kind: [round 0, ...]}, "call_repeats": {kind: n}}``, in seconds.
"""
import json
import sys

import numpy as np

#: Call kinds timed besides the ping-pong: name -> True if timed per one-way message (half a round trip).
CALLS = {"Send/Recv": True, "send/recv": True, "Isend/Irecv+Wait": True, "isend/irecv+wait": True,
         "Sendrecv": False, "Allreduce": False, "allreduce": False, "Bcast": False, "bcast": False,
         "Reduce": False, "reduce": False, "Gather": False, "gather": False, "Scatter": False, "scatter": False,
         "Allgather": False, "allgather": False, "Alltoall": False, "alltoall": False, "Alltoallv": False,
         "Barrier": False}


def per_call(comm, MPI) -> dict:
    """The kinds of :data:`CALLS` timed per call: kind -> a function making one call of ``comm`` (8 bytes or a
    Python float; a double per rank where a call takes one from each), ``MPI`` the module that gives ``comm``."""
    peer = 1 - comm.Get_rank()
    root = comm.Get_rank() == 0
    value = 0.5
    small = np.ones(1, dtype=np.float64)
    other = np.empty(1, dtype=np.float64)
    pair = np.ones(2, dtype=np.float64)                 # one float per rank
    pairs = np.empty(2, dtype=np.float64)
    return {
        "Sendrecv": lambda: comm.Sendrecv(small, peer, 12, other, peer, 12),
        "Allreduce": lambda: comm.Allreduce(small, other),
        "allreduce": lambda: comm.allreduce(value),
        "Bcast": lambda: comm.Bcast(small, 0),
        "bcast": lambda: comm.bcast(value, 0),
        "Reduce": lambda: comm.Reduce(small, other, root=0),
        "reduce": lambda: comm.reduce(value, root=0),
        "Gather": lambda: comm.Gather(small, pairs if root else None, 0),
        "gather": lambda: comm.gather(value, 0),
        "Scatter": lambda: comm.Scatter(pair if root else None, other, 0),
        "scatter": lambda: comm.scatter([value, value] if root else None, 0),
        "Allgather": lambda: comm.Allgather(small, pairs),
        "allgather": lambda: comm.allgather(value),
        "Alltoall": lambda: comm.Alltoall(pair, pairs),
        "alltoall": lambda: comm.alltoall([value, value]),
        "Alltoallv": lambda: comm.Alltoallv([pair, [1, 1], [0, 1], MPI.DOUBLE], [pairs, [1, 1], [0, 1], MPI.DOUBLE]),
        "Barrier": comm.Barrier,
    }


def operations(comm, sizes, MPI):
    """``(label, halve, run(repeats))`` per timed operation: the ping-pong sizes, then :data:`CALLS`."""
    rank = comm.Get_rank()
    peer = 1 - rank
    value = 0.5
    small = np.ones(1, dtype=np.float64)
    other = np.empty(1, dtype=np.float64)

    def pingpong(n):
        buf = [np.ones(max(n, 1), dtype=np.uint8), n, MPI.BYTE]

        def run(repeats):
            for _ in range(repeats):
                if rank == 0:
                    comm.Send(buf, peer, 7)
                    comm.Recv(buf, peer, 7)
                else:
                    comm.Recv(buf, peer, 7)
                    comm.Send(buf, peer, 7)
        return run

    def round_trips(send, recv):
        def run(repeats):
            for _ in range(repeats):
                if rank == 0:
                    send()
                    recv()
                else:
                    recv()
                    send()
        return run

    def repeated(call):
        def run(repeats):
            for _ in range(repeats):
                call()
        return run

    calls = {
        "Send/Recv": round_trips(lambda: comm.Send(small, peer, 8), lambda: comm.Recv(other, peer, 8)),
        "send/recv": round_trips(lambda: comm.send(value, peer, 9), lambda: comm.recv(source=peer, tag=9)),
        "Isend/Irecv+Wait": round_trips(lambda: comm.Isend(small, peer, 10).Wait(),
                                        lambda: comm.Irecv(other, peer, 10).Wait()),
        "isend/irecv+wait": round_trips(lambda: comm.isend(value, peer, 11).wait(),
                                        lambda: comm.irecv(source=peer, tag=11).wait()),
        **{kind: repeated(call) for kind, call in per_call(comm, MPI).items()},
    }
    return [(n, True, pingpong(n)) for n in sizes] + [(name, CALLS[name], calls[name]) for name in CALLS]


def main(argv):
    from mpi4py import MPI
    sizes = [int(s) for s in argv[1].split(",")]
    rounds = int(argv[2])
    budget_s = float(argv[3])
    max_s = float(argv[4]) if len(argv) > 4 else float("inf")
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    if comm.Get_size() != 2:
        raise SystemExit("pingpong_worker: run with exactly 2 ranks")
    ops = operations(comm, sizes, MPI)

    # Repetitions per operation: from a short probe, so each timed batch lasts about budget_s (rank 0 decides).
    repeats = []
    for _, _, run in ops:
        run(3)
        comm.Barrier()
        start = MPI.Wtime()
        run(5)
        probe_s = (MPI.Wtime() - start) / 5
        count = comm.bcast(max(3, min(5000, int(budget_s / max(probe_s, 1e-7)))) if rank == 0 else None, root=0)
        repeats.append(count)

    times = [[] for _ in ops]
    started = MPI.Wtime()
    for done in range(rounds):
        # stop after MAX_S seconds (rank 0 decides), so a busy host does not stretch the run; 3 rounds at least
        if comm.bcast(done >= 3 and MPI.Wtime() - started > max_s if rank == 0 else None, root=0):
            break
        for i, (_, halve, run) in enumerate(ops):
            run(2)
            comm.Barrier()
            start = MPI.Wtime()
            run(repeats[i])
            times[i].append((MPI.Wtime() - start) / (repeats[i] * (2 if halve else 1)))
    if rank == 0:
        count = len(sizes)
        json.dump({"sizes": sizes, "one_way_s": times[:count], "round_trips": repeats[:count],
                   "calls": {label: t for (label, _, _), t in zip(ops[count:], times[count:])},
                   "call_repeats": {label: r for (label, _, _), r in zip(ops[count:], repeats[count:])},
                   "mpi_library": MPI.Get_library_version().strip().splitlines()[0]}, sys.stdout)
        sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv)

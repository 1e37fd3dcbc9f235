"""A task farm with pickled Python objects: rank 0 hands out tasks (dicts) with lowercase send/recv,
the workers compute a pure-Python result and send it back; rank 0 also works between messages.

    mpiexec -n 2 python farm.py [TASKS] [WORK]     (default 1200 tasks of 4,000 loop iterations)
"""
import sys

from mpi4py import MPI

TASKS = int(sys.argv[1]) if len(sys.argv) > 1 else 1200
WORK = int(sys.argv[2]) if len(sys.argv) > 2 else 4000

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()


def solve(task):
    s = 0
    for i in range(task["work"]):
        s = (s * 31 + i * task["seed"]) % 1_000_003
    return {"id": task["id"], "value": s}


if rank == 0:
    results, next_task, running = [], 0, 0
    for worker in range(1, size):
        comm.send({"id": next_task, "seed": next_task + 1, "work": WORK}, dest=worker, tag=1)
        next_task, running = next_task + 1, running + 1
    while running:
        if next_task < TASKS and not comm.iprobe(source=MPI.ANY_SOURCE, tag=2):
            results.append(solve({"id": next_task, "seed": next_task + 1, "work": WORK}))   # rank 0 works too
            next_task += 1
            continue
        status = MPI.Status()
        results.append(comm.recv(source=MPI.ANY_SOURCE, tag=2, status=status))
        if next_task < TASKS:
            comm.send({"id": next_task, "seed": next_task + 1, "work": WORK}, dest=status.Get_source(), tag=1)
            next_task += 1
        else:
            comm.send(None, dest=status.Get_source(), tag=1)
            running -= 1
    print(f"farm {TASKS} tasks on {size} ranks: checksum {sum(r['value'] for r in results) % 1_000_003}")
else:
    while (task := comm.recv(source=0, tag=1)) is not None:
        comm.send(solve(task), dest=0, tag=2)

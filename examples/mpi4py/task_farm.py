"""Master-worker task farm: rank 0 hands out tasks to whichever worker is free.

The master sends one task to each worker, then loops: ``recv`` from
``MPI.ANY_SOURCE`` with ``MPI.ANY_TAG``, reads the sender from the
``Status`` and sends that worker the next task, until all 40 tasks are done;
then it sends every worker a stop message (tag ``STOP``).  A task is the
Collatz sequence length of a number.  Which worker computes which task
depends on timing, so the output shows only order-independent facts: the
sorted results, their total, and each worker's stop line.  Needs at least
2 ranks.

Run it::

    mpiexec -n 4 python examples/mpi4py/task_farm.py
    ppt exec examples/mpi4py/task_farm.py -n 4 --system edison
"""
from mpi4py import MPI

WORK, RESULT, STOP = 1, 2, 3
TASKS = list(range(1000, 1040))


def collatz_length(n):
    steps = 0
    while n != 1:
        n = 3 * n + 1 if n % 2 else n // 2
        steps += 1
    return steps


comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
if size < 2:
    raise SystemExit("task_farm.py needs at least 2 ranks")

if rank == 0:
    pending = list(TASKS)
    results = {}
    busy = 0
    for worker in range(1, size):
        if pending:
            comm.send(pending.pop(0), dest=worker, tag=WORK)
            busy += 1
    status = MPI.Status()
    while busy:
        task, length = comm.recv(source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG, status=status)
        assert status.Get_tag() == RESULT
        results[task] = length
        busy -= 1
        if pending:
            comm.send(pending.pop(0), dest=status.Get_source(), tag=WORK)
            busy += 1
    for worker in range(1, size):
        comm.send(None, dest=worker, tag=STOP)
    print(f"{len(results)} tasks done by {size - 1} workers")
    print(f"longest: {max(results.items(), key=lambda kv: (kv[1], -kv[0]))}")
    print(f"total steps {sum(results.values())}")
    print(f"results: {[results[t] for t in sorted(results)]}")
else:
    status = MPI.Status()
    done = 0
    while True:
        task = comm.recv(source=0, tag=MPI.ANY_TAG, status=status)
        if status.Get_tag() == STOP:
            break
        comm.send((task, collatz_length(task)), dest=0, tag=RESULT)
        done += 1
    print("worker stopped")

# Every rank takes part: how many tasks were done altogether (order-independent).
count = comm.reduce(0 if rank == 0 else done, op=MPI.SUM, root=0)
if rank == 0:
    print(f"workers report {count} tasks")

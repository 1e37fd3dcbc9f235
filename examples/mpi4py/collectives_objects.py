"""Every collective in mpi4py's lowercase style: Python objects, pickled.

``bcast``, ``scatter``, ``gather``, ``allgather``, ``alltoall``, ``reduce``
(SUM, PROD, MAX, MIN, MAXLOC), ``allreduce``, ``scan``, ``exscan`` and
``barrier``.  Values are integers, lists and dicts so every result is exact.

Run it::

    mpiexec -n 4 python examples/mpi4py/collectives_objects.py
    ppt exec examples/mpi4py/collectives_objects.py -n 4 --system edison
"""
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

config = comm.bcast({"steps": 3, "name": "demo"} if rank == 0 else None, root=0)
print(f"bcast: {config}")

last = size - 1
piece = comm.scatter([{"index": i, "work": list(range(i))} for i in range(size)] if rank == last else None,
                     root=last)
print(f"scatter from {last}: {piece}")

everyone = comm.gather((rank, rank * rank), root=0)
if rank == 0:
    print(f"gather: {everyone}")
else:
    print(f"gather (non-root): {everyone}")

print(f"allgather: {comm.allgather(chr(ord('a') + rank))}")

# alltoall: item j of my list goes to rank j.
print(f"alltoall: {comm.alltoall([f'{rank}->{j}' for j in range(size)])}")

total = comm.reduce(rank + 1, op=MPI.SUM, root=0)
product = comm.reduce(rank + 1, op=MPI.PROD, root=0)
biggest = comm.reduce(rank * (size - rank), op=MPI.MAX, root=0)
smallest = comm.reduce(rank * (size - rank), op=MPI.MIN, root=0)
where = comm.reduce((rank % 3, rank), op=MPI.MAXLOC, root=0)
print(f"reduce: sum {total} prod {product} max {biggest} min {smallest} maxloc {where}")

print(f"allreduce: sum {comm.allreduce(rank, op=MPI.SUM)} max {comm.allreduce(-rank, op=MPI.MAX)}"
      f" land {comm.allreduce(rank < size, op=MPI.LAND)} bor {comm.allreduce(1 << rank, op=MPI.BOR)}")

print(f"scan: {comm.scan(rank + 1, op=MPI.SUM)} exscan: {comm.exscan(rank + 1, op=MPI.SUM)}")

comm.barrier()
print("after barrier")

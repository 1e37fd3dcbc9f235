"""Error handling with Abort: stop every rank when the input is bad.

Usage: ``abort_on_error.py ROWS``.  Rank 0 checks that ROWS is a positive
integer divisible by the number of ranks; if not, it prints the error to stderr
and calls ``COMM_WORLD.Abort(2)``, which ends the whole job with exit status 2
while the other ranks wait in ``bcast``.  With good input the ranks split
the rows and report their share, and the job exits with status 0.

The error goes to stderr: output written just before an Abort may be lost
as the job is torn down (MPICH's mpiexec sometimes drops it), so on the
error path the deterministic results are an empty stdout and exit status 2.

Run it::

    mpiexec -n 4 python examples/mpi4py/abort_on_error.py 12     # ok, exit 0
    mpiexec -n 4 python examples/mpi4py/abort_on_error.py 10     # aborts, exit 2
    ppt exec examples/mpi4py/abort_on_error.py 10 -n 4 --system edison
"""
import sys

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

rows = None
if rank == 0:
    arg = sys.argv[1] if len(sys.argv) > 1 else ""
    error = None
    if not arg.isdigit() or int(arg) == 0:
        error = f"ROWS must be a positive integer, got {arg!r}"
    elif int(arg) % size:
        error = f"{arg} rows do not split evenly over {size} ranks"
    if error:
        print(f"error: {error}; aborting", file=sys.stderr, flush=True)
        comm.Abort(2)
        # Abort ends every process of the job, but MPICH's returns to the
        # caller until the kill arrives: stop here so no more work is done.
        raise SystemExit(2)
    rows = int(arg)
rows = comm.bcast(rows, root=0)
share = rows // size
print(f"rows {rank * share}..{(rank + 1) * share - 1} of {rows}")

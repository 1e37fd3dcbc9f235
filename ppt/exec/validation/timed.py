"""Times a real mpi4py program under ``mpiexec``: ``mpiexec -n N python -m ppt.exec.validation.timed RESULT.json PROGRAM [ARGS]``.

Each rank imports numpy and mpi4py (so their import and ``MPI_Init`` are not
timed: ``ppt exec``'s prediction does not contain them either), waits in a
barrier, reads ``MPI.Wtime``, runs PROGRAM as ``__main__`` with ``sys.argv``
and ``sys.path[0]`` as ``python PROGRAM ARGS`` gives them, and waits in a
second barrier.  Rank 0 then writes ``{"elapsed_s": ..., "cpu_s": [...]}`` to
RESULT.json: the elapsed time between the barriers and each rank's CPU time
(``time.process_time``) around the program, in seconds.  Only numpy and
mpi4py are imported here, nothing of ``ppt``, so the ranks start fast.
"""
import json
import runpy
import sys
import time
from pathlib import Path

try:
    import numpy  # noqa: F401  (imported before the clock starts: the program's own import is then free)
except ImportError:
    pass
from mpi4py import MPI


def main(argv):
    result, program = argv[1], argv[2]
    sys.argv = argv[2:]
    sys.path[0] = str(Path(program).resolve().parent)
    comm = MPI.COMM_WORLD
    comm.Barrier()
    start, cpu = MPI.Wtime(), time.process_time()
    try:
        runpy.run_path(program, run_name="__main__")
    except SystemExit as exc:            # sys.exit() or sys.exit(0) at the end: a run like any other
        if exc.code not in (None, 0):
            raise
    cpu = time.process_time() - cpu
    comm.Barrier()
    elapsed = MPI.Wtime() - start
    cpu = comm.gather(cpu, root=0)
    if comm.Get_rank() == 0:
        Path(result).write_text(json.dumps({"elapsed_s": elapsed, "cpu_s": cpu}))


if __name__ == "__main__":
    main(sys.argv)

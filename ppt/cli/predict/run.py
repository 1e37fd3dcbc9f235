"""``ppt run``: run an MPI application script on a simulated system.

The script is a Python file defining ``main(mpi)``; every rank calls it with
its own ``mpi`` object (``mpi.COMM_WORLD``, ``mpi.compute(...)``, ... see
:mod:`ppt.mpi.surface.api`).  ``--script-args '...'`` reach the script as ``mpi.argv``.
Under ``mpiexec -n K`` the simulation itself runs in parallel; rank 0 prints.
"""
from __future__ import annotations

import contextlib
import os
import shlex
import sys

from ppt.cli.common import (add_failure_arguments, add_job_arguments, add_network_argument,
                            add_sampling_arguments, add_system_arguments, check_mapping_file, check_sampling, is_leader, load_preset,
                            report_placement, sampling, whole_number)
from ppt.cli.jobmix import add_jobs_arguments, refuse_with_job_list, run_job_list
from ppt.cli.output import duration, emit, format_result, paragraph
from ppt.errors import PPTError
from ppt.scripts import load_main

HELP = "run an MPI application script (defining main(mpi)) on a simulated system"


def add_arguments(parser) -> None:
    parser.add_argument("script", metavar="SCRIPT.py", nargs="?", help="Python file defining main(mpi)")
    add_system_arguments(parser, positional=False)
    parser.add_argument("-n", "--ranks", type=whole_number, default=None, metavar="N",
                        help="number of MPI ranks, as mpiexec -n (required without --job-list)")
    add_job_arguments(parser)
    add_network_argument(parser)
    add_algorithm_argument(parser)
    parser.add_argument("--script-args", default="", metavar="'ARGS'",
                        help="arguments for the script (one quoted string), seen by it as mpi.argv")
    add_failure_arguments(parser)
    add_sampling_arguments(parser)
    add_jobs_arguments(parser)


def add_algorithm_argument(parser) -> None:
    """``--algorithm COLLECTIVE=NAME``, repeatable (read by :func:`algorithms`)."""
    parser.add_argument("--algorithm", action="append", default=[], metavar="COLLECTIVE=NAME",
                        help="collective algorithm, e.g. allreduce=ring (repeatable)")


def algorithms(items) -> dict:
    """``--algorithm COLLECTIVE=NAME`` items as ``{collective: algorithm}``."""
    choices = {}
    for item in items:
        kind, sep, name = item.partition("=")
        if not sep:
            raise PPTError(f"--algorithm takes COLLECTIVE=NAME (e.g. allreduce=ring), got {item!r}")
        choices[kind] = name
    return choices


def run(args) -> int:
    from ppt.machine import Machine
    from ppt.mpi import MPIJob
    from ppt.progress import Progress, closed_on_failure
    check_sampling(args)
    check_mapping_file(args)
    if args.job_list:
        refuse_with_job_list(args, {"SCRIPT.py": args.script, "--ranks": args.ranks is not None,
                                "--script-args": args.script_args, "--algorithm": args.algorithm})
        return run_job_list(args, args.network)
    if args.allocation is not None:
        raise PPTError("--allocation places the jobs of --job-list; one script's ranks are placed by --mapping")
    if args.script is None or args.ranks is None:
        raise PPTError("give SCRIPT.py and -n N (--ranks N), or --job-list FILE.json (see 'ppt run --help')")
    main = load_main(args.script)
    try:
        argv = shlex.split(args.script_args)
    except ValueError as exc:
        raise PPTError(f"--script-args {args.script_args!r}: {exc}; quote the arguments as one string, "
                       f"e.g. --script-args '--steps 10'") from None
    machine = Machine(load_preset(args), network_kind=args.network, seed=args.seed)
    job = MPIJob.on_machine(machine, args.ranks, args.ranks_per_node, args.mapping, args.seed,
                            algorithms(args.algorithm))
    progress = Progress(f"run {args.system}", ranks=True, watch_stalls=True) if is_leader() else None
    with closed_on_failure(progress), sampling(args, machine.name) as job.sampler, \
            contextlib.redirect_stdout(sys.stderr):
        if job.sampler is not None:       # named in the figures' titles (ppt plot)
            job.sampler.workload = {"program": os.path.basename(args.script), "ranks": args.ranks}
        result = job.run(main, argv=argv, progress=progress)   # the model's own prints never mix into the results
    if progress is not None:
        progress.done()
    if not is_leader():
        return 0
    report_placement(job, machine)
    report(args, machine, result)
    return 0


def report(args, machine, result, extra: dict | None = None) -> None:
    """Print a job's result: JSON (with the ``extra`` fields) under ``--json``, else a summary and its calls."""
    summary = {**result.as_json(), **(extra or {})}
    if args.json:
        emit(args, summary)
        return
    nodes = len(set(e["node"] for e in result.per_rank))
    print(paragraph(f"{machine.name} ({args.network} network): {result.ranks} ranks on {nodes} "
                    f"node{'s' if nodes != 1 else ''}, predicted {duration(result.predicted_s)}"))
    compute = sum(e["compute_s"] for e in result.per_rank) / result.ranks
    comm = sum(e["comm_s"] for e in result.per_rank) / result.ranks
    print(f"mean per rank: compute {duration(compute)}, MPI {duration(comm)}")
    print()
    emit(args, summary, ["call", "count"], [[name, count] for name, count in result.calls.items()])
    if result.network:
        print(f"\nnetwork statistics:\n{format_result(result.network)}")

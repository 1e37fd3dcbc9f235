"""``ppt bench``: speed benchmarks whose figures are ratios measured in the same run."""
from __future__ import annotations

import sys

from ppt.cli.common import positive_number, read_system, seconds, whole_number
from ppt.cli.output import add_columns_option, add_json_flag, emit, flatten, paragraph, pick_columns

#: Events of the default engine measurement (PHOLD runs about one event per LP per simulated second).
DEFAULT_EVENTS = 300_000
#: Events a measurement needs at least (fewer: nothing to time, or a rate of 0 to divide by).
MIN_EVENTS = 10_000
#: Memory per PHOLD LP while the three measured runs exist (1.4 GB at 100,000 LPs).
BYTES_PER_LP = 16_000

#: System preset of ``ppt bench network``, and of ``ppt bench mpi --network KIND``, when --system names none.
DEFAULT_SYSTEM = "torus-16x16x16"

#: The columns of a ``ppt bench mpi`` row (:func:`ppt.bench.mpi.measure`, flattened), and those its table
#: shows without ``--columns``: what each workload ran and how fast.
MPI_FIELDS = ("workload", "network", "ranks", "messages", "calls", "events", "wall_s.min", "wall_s.median",
              "messages_per_s", "calls_per_s", "baseline_events_per_s", "ratio", "predicted_s")
MPI_COLUMNS = ["workload", "network", "ranks", "messages", "wall_s.min", "messages_per_s", "ratio"]

#: The columns of a ``ppt bench parallel`` row (:func:`ppt.bench.parallel.measure`), and those its table shows
#: without ``--columns``.
PARALLEL_FIELDS = ("workload", "ranks", "serial_s", "parallel_s", "speedup", "efficiency", "identical", "windows",
                   "events_per_window", "events_max_over_mean", "exchange_bytes_per_window", "wait_s")
PARALLEL_COLUMNS = list(PARALLEL_FIELDS)

HELP = ("measure simulator speed: engine (PHOLD vs a bare heapq loop), network (packet-hops/s vs a bare "
        "compiled loop), mpi (MPI messages/s vs a bare compiled loop) or parallel (serial vs mpiexec -n K)")


def add_arguments(parser) -> None:
    parser.add_argument("target", choices=["engine", "network", "mpi", "parallel"], help="what to measure")
    parser.add_argument("--lps", type=whole_number, default=1000, help="engine: PHOLD logical processes (default 1000)")
    parser.add_argument("--end", type=seconds, default=None, metavar="SECONDS",
                        help="engine: simulated end time (default: about 300k events)")
    parser.add_argument("--system", default=None,
                        help=f"network, mpi --network: system preset (default {DEFAULT_SYSTEM})")
    parser.add_argument("--load", type=positive_number, default=0.3, help="network: uniform random offered load (default 0.3)")
    parser.add_argument("--warmup", type=seconds, default=2e-6, metavar="T",
                        help="network: warm-up, seconds or e.g. 2us (default 2e-6)")
    parser.add_argument("--time", type=seconds, default=10e-6, metavar="T",
                        help="network: measured time, seconds or e.g. 10us (default 10e-6)")
    parser.add_argument("--repeats", type=whole_number, default=3,
                        help="mpi: runs of each workload; wall time as min and median (default 3)")
    parser.add_argument("--scale", type=positive_number, default=1.0,
                        help="mpi: rank counts and iterations times this, e.g. 0.1 for a quick look (default 1)")
    parser.add_argument("--network", default=None, metavar="KIND",
                        help="mpi: only this network kind (packet, flow, analytic) of --system's preset, or 'own' "
                             "for only the contention-free network of its own (default: that network, whose "
                             "figures are the MPI layer's, then the packet networks of dragonfly-booksim and "
                             "torus-16x16x16)")
    parser.add_argument("--processes", type=_process_counts, default=None, metavar="K,K,...",
                        help="parallel: simulation ranks of the mpiexec runs, each at least 2 (default: 2 up to "
                             "the host's cores)")
    parser.add_argument("--quick", action="store_true",
                        help="parallel: smaller workloads of the same kinds (a few seconds each)")
    add_columns_option(parser, "mpi: " + ", ".join(MPI_COLUMNS) + "; parallel: " + ", ".join(PARALLEL_COLUMNS))
    add_json_flag(parser)


def run(args) -> int:
    from ppt.errors import PPTError
    log = lambda message: print(message, file=sys.stderr)  # noqa: E731
    if args.network is not None and args.target != "mpi":
        raise PPTError(f"--network applies to 'ppt bench mpi' only, not to 'ppt bench {args.target}'")
    if args.columns is not None and args.target not in ("mpi", "parallel"):
        raise PPTError(f"--columns applies to 'ppt bench mpi' and 'ppt bench parallel' only, not to "
                       f"'ppt bench {args.target}'")
    for option, used in (("--processes", args.processes is not None), ("--quick", args.quick)):
        if used and args.target != "parallel":
            raise PPTError(f"{option} applies to 'ppt bench parallel' only, not to 'ppt bench {args.target}'")
    if args.target in ("mpi", "parallel"):                             # a misspelled column: before the runs
        pick_columns(args.columns, *_columns_of(args.target))
    if args.target == "mpi":
        result = _measure_mpi(args, log)
    elif args.target == "parallel":
        result = _measure_parallel(args, log)
        if not args.json:
            columns, width = pick_columns(args.columns, *_columns_of(args.target))
            rows = [[row[c] for c in columns] for row in result["workloads"]]
            emit(args, result, columns, rows, width=width,
                 title=paragraph("wall times of whole commands (start-up included); wait_s: each rank's time "
                                 "waiting for the others at the window exchanges") + "\n")
            return 0
    elif args.target == "engine":
        from ppt.apps.phold import PholdParams
        from ppt.bench.engine import measure_engine
        if args.lps < 1:
            raise PPTError(f"--lps must be at least 1, got {args.lps}")
        from ppt import hostmemory
        need, available = args.lps * BYTES_PER_LP, hostmemory.available_bytes()
        if available and need > available:
            raise PPTError(f"--lps {args.lps:,} needs about {need / 2**30:,.1f} GiB but only "
                           f"{available / 2**30:,.1f} GiB of memory is available; use fewer LPs")
        end = args.end if args.end is not None else DEFAULT_EVENTS / args.lps
        if args.lps * end < MIN_EVENTS:
            raise PPTError(f"--end {end:g} with --lps {args.lps:,} gives about {args.lps * end:,.0f} events, too few to "
                           f"time (at least {MIN_EVENTS:,}); raise --end or drop it (default: about "
                           f"{DEFAULT_EVENTS:,} events)")
        result = measure_engine(PholdParams(num_lps=args.lps, end_s=end), log=log)
    else:
        from ppt.bench.network import measure_network
        from ppt.machine import Machine
        result = measure_network(Machine(read_system(args.system or DEFAULT_SYSTEM)), args.load, args.warmup,
                                 args.time, log=log)
    if args.target == "mpi" and not args.json:
        _print_mpi(args, result)
    elif result is not None:
        emit(args, result)
    return 0


def _columns_of(target: str) -> tuple[list, list]:
    """A bench's row fields and the columns its table shows by default."""
    return (list(MPI_FIELDS), MPI_COLUMNS) if target == "mpi" else (list(PARALLEL_FIELDS), PARALLEL_COLUMNS)


def _print_mpi(args, result: dict) -> None:
    """``ppt bench mpi``'s result as a table of :data:`MPI_COLUMNS` (``--columns`` picks others)."""
    rows = [flatten(row) for row in result["workloads"]]
    columns, width = pick_columns(args.columns, *_columns_of("mpi"))
    print(paragraph(f"{result['repeats']} run(s) of each workload at scale {result['scale']:g}; wall time: the "
                    f"fastest run; ratio: messages/s over the bare loop's events/s") + "\n")
    emit(args, result, columns, [[row.get(c) for c in columns] for row in rows], width=width)


def _measure_mpi(args, log) -> dict:
    """``ppt bench mpi``: the workloads of :mod:`ppt.bench.mpi` on its default networks, on the built-in
    contention-free network alone (``--network own``), or on ``--network KIND`` of the ``--system`` preset."""
    from ppt.bench.mpi import NETWORKS, analytic_job, measure_mpi, preset_job
    from ppt.errors import PPTError
    from ppt.provenance import forget_machine
    if args.network in (None, "own"):
        if args.system is not None:
            raise PPTError(f"--system {args.system} needs --network KIND: without it 'ppt bench mpi' runs on "
                           f"its own networks")
        networks = NETWORKS if args.network is None else [NETWORKS[0]]
        result = measure_mpi(args.repeats, args.scale, networks, log=log)
        forget_machine()                                  # the rows name their networks; no one system ran
        args.network = ",".join(dict.fromkeys(name.split()[0] for name, _ in networks))
        return result
    system = read_system(args.system or DEFAULT_SYSTEM)     # checked before the first run
    networks = [(f"{args.network} {system.get('name', args.system)}", preset_job(args.network, system))]
    return measure_mpi(args.repeats, args.scale, networks, log=log)


def _process_counts(text: str) -> list[int]:
    """``--processes``: comma-separated simulation rank counts, each at least 2."""
    import argparse
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be whole numbers like 2,4, got {text!r}") from None
    if not counts or min(counts) < 2:
        raise argparse.ArgumentTypeError(f"each rank count must be at least 2, got {text!r}")
    return counts


def _measure_parallel(args, log) -> dict:
    """``ppt bench parallel``: the workloads of :mod:`ppt.bench.parallel`, serially and on each rank count."""
    import os
    from ppt.bench.parallel import QUICK_WORKLOADS, WORKLOADS, measure
    from ppt.engine.parallel import launched_by_mpiexec
    from ppt.errors import PPTError
    if launched_by_mpiexec():
        raise PPTError("run 'ppt bench parallel' without mpiexec: it starts its own mpiexec runs")
    counts = args.processes or list(range(2, max(2, os.cpu_count() or 1) + 1))
    workloads = QUICK_WORKLOADS if args.quick else WORKLOADS
    rows = [row for name, argv in workloads.items() for row in measure(name, argv, counts, log=log)]
    return {"workloads": rows, "cores": os.cpu_count()}

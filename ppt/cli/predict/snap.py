"""``ppt snap``: strong scaling of SNAPSim on a system (table, JSON or plot).

    ppt snap edison --study 1 --cores 24,48,96,192,384 --plot snap-edison.png

One line per finished point on stderr ("snap edison: cores 96: predicted 1.23 s (3/5, 4.1 s
wall)") above the whole run's progress; ``PPT_QUIET`` silences both.
"""
from __future__ import annotations

import os

from ppt.cli.common import add_dpi_option, add_system_arguments, load_preset, pick_network, whole_number
from ppt.cli.output import check_writable, duration, emit, preload_plotting, write_plot
from ppt.errors import PPTError

HELP = "strong-scaling prediction of SNAP (KBA transport sweeps) from one node up"

#: Default network model: the packet network unless its estimated cost is over the budget
#: (:mod:`ppt.drivers.autochoice`), then the flow network.  Measured for
#: 'ppt snap edison --study 1 --cores 24,48,96,192,384': packet about 21 CPU-seconds on a quiet machine
#: (40-76 s of wall time on a shared 2-core one), analytic 5 s; its estimate, 12 M packet-hops (Aries
#: responses included) and 0.35 M MPI messages, about 21 s, is within the budget.  Wall times depend on
#: the machine, so the help text promises none.
DEFAULT_NETWORK = "auto"


def add_arguments(parser) -> None:
    add_system_arguments(parser)
    parser.add_argument("--study", type=int, choices=[1, 2], default=1,
                        help="1: 32x32x48 cells, 192 angles, 8 groups, 8-cell chunks; "
                             "2: 64x32x48 cells, 384 angles, 42 groups, 16-cell chunks (default 1)")
    parser.add_argument("-n", "--ranks", "--cores", dest="cores", required=True, metavar="N,N,...",
                        help="rank counts, one rank per core, e.g. 24,48,96 (whole nodes, or less than one); "
                             "--cores is the same option")
    parser.add_argument("--network", choices=["auto", "packet", "flow", "analytic"], default=DEFAULT_NETWORK,
                        help=f"network model (default {DEFAULT_NETWORK}: packet-level unless the study's estimated "
                             "packet-hops exceed the budget, then flow; stderr says which ran); packet: every "
                             "packet through routers and links, the most detailed and the slowest; flow: max-min "
                             "fair sharing on the same routes; analytic: contention-free latency/bandwidth "
                             "model, the fastest)")
    parser.add_argument("--iterations", type=int, default=None, metavar="N",
                        help="inner iterations simulated (one time step, one outer; default 1); "
                             "predicted time grows linearly with it")
    parser.add_argument("--npey", type=whole_number, default=None, help="force the y process count (with --npez)")
    parser.add_argument("--npez", type=whole_number, default=None, help="force the z process count (with --npey)")
    add_scaling_output_arguments(parser)


def add_scaling_output_arguments(parser) -> None:
    """``--plot``, ``--dpi`` and ``--jobs`` of a strong-scaling sweep (``ppt snap``, ``ppt app``)."""
    parser.add_argument("--plot", metavar="FILE.png", default=None,
                        help="plot predicted time, speed-up and parallel efficiency against cores to a PNG")
    add_dpi_option(parser)
    parser.add_argument("--jobs", type=whole_number, default=None, metavar="N",
                        help="core counts simulated at a time, each in its own process (default: one per "
                             "available CPU; 1 under mpiexec); results do not depend on it")


def core_counts(text: str, option: str = "-n/--cores") -> list[int]:
    """The core counts of ``option``'s ``text`` (``24,48,96``)."""
    try:
        return [int(item) for item in text.split(",") if item.strip()]
    except ValueError:
        raise PPTError(f"bad {option} {text!r}: give rank (core) counts like 24,48,96") from None


def scaling_runs(label: str, args, runs) -> list[dict]:
    """The results of ``runs(progress, sim_progress, jobs)``, a strong-scaling sweep over core counts run
    ``jobs`` points at a time (``--jobs``, default one per available CPU; one under mpiexec), each finished
    point a line of the report ``label``, without their wall times (not part of the prediction)."""
    from ppt.engine.parallel import launched_ranks
    from ppt.progress import Progress
    jobs = 1 if launched_ranks() > 1 else args.jobs or len(os.sched_getaffinity(0))

    def progress(entry, index, total):
        sim_progress.note(f"cores {entry['cores']}: predicted {duration(entry['predicted_s'])} "
                          f"({index + 1}/{total}, {entry['wall_s']:.1f} s wall)")
        if args.plot and jobs > 1 and index == 0 < total - 1:
            preload_plotting()         # on the core the first finished worker leaves idle
    sim_progress = Progress(label, ranks=True)   # the whole run's, over its points
    results = runs(progress, sim_progress, jobs)
    sim_progress.done()
    for entry in results:
        del entry["wall_s"]
    return results


def run(args) -> int:
    from ppt.apps.scaling import DEFAULT_ITERATIONS, packet_hops, plot_scaling, strong_scaling
    from ppt.machine import Machine
    if args.plot:
        check_writable(args.plot)         # before the run, not after it
    iterations = DEFAULT_ITERATIONS if args.iterations is None else args.iterations
    if iterations < 1:
        raise PPTError(f"--iterations must be at least 1, got {iterations}")
    preset = load_preset(args)
    cores = core_counts(args.cores)
    kind = pick_network(args, lambda: packet_hops(Machine(preset, seed=args.seed), args.study, cores, iterations,
                                                  args.npey, args.npez))
    machine = Machine(preset, network_kind=kind, seed=args.seed)

    results = scaling_runs(f"snap {args.system}", args, lambda progress, sim_progress, jobs: strong_scaling(
        machine, args.study, cores, iterations, args.npey, args.npez, progress, sim_progress, jobs))
    title = f"SNAP study {args.study} on {machine.name} ({kind} network, {iterations} inner iteration(s))"
    rows = [[r["cores"], f"{r['npey']}x{r['npez']}" + (f" x{r['threads']}t" if r["threads"] > 1 else ""),
             r["predicted_s"], r["compute_s"], r["comm_s"], round(r["speedup"], 3), round(r["efficiency"], 3)]
            for r in results]
    summary = {"results": results, "study": args.study, "system": machine.name, "network": kind,
               "iterations": iterations}
    if args.plot:
        summary["plot"] = args.plot
    emit(args, summary, ["cores", "npey x npez", "predicted_s", "compute_s", "comm_s", "speedup", "efficiency"],
         rows, title)
    if args.plot:                      # after the results are out: a failing plot loses nothing
        write_plot(args.plot, lambda tmp: plot_scaling(results, tmp, title, dpi=args.dpi))
        if not args.json:
            print(f"plot: {args.plot}")
    return 0

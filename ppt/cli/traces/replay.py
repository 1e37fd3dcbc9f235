"""``ppt replay TRACE --system SYSTEM``: predict a traced MPI program's run time on a simulated system.

``--network ideal`` replays on a network with 1 ns latency and infinite
bandwidth (the system then only fixes the node count), which shows how close
the replay of the recorded compute gaps comes to the recorded span.

``--loggp L,o,g,G`` (or ``--loggp loggopsim``) replays on no system: each rank on a node of its own,
timed in the LogGP model as LogGOPSim times GOAL schedules (:mod:`ppt.traces.loggp`).

``--compute-clock`` picks the clock the recorded gaps are read on (see
:mod:`ppt.traces.replay` and docs/replay-clocks.md): a trace recorded with more
ranks than cores holds, in its wall-clock gaps, time ranks waited for a core.
"""
from __future__ import annotations

import os
import time

from ppt.cli.common import (TRACE_HELP, add_failure_arguments, add_job_arguments, add_reader_arguments,
                            add_sampling_arguments, add_system_arguments, is_leader, load_preset, pick_network,
                            positive_number, reader_options, report_placement, sampling)
from ppt.cli.jobmix import add_jobs_arguments, refuse_with_job_list, run_job_list
from ppt.cli.output import duration, emit, paragraph
from ppt.errors import PPTError
from ppt.log import logger

HELP = ("replay a trace (DUMPI, OTF2, GOAL, Chakra or op-stream) on a simulated system and predict its run "
        "time")

NETWORKS = ("auto", "packet", "flow", "analytic", "ideal")
CLOCKS = ("auto", "wall", "cpu")     # ppt.traces.replay.COMPUTE_CLOCKS, without importing the reader


def add_arguments(parser) -> None:
    parser.add_argument("trace", metavar="TRACE", nargs="?",
                        help=TRACE_HELP + " (required without --job-list)")
    add_system_arguments(parser, positional=False, required=False)
    parser.add_argument("--loggp", default=None, metavar="L,o,g,G",
                        help="instead of a system: time the replay in the LogGP model as LogGOPSim does, with wire "
                             "latency L, overhead o per send and per receive, gap g between messages at a NIC (s) "
                             "and G per byte after a message's first (s/B), e.g. 2.5e-6,1.5e-6,1e-6,6e-9, or "
                             "'loggopsim' for LogGOPSim's defaults; every rank on a node of its own")
    parser.add_argument("--network", choices=NETWORKS, default="auto",
                        help="auto (default): the packet-level model unless its estimated cost from the trace's "
                             "messages exceeds the budget, then the flow model (stderr says which ran); packet, flow "
                             "(max-min fair sharing), contention-free analytic model, or an ideal network (1 ns "
                             "latency, infinite bandwidth) for validation")
    add_job_arguments(parser)
    parser.add_argument("--compute-scale", type=positive_number, default=1.0, metavar="F",
                        help="multiply the recorded gaps between calls by F, a finite number above 0 (default 1)")
    parser.add_argument("--compute-clock", choices=CLOCKS, default="auto",
                        help="clock the gaps between calls are read on: auto (default) takes the CPU clock when "
                             "the CPU time in the gaps is below 0.85 of their wall-clock time (ranks waited for "
                             "a core when traced, oversubscribed) and the wall clock otherwise, and says which "
                             "on stderr; wall or cpu force one")
    parser.add_argument("--keep-startup", action="store_true",
                        help="replay the time before each rank's MPI_Init ended (launch skew, pre-init work) as "
                             "compute; by default it is dropped and reported per rank")
    parser.add_argument("--skip-unsupported", action="store_true",
                        help="leave out calls replay does not support instead of refusing the trace")
    add_reader_arguments(parser)
    add_failure_arguments(parser)
    add_sampling_arguments(parser)
    add_jobs_arguments(parser)


def _packet_hops(preset, args, trace):
    """Estimated traffic of replaying ``trace`` on the packet network: its sends by size and what each
    collective call's algorithm sends (:func:`~ppt.drivers.autochoice.trace_estimate`)."""
    from ppt.drivers.autochoice import Estimator, trace_estimate
    from ppt.machine import Machine
    from ppt.mpi.mapping import map_ranks
    machine = Machine(preset, seed=args.seed)
    node_of = map_ranks(trace.num_ranks, args.ranks_per_node or machine.cores_per_node, machine.num_nodes,
                        args.mapping, args.seed)
    return trace_estimate(trace, Estimator(machine, node_of))


def _job(args, trace):
    from ppt.machine import Machine
    from ppt.mpi import MPIJob
    from ppt.mpi.settings import MPISettings
    from ppt.traces.ideal import IDEAL_EAGER_B, ideal_network
    preset = load_preset(args)
    kind = "analytic" if args.network == "ideal" else pick_network(args, lambda: _packet_hops(preset, args, trace))
    machine = Machine(preset, network_kind=kind, seed=args.seed)
    if args.network != "ideal":
        return machine, MPIJob.on_machine(machine, trace.num_ranks, args.ranks_per_node, args.mapping, args.seed)
    per_node = args.ranks_per_node or machine.cores_per_node
    job = MPIJob(ideal_network(machine.num_nodes), trace.num_ranks, per_node, args.mapping, args.seed,
                 machine.node_model, settings=MPISettings(IDEAL_EAGER_B))
    return machine, job


def _loggp_job(args, trace):
    """The job of ``--loggp``: (its label, the MPIJob); PPTError if an option about a system comes with it."""
    from ppt.traces.loggp import LogGP, loggp_job
    params = LogGP.parse(args.loggp)
    given = {"--system": args.system is not None, "--network": args.network != "auto", "--set": bool(args.overrides),
             "--ranks-per-node": args.ranks_per_node is not None, "--mapping": args.mapping != "linear",
             **{f"--{key.replace('_', '-')}": getattr(args, key) is not None
                for key in ("fail_links", "fail_class", "fail_seed", "fail_file", "sample_every")}}
    clash = [name for name, present in given.items() if present]
    if clash:
        raise PPTError(f"--loggp replaces the system, so {', '.join(clash)} has no meaning with it: drop one")
    return str(params), loggp_job(trace.num_ranks, params)


def run(args) -> int:
    from ppt.progress import Progress
    from ppt.traces.replay import replay
    from ppt.traces.formats import open_trace
    if args.job_list:
        refuse_with_job_list(args, {"TRACE": args.trace, "--network ideal": args.network == "ideal",
                                "--compute-scale": args.compute_scale != 1.0, "--keep-startup": args.keep_startup,
                                "--compute-clock": args.compute_clock != "auto",
                                "--skip-unsupported": args.skip_unsupported, "--loggp": args.loggp,
                                "--comm-groups": args.comm_groups, "--chakra-overlap": args.chakra_overlap})
    if args.loggp is None and args.system is None:
        raise PPTError("give --system SYSTEM (or --loggp L,o,g,G to time the replay in the LogGP model)")
    if args.job_list:
        return run_job_list(args, "packet" if args.network == "auto" else args.network)
    if args.trace is None:
        raise PPTError("give a TRACE folder, or --job-list FILE.json (see 'ppt replay --help')")
    trace = open_trace(args.trace, **reader_options(args))
    if args.loggp is not None:
        system, job = _loggp_job(args, trace)
        machine, network = None, "LogGP"
    else:
        machine, job = _job(args, trace)
        system = machine.name
        network = "ideal" if args.network == "ideal" else machine.network_kind
    leader = is_leader()
    progress = Progress(f"replay {args.system or 'LogGP'}") if leader else None
    began = time.perf_counter()
    try:
        with sampling(args, system) as job.sampler:
            summary = replay(trace, job, args.compute_scale, args.skip_unsupported, progress, args.keep_startup,
                             args.compute_clock)
    except PPTError:
        if progress is not None:      # the bar ends its line, so the error gets one of its own
            progress.close()
        raise
    wall_s = time.perf_counter() - began
    if not leader:
        return 0
    progress.done()
    if not os.environ.get("PPT_QUIET"):
        logger.info(summary["compute_clock_reason"])
    report_placement(job, machine)
    if args.json:
        emit(args, summary)
        return 0
    per_rank = summary["per_rank"]
    cpu = summary["compute_cpu_s"]
    lines = [f"trace {summary['trace']}",
             f"{summary['ranks']} ranks, {summary['records']:,} records replayed on {machine.name} "
             f"({'ideal' if args.network == 'ideal' else machine.network_kind} network) in {wall_s:.3g} s",
             f"predicted {duration(summary['predicted_s'])}, traced span {duration(summary['trace_s'])}; "
             f"{summary['bytes_p2p']:,} point-to-point bytes, {summary['packets']:,} packets, "
             f"mean hops {summary['mean_hops']:.3g}"]
    if not args.keep_startup:
        lines.append(f"start-up dropped (before the end of MPI_Init): up to "
                     f"{duration(max(e['startup_dropped_s'] for e in per_rank))} per rank (--keep-startup keeps it)")
    lines.append(f"compute between calls, all ranks: {duration(summary['compute_wall_s'])} by the wall clock, "
                 + (f"{duration(cpu)} by the CPU clock" if cpu is not None else "no CPU times")
                 + f"; replayed: {summary['compute_clock']} clock"
                 + (f" x {args.compute_scale:g}" if args.compute_scale != 1.0 else ""))
    if summary["wtime_span_s"] is not None:
        lines.append(f"first to last MPI_Wtime (the program's own timing), slowest rank: predicted "
                     f"{duration(summary['wtime_span_s'])}, recorded {duration(summary['recorded_wtime_span_s'])}")
    lines.append(f"time in MPI calls per rank, mean: recorded "
                 f"{duration(sum(e['recorded_mpi_s'] for e in per_rank) / len(per_rank))}, "
                 f"predicted {duration(sum(e['comm_s'] for e in per_rank) / len(per_rank))}")
    if summary["skipped_calls"]:
        lines.append("skipped: " + ", ".join(f"{n} x{c}" for n, c in summary["skipped_calls"].items()))
    print("\n".join(paragraph(line) for line in lines) + "\n")
    emit(args, summary, ["call", "count"], [[name, count] for name, count in summary["calls"].items()])
    return 0

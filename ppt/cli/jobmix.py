"""``--job-list FILE`` of ``ppt run`` and ``ppt replay``: several jobs sharing one machine.

The job list (see :mod:`ppt.jobs.joblist`) replaces the command's own
program; ``--allocation`` gives the jobs their nodes.  Everything is checked
before the run starts, so bad input is one line on stderr and no file.
"""
from __future__ import annotations

from ppt.cli.common import check_input_file, check_mapping_file, is_leader, load_preset, sampling
from ppt.cli.output import cell, duration, emit, format_table, paragraph
from ppt.errors import PPTError
from ppt.jobs.allocation import POLICIES

#: Columns of the per-job table: (heading, key of a job's entry).
COLUMNS = [("job", "name"), ("kind", "kind"), ("ranks", "ranks"), ("predicted_s", "predicted_s"),
           ("max_comm_s", "max_comm_s"), ("mean_comm_s", "mean_comm_s"), ("packets", "packets"),
           ("mean_latency_s", "mean_packet_latency_s"), ("mean_hops", "mean_hops")]

#: Columns of the per-traffic-class table (network.traffic_classes > 1): (heading, key of a class's entry).
CLASS_COLUMNS = [("class", "class"), ("packets", "packets"), ("throughput", "throughput_Bps"), ("share", "share"),
                 ("mean_latency_s", "mean_latency_s"), ("p99_latency_s", "latency_p99_s"),
                 ("max_latency_s", "max_latency_s")]


def add_jobs_arguments(parser) -> None:
    """``--job-list FILE`` and ``--allocation POLICY|FILE``."""
    parser.add_argument("--job-list", default=None, metavar="FILE.json",
                        help="run the jobs of a job list (traces, scripts, synthetic traffic) together on the "
                             "system instead of one program; see examples/jobs.json")
    parser.add_argument("--allocation", default=None, metavar="|".join(POLICIES) + "|FILE",
                        help="how the jobs of --job-list get their nodes (default contiguous; random uses --seed; "
                             "FILE: one line of node ids per job)")


def refuse_with_job_list(args, given: dict) -> None:
    """PPTError if ``--job-list`` comes with any of ``given`` (option name -> whether it was given)."""
    clash = [name for name, present in given.items() if present]
    if clash:
        raise PPTError(f"--job-list replaces {', '.join(clash)}: the job list names every job's program and ranks")


def run_job_list(args, network_kind: str) -> int:
    """Run ``args.job_list`` on ``args.system`` and print the per-job results."""
    from ppt.jobs.joblist import read_job_list
    from ppt.jobs.mix import JobMix
    from ppt.machine import Machine
    from ppt.progress import Progress
    args.allocation = args.allocation or "contiguous"
    check_input_file(args.job_list, "--job-list")
    check_mapping_file(args)
    if args.allocation not in POLICIES:
        check_input_file(args.allocation, "--allocation")
    joblist = read_job_list(args.job_list)
    machine = Machine(load_preset(args), network_kind=network_kind, seed=args.seed)
    if network_kind == "packet":
        from ppt.interconnects.topologies.registry import refuse_if_message_too_large
        for job in joblist.jobs:
            if job.kind == "traffic" and job.options.get("message_B"):
                refuse_if_message_too_large(machine.network_settings, job.options["message_B"],
                                            f"job {job.name} message_B", all_at_once=False)
    mix = JobMix(machine, joblist, args.allocation, args.seed, args.ranks_per_node, args.mapping)
    progress = Progress(f"jobs {machine.name}", ranks=True) if is_leader() else None
    with sampling(args, machine.name) as sampler:
        result = mix.run(sampler, progress)
    if not is_leader():
        return 0
    progress.done()
    if args.json:
        emit(args, result)
        return 0
    print(paragraph(f"{machine.name} ({network_kind} network): {len(result['jobs'])} jobs, allocation "
                    f"{args.allocation} (seed {args.seed}); predicted {duration(result['predicted_s'])}"))
    rows = [["-" if job[key] is None else job[key] for _, key in COLUMNS] for job in result["jobs"]]
    emit(args, result, [heading for heading, _ in COLUMNS], rows)
    classes = (result.get("network") or {}).get("classes")
    if classes:
        print()
        print(format_table([heading for heading, _ in CLASS_COLUMNS],
                           [[cell(c[key], key) for _, key in CLASS_COLUMNS] for c in classes]))
    return 0

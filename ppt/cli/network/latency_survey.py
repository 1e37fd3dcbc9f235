"""``ppt latency-survey``: one message from node 0 to every other node on an idle network.

Reports the MPI-level latency (``min_s``, ``mean_s``, ``max_s``: what an MPI
ping-pong measures) and the network level NIC to NIC (``network_min_s`` ...:
the hardware figure), which differ by the preset's MPI overheads.
"""
from __future__ import annotations

from ppt.cli.common import add_network_argument, add_system_arguments, check_message_sizes, count, load_preset
from ppt.cli.output import emit

HELP = "MPI-level and NIC-to-NIC latency from node 0 to every other node, one message at a time on an idle network"


def add_arguments(parser) -> None:
    add_system_arguments(parser)
    parser.add_argument("--bytes", type=count, default=8, help="message size in bytes (default 8)")
    add_network_argument(parser)


def run(args) -> int:
    from ppt.errors import PPTError
    from ppt.drivers.survey import latency_survey
    from ppt.machine import Machine
    from ppt.progress import Progress
    if args.bytes < 0:
        raise PPTError(f"--bytes must not be negative, got {args.bytes}")
    machine = Machine(load_preset(args), args.network, seed=args.seed)
    check_message_sizes(machine, [args.bytes], "--bytes")
    progress = Progress(f"latency-survey {args.system}")
    result = latency_survey(machine, args.bytes, progress)
    progress.done()
    if result is not None:
        emit(args, result)
    return 0

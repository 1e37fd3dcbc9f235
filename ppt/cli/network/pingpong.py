"""``ppt pingpong``: MPI ping-pong between two nodes, through the full MPI layer."""
from __future__ import annotations

from ppt.cli.common import (add_network_argument, add_system_arguments, check_message_sizes, count, load_preset,
                            parse_sizes, SIZES_HELP, whole_number)
from ppt.cli.output import emit

HELP = "one-way MPI latency and bandwidth per message size between two nodes"


def add_arguments(parser) -> None:
    add_system_arguments(parser)
    parser.add_argument("--sizes", default="8,1024,1048576", help=SIZES_HELP + " (default 8,1024,1048576)")
    parser.add_argument("--src", type=count, default=0, help="node of rank 0 (default 0)")
    parser.add_argument("--dst", type=count, default=None, help="node of rank 1 (default 1)")
    parser.add_argument("--repetitions", type=whole_number, default=2, help="round trips per size (default 2)")
    add_network_argument(parser)


def run(args) -> int:
    from ppt.apps.microbench import pingpong
    from ppt.errors import PPTError
    from ppt.machine import Machine
    if args.repetitions < 1:
        raise PPTError(f"--repetitions must be at least 1, got {args.repetitions}")
    sizes = parse_sizes(args.sizes)
    machine = Machine(load_preset(args), args.network, seed=args.seed)
    check_message_sizes(machine, sizes, "--sizes")
    dst = args.dst if args.dst is not None else (1 if args.src != 1 else 0)
    results = pingpong(machine, sizes, args.repetitions, nodes=(args.src, dst))
    if results is None:
        return 0
    rows = [[r["bytes"], r["latency_s"], r["bandwidth_Bps"]] for r in results]
    emit(args, {"system": machine.name, "src": args.src, "dst": dst, "results": results},
         ["bytes", "latency_s", "bandwidth_Bps"], rows, title=f"{machine.name}: node {args.src} <-> node {dst}")
    return 0

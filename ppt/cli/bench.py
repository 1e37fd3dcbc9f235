"""``ppt bench``: speed benchmarks whose figures are ratios measured in the same run."""
from __future__ import annotations

import sys

from ppt.cli.common import positive_number, read_system, seconds, whole_number
from ppt.cli.output import add_json_flag, emit

HELP = "measure simulator speed: engine (PHOLD vs a bare heapq loop) or network (packet-hops/s vs a bare compiled loop)"


def add_arguments(parser) -> None:
    parser.add_argument("target", choices=["engine", "network"], help="what to measure")
    parser.add_argument("--lps", type=whole_number, default=1000, help="engine: PHOLD logical processes (default 1000)")
    parser.add_argument("--end", type=seconds, default=None, metavar="SECONDS",
                        help="engine: simulated end time (default: about 300k events)")
    parser.add_argument("--system", default="torus-16x16x16", help="network: system preset (default torus-16x16x16)")
    parser.add_argument("--load", type=positive_number, default=0.3, help="network: uniform random offered load (default 0.3)")
    parser.add_argument("--warmup", type=seconds, default=2e-6, metavar="S", help="network: warm-up seconds (default 2e-6)")
    parser.add_argument("--time", type=seconds, default=10e-6, metavar="S", help="network: measured seconds (default 10e-6)")
    add_json_flag(parser)


def run(args) -> int:
    from ppt.errors import PPTError
    log = lambda message: print(message, file=sys.stderr)  # noqa: E731
    if args.target == "engine":
        from ppt.apps.phold import PholdParams
        from ppt.bench.engine import measure_engine
        if args.lps < 1:
            raise PPTError(f"--lps must be at least 1, got {args.lps}")
        if args.end == 0:
            raise PPTError("--end must be above 0 simulated seconds")
        end = args.end if args.end is not None else 300_000 / args.lps
        result = measure_engine(PholdParams(num_lps=args.lps, end_s=end), log=log)
    else:
        from ppt.bench.network import measure_network
        from ppt.machine import Machine
        result = measure_network(Machine(read_system(args.system)), args.load, args.warmup, args.time, log=log)
    if result is not None:
        emit(args, result)
    return 0

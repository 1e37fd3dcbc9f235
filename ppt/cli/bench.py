"""``ppt bench``: speed benchmarks whose figures are ratios measured in the same run."""
from __future__ import annotations

import sys

from ppt.cli.common import positive_number, read_system, seconds, whole_number
from ppt.cli.output import add_json_flag, emit

#: Events of the default engine measurement (PHOLD runs about one event per LP per simulated second).
DEFAULT_EVENTS = 300_000
#: Events a measurement needs at least (fewer: nothing to time, or a rate of 0 to divide by).
MIN_EVENTS = 10_000
#: Memory per PHOLD LP while the three measured runs exist (1.4 GB at 100,000 LPs).
BYTES_PER_LP = 16_000

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
        from ppt.interconnects.topologies.registry import _available_bytes
        need, available = args.lps * BYTES_PER_LP, _available_bytes()
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
        result = measure_network(Machine(read_system(args.system)), args.load, args.warmup, args.time, log=log)
    if result is not None:
        emit(args, result)
    return 0

"""``ppt bench``: speed benchmarks whose figures are ratios measured in the same run."""
from __future__ import annotations

import sys

from ppt.cli.output import add_json_flag, emit

HELP = "measure simulator speed (engine: PHOLD vs a bare heapq loop)"


def add_arguments(parser) -> None:
    parser.add_argument("target", choices=["engine"], help="what to measure")
    parser.add_argument("--lps", type=int, default=1000, help="PHOLD logical processes (default 1000)")
    parser.add_argument("--end", type=float, default=None, metavar="SECONDS",
                        help="simulated end time (default: about 300k events)")
    add_json_flag(parser)


def run(args) -> int:
    from ppt.apps.phold import PholdParams, measure_engine
    from ppt.errors import PPTError
    if args.lps < 1:
        raise PPTError(f"--lps must be at least 1, got {args.lps}")
    end = args.end if args.end is not None else 300_000 / args.lps
    result = measure_engine(PholdParams(num_lps=args.lps, end_s=end), log=lambda m: print(m, file=sys.stderr))
    if result is not None:
        emit(args, result)
    return 0

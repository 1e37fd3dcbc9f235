"""``ppt traffic``: synthetic load on a packet network, accepted load and latency."""
from __future__ import annotations

import sys

from ppt.cli.common import add_sampling_arguments, add_system_arguments, load_preset, sampling, seconds
from ppt.cli.output import emit

HELP = "offered vs accepted load under synthetic traffic (ur, nn, bitcomp, transpose, tornado, wc)"


def add_arguments(parser) -> None:
    add_system_arguments(parser)
    parser.add_argument("--pattern", default="ur", help="traffic pattern (default ur)")
    parser.add_argument("--routing", default=None, help="routing algorithm (default: the preset's)")
    parser.add_argument("--load", type=float, required=True, help="offered load, fraction of node bandwidth in (0, 1]")
    parser.add_argument("--warmup", type=seconds, default=20e-6, metavar="S", help="warm-up, seconds (default 20e-6)")
    parser.add_argument("--time", type=seconds, default=100e-6, metavar="S", help="measured window, seconds (default 100e-6)")
    parser.add_argument("--process", default="exponential", choices=["exponential", "bernoulli"],
                        help="injection process (default exponential)")
    add_sampling_arguments(parser)


def run(args) -> int:
    from ppt.interconnects.traffic import run_traffic
    from ppt.machine import Machine
    from ppt.progress import Progress
    machine = Machine(load_preset(args), seed=args.seed)
    progress = Progress(f"traffic {args.system}")
    with sampling(args, machine.name) as sampler:
        result = run_traffic(machine, args.pattern, args.load, args.routing, args.warmup, args.time,
                             args.process, progress, sampler=sampler)
    progress.done()
    if result is not None:
        for key in ("run_s", "core_events", "queue_depth"):   # speed figures, not part of the prediction
            del result[key]
        if result["mean_latency_s"] > args.warmup:
            print(f"warning: mean packet latency {result['mean_latency_s'] * 1e6:.3g} us exceeds the "
                  f"{args.warmup * 1e6:.3g} us warm-up, so the network may still have been filling and the "
                  f"accepted load read low; raise --warmup", file=sys.stderr)
        emit(args, result)
    return 0

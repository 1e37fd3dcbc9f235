"""``ppt traffic``: synthetic load on a packet network, accepted load and latency."""
from __future__ import annotations


from ppt.cli.common import (add_failure_arguments, add_sampling_arguments, add_system_arguments, check_sampling,
                            load_preset, positive_number, sampling, seconds, whole_number)
from ppt.cli.output import emit
from ppt.log import logger

#: Sub-windows at most: each is run and checked in turn, so a typo such as --windows 1000000000 would
#: spin for ever on windows far shorter than a packet's flight.
MAX_WINDOWS = 10_000

HELP = "offered vs accepted load under synthetic traffic (ur, nn, bitcomp, transpose, tornado, wc, hotspot)"


def add_arguments(parser) -> None:
    add_system_arguments(parser)
    parser.add_argument("--pattern", default="ur", help="traffic pattern (default ur)")
    parser.add_argument("--routing", default=None, help="routing algorithm (default: the preset's)")
    parser.add_argument("--load", type=positive_number, required=True, help="offered load, fraction of node bandwidth in (0, 1]")
    parser.add_argument("--warmup", type=seconds, default=20e-6, metavar="T",
                        help="warm-up, in seconds or with a unit such as 20us (default 20e-6)")
    parser.add_argument("--time", type=seconds, default=100e-6, metavar="T",
                        help="measured window, in seconds or with a unit such as 100us (default 100e-6)")
    parser.add_argument("--process", default="exponential", choices=["exponential", "bernoulli"],
                        help="injection process (default exponential)")
    parser.add_argument("--windows", type=whole_number, default=10, metavar="N",
                        help="split the measured window into N sub-windows, checked for saturation (default 10)")
    parser.add_argument("--latency-factor", type=positive_number, default=2.0, metavar="F",
                        help="saturated when window latency keeps rising to F x the first window's (default 2)")
    parser.add_argument("--converge", type=positive_number, default=None, metavar="REL",
                        help="stop once accepted load and latency are known to within REL of their means "
                             "(95%% confidence over the sub-windows, so --windows 2 or more), e.g. 0.02")
    parser.add_argument("--no-early-stop", dest="early_stop", action="store_false",
                        help="measure every sub-window even when saturated or converged")
    add_failure_arguments(parser)
    add_sampling_arguments(parser)


def run(args) -> int:
    from ppt.drivers.traffic import run_traffic
    from ppt.machine import Machine
    from ppt.progress import Progress
    check_measurement(args)
    check_sampling(args)
    machine = Machine(load_preset(args), seed=args.seed)
    progress = Progress(f"traffic {args.system}", total_s=args.warmup + args.time)
    with sampling(args, machine.name) as sampler:
        if sampler is not None:           # named in the figures' titles (ppt plot)
            sampler.workload = {"pattern": args.pattern, "load": args.load,
                                "routing": args.routing or machine.network_settings.routing}
        result = run_traffic(machine, args.pattern, args.load, args.routing, args.warmup, args.time,
                             args.process, progress, sampler=sampler, windows=args.windows,
                             early_stop=args.early_stop, latency_factor=args.latency_factor,
                             precision=args.converge)
    progress.done()
    if result is not None:
        for key in SPEED_FIELDS:
            del result[key]
        if result["saturated"] or result["stopped_early"]:
            span = (f"stopped early after {result['measured_s'] * 1e6:.3g} of {args.time * 1e6:.3g} us"
                    if result["stopped_early"] else f"measured all {args.time * 1e6:.3g} us (--no-early-stop)")
            logger.info(f"{result['stopped_early'] or 'saturated'}: {result['stop_reason']}; {span}")
        if result["mean_latency_s"] > args.warmup and not result["saturated"]:
            logger.warning(f"warning: mean packet latency {result['mean_latency_s'] * 1e6:.3g} us exceeds the "
                           f"{args.warmup * 1e6:.3g} us warm-up, so the network may still have been filling and "
                           f"the accepted load read low; raise --warmup")
        emit(args, result)
    return 0


#: Fields of a traffic result about the simulator's speed, not part of the prediction (left out of the output).
SPEED_FIELDS = ("run_s", "core_events", "queue_depth")


def check_measurement(args) -> None:
    """ConfigError, before the run, for measurement options that cannot work together: ``args`` has
    ``latency_factor``, ``converge``, ``windows`` and ``early_stop`` (the command's and :mod:`ppt.api`'s check)."""
    from ppt.errors import ConfigError
    if not args.latency_factor > 1.0:
        raise ConfigError(f"--latency-factor must be above 1, got {args.latency_factor}")
    if args.converge is not None and not 0.0 < args.converge < 1.0:
        raise ConfigError(f"--converge must be a fraction in (0, 1), e.g. 0.02, got {args.converge}")
    if args.windows > MAX_WINDOWS:
        raise ConfigError(f"--windows {args.windows:,}: at most {MAX_WINDOWS:,} sub-windows (each is checked in "
                          f"turn; the default is 10)")
    if args.converge is not None and args.windows < 2:
        raise ConfigError(f"--converge needs at least 2 sub-windows to estimate a confidence interval, "
                          f"got --windows {args.windows}; raise --windows (default 10) or drop --converge")
    if args.converge is not None and not args.early_stop:
        raise ConfigError("--converge stops early once converged, --no-early-stop never stops early; keep one")

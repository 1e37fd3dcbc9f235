"""Arguments shared by subcommands."""
from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys

from ppt.cli.output import add_json_flag


def add_system_arguments(parser, positional: bool = True) -> None:
    """SYSTEM (preset name or .json file), ``--set key=value`` overrides and ``--json``."""
    if positional:
        parser.add_argument("system", metavar="SYSTEM", help="system preset name (see 'ppt systems') or a .json preset file")
    else:
        parser.add_argument("--system", required=True, metavar="SYSTEM", help="system preset name or .json file")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override a preset field, e.g. --set network.routing=val (repeatable)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    add_json_flag(parser)


def add_network_argument(parser) -> None:
    """``--network KIND`` (default packet); the machine checks the name against the registered kinds."""
    parser.add_argument("--network", default="packet", metavar="KIND",
                        help="network model: packet (packet level, default), flow (max-min fair sharing of links "
                             "and NICs) or analytic (contention-free)")


def pick_network(args, packet_hops) -> str:
    """The network kind to run: ``args.network``, or for ``auto`` the packet network unless
    ``packet_hops()`` (its estimated packet-hops) exceeds the budget of
    :mod:`ppt.interconnects.autochoice`; the choice and its reason go to stderr in one line.
    Sampling (``--sample-every``) observes the packet network, so it makes ``auto`` choose it."""
    if args.network != "auto":
        return args.network
    if getattr(args, "sample_every", None) is not None:
        return "packet"
    from ppt.interconnects.autochoice import choose
    kind, reason = choose(packet_hops())
    if is_leader() and not os.environ.get("PPT_QUIET"):
        print(f"network: {reason}", file=sys.stderr)
    return kind


def add_failure_arguments(parser) -> None:
    """``--fail-links``, ``--fail-class``, ``--fail-seed``, ``--fail-file``: the preset's
    ``network.fail_*`` keys (see :mod:`ppt.interconnects.failures`)."""
    parser.add_argument("--fail-links", default=None, metavar="PCT",
                        help="fail this share of router-to-router links at random, e.g. 5%% (network.fail_links)")
    parser.add_argument("--fail-class", default=None, choices=["all", "local", "global"],
                        help="which links --fail-links draws from (default all; network.fail_class)")
    parser.add_argument("--fail-seed", type=int, default=None, metavar="N",
                        help="seed of the failure draw (default 0; network.fail_seed)")
    parser.add_argument("--fail-file", default=None, metavar="FILE",
                        help="fail the links listed in FILE, one 'ROUTER PORT' per line (network.fail_file)")


def load_preset(args) -> dict:
    """The system preset of ``args``, with its ``--set`` overrides and any ``--fail-*`` flags applied."""
    from ppt.hardware.systems import load_system
    preset = load_system(args.system, args.overrides)
    for key in ("fail_links", "fail_class", "fail_seed", "fail_file"):
        if getattr(args, key, None) is not None:
            preset["network"][key] = getattr(args, key)
    return preset


def parse_sizes(text: str) -> list[int]:
    """``8,1024,1M`` -> byte counts (k, M, G suffixes are powers of 1024)."""
    from ppt.errors import PPTError
    scale = {"k": 1 << 10, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    sizes = []
    for item in text.split(","):
        item = item.strip()
        try:
            value = int(item[:-1]) * scale[item[-1]] if item and item[-1] in scale else int(item)
        except ValueError:
            raise PPTError(f"bad size {item!r}: give byte counts like 8,1024,1M") from None
        if value < 0:
            raise PPTError(f"bad size {item!r}: sizes must not be negative")
        sizes.append(value)
    return sizes


def whole_number(text: str) -> int:
    """argparse type: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, got {text!r}")
    return value


def seconds(text: str) -> float:
    """argparse type: a finite, non-negative time in seconds."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 <= value < math.inf:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds >= 0, got {text!r}")
    return value


def add_job_arguments(parser) -> None:
    """How an MPI job's ranks are placed on nodes: ``--ranks-per-node`` and ``--mapping``."""
    parser.add_argument("--ranks-per-node", type=whole_number, default=None,
                        help="ranks per node (default: one per core)")
    parser.add_argument("--mapping", default="linear", metavar="linear|round-robin|random|FILE",
                        help="rank-to-node mapping (random uses --seed; FILE lists one node per rank)")


def is_leader() -> bool:
    """True on the one process that prints results: serial runs, or simulation rank 0 under mpiexec."""
    from ppt.engine.parallel import launched_rank
    return launched_rank() == 0


def add_sampling_arguments(parser) -> None:
    """``--sample-every S``, ``--samples FILE.npz`` and ``--sample-level port|router``."""
    parser.add_argument("--sample-every", type=seconds, default=None, metavar="S",
                        help="record per-port and per-NIC time series every S simulated seconds (packet network)")
    parser.add_argument("--samples", default="samples.npz", metavar="FILE.npz",
                        help="where --sample-every writes (default samples.npz; read it with 'ppt plot')")
    parser.add_argument("--sample-level", default="port", choices=["port", "router"],
                        help="port: every router port and NIC; router: summed per router and link class")


@contextlib.contextmanager
def sampling(args, system: str):
    """The run's :class:`~ppt.interconnects.sampling.Sampler` (None without ``--sample-every``).

    Every rank must leave the block normally for the file to be written (the
    leader reports it on stderr); on an error the partial file is removed."""
    if args.sample_every is None:
        yield None
        return
    from ppt.cli.output import check_writable
    from ppt.interconnects.sampling import Sampler
    check_writable(args.samples, "--samples")
    sampler = Sampler(args.samples, args.sample_every, args.sample_level, system)
    try:
        yield sampler
    except BaseException:
        sampler.abort()
        raise
    if sampler.net is None:
        return
    info = sampler.close()
    if info is not None:
        print(f"samples: {info['samples']} every {args.sample_every:g} s in {info['sample_file']} "
              f"({info['sample_bytes'] / 1e6:.3g} MB)", file=sys.stderr)


def report_placement(job) -> None:
    """Say on stderr how many nodes the job's mapping used (not under ``PPT_QUIET``), and warn when it put a
    multi-rank job on one node (called after the run, so an error stays the only line)."""
    if not is_leader():
        return
    nodes = len(set(job.node_of))
    if not os.environ.get("PPT_QUIET"):
        print(f"{job.num_ranks} ranks on {nodes} node{'s' if nodes != 1 else ''} "
              f"(at most {job.ranks_per_node} per node)", file=sys.stderr)
    if nodes == 1 and job.num_ranks > 1:
        print("warning: the whole job sits on one node, so every message is a same-node copy; "
              "use --ranks-per-node to spread it", file=sys.stderr)

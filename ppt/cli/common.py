"""Arguments shared by subcommands."""
from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
from pathlib import Path

from ppt import plotstyle
from ppt.cli.output import add_json_flag
from ppt.errors import PPTError
from ppt.log import logger
from ppt.textfile import read_text_bytes


def add_system_arguments(parser, positional: bool = True, required: bool = True) -> None:
    """SYSTEM (preset name or .json file), ``--set key=value`` overrides and ``--json``; ``required``: whether
    ``--system`` (not positional) must be given (a command that takes a stand-in checks it itself)."""
    if positional:
        parser.add_argument("system", metavar="SYSTEM", help="system preset name (see 'ppt systems') or a .json preset file")
    else:
        parser.add_argument("--system", required=required, metavar="SYSTEM", help="system preset name or .json file")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override a preset field, e.g. --set network.routing=val (repeatable)")
    parser.add_argument("--seed", type=count, default=0, help="random seed (default 0)")
    add_json_flag(parser)


def add_network_argument(parser) -> None:
    """``--network KIND`` (default packet); the machine checks the name against the registered kinds."""
    parser.add_argument("--network", default="packet", metavar="KIND",
                        help="network model: packet (packet level, default), flow (max-min fair sharing of links "
                             "and NICs) or analytic (contention-free)")


def pick_network(args, packet_hops) -> str:
    """The network kind to run: ``args.network``, or for ``auto`` the packet network unless
    ``packet_hops()`` (its estimated traffic, an :class:`~ppt.drivers.autochoice.Estimate` or a
    number of packet-hops) exceeds the budget of
    :mod:`ppt.drivers.autochoice`; the choice and its reason are one note of the ``ppt`` logger.
    Sampling (``--sample-every``) observes the packet network, so it makes ``auto`` choose it."""
    if args.network != "auto":
        return args.network
    if getattr(args, "sample_every", None) is not None:
        return "packet"
    from ppt.drivers.autochoice import choose
    kind, reason = choose(packet_hops())
    if is_leader() and not os.environ.get("PPT_QUIET"):
        logger.info(f"network: {reason}")
    return kind


def add_failure_arguments(parser) -> None:
    """``--fail-links``, ``--fail-class``, ``--fail-seed``, ``--fail-file``: the preset's
    ``network.fail_*`` keys (see :mod:`ppt.interconnects.topologies.failures`)."""
    parser.add_argument("--fail-links", default=None, metavar="PCT",
                        help="fail this share of router-to-router links at random, e.g. 5%% (network.fail_links)")
    parser.add_argument("--fail-class", default=None, choices=["all", "local", "global"],
                        help="which links --fail-links draws from (default all; network.fail_class)")
    parser.add_argument("--fail-seed", type=count, default=None, metavar="N",
                        help="seed of the failure draw (default 0; network.fail_seed)")
    parser.add_argument("--fail-file", default=None, metavar="FILE",
                        help="fail the links listed in FILE, one 'ROUTER PORT' per line (network.fail_file)")


def load_preset(args) -> dict:
    """The system preset of ``args``, with its ``--set`` overrides and any ``--fail-*`` flags applied."""
    preset = read_system(args.system, args.overrides)
    for key in ("fail_links", "fail_class", "fail_seed", "fail_file"):
        if getattr(args, key, None) is not None:
            preset["network"][key] = getattr(args, key)
    idle = [f"--{key.replace('_', '-')}" for key in ("fail_class", "fail_seed") if getattr(args, key, None) is not None]
    if idle and preset["network"].get("fail_links") is None:
        raise PPTError(f"{' and '.join(idle)} without --fail-links draws no failures; add --fail-links PCT "
                       f"(e.g. 5%) or drop {' and '.join(idle)}")
    return preset


def read_system(name_or_path: str, overrides=()) -> dict:
    """:func:`~ppt.hardware.systems.load_system`, after checking that a preset file the user named (and a
    processor file it names) can be read as text, so a folder, a binary or an unreadable file is one line."""
    from ppt.hardware.systems import load_system, system_path
    if _names_a_file(name_or_path) and Path(name_or_path).is_dir():
        check_input_file(name_or_path, "system file")          # a folder: said as such, not 'unknown system'
    check_input_file(str(system_path(name_or_path)), "system file")   # also a user preset found by name
    preset = load_system(name_or_path, overrides)
    processor = (preset.get("node") or {}).get("processor") if isinstance(preset.get("node"), dict) else None
    if isinstance(processor, str) and _names_a_file(processor):
        check_input_file(processor, "processor file")
    return preset


def _names_a_file(name: str) -> bool:
    """True for a preset argument that is a path (a .json name or one with a folder), not a built-in name."""
    return name.endswith(".json") or os.sep in name


#: What a TRACE argument takes (every format ``ppt.traces.formats`` reads).
TRACE_HELP = ("a trace in any format ppt reads: a DUMPI set (its folder, .meta file or file prefix), an OTF2 "
              "archive (traces.otf2 or its folder), a GOAL file (.goal), Chakra ET files (<prefix>.<rank>.et or "
              "their folder) or an op-stream folder")


def add_reader_arguments(parser) -> None:
    """The options that tell a trace reader how to read (taken by the formats that need them)."""
    parser.add_argument("--comm-groups", default=None, metavar="FILE.json",
                        help="Chakra: the process groups the collectives' pg_name attributes name, as "
                             "ASTRA-sim's --comm-group-configuration JSON ({\"1\": [0, 1], ...})")
    parser.add_argument("--chakra-overlap", action="store_true",
                        help="Chakra: run each rank's communication nodes beside its compute nodes, as a GPU "
                             "overlaps NCCL with its kernels (each Chakra rank becomes two simulated ranks)")


def reader_options(args) -> dict:
    """The reader options of :func:`add_reader_arguments`, for :func:`ppt.traces.formats.open_trace`."""
    return {"comm_groups": args.comm_groups, "overlap": args.chakra_overlap}


def check_input_file(path: str, what: str) -> None:
    """PPTError if ``path`` exists but cannot be read as UTF-8 text (a folder, a binary file, no
    permission): one line, where reading it would raise deep inside.  A missing file passes, for
    the reader to say it is missing in its own words."""
    data = read_text_bytes(path, what)
    if data is None:
        return
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PPTError(f"{what} {path}: is not UTF-8 text (byte {exc.start} is 0x{data[exc.start]:02x})") from None


#: What ``--sizes`` takes, for its help text.
SIZES_HELP = ("message sizes in bytes, comma-separated; k, M and G alone are powers of 1024 as in MPI "
              "benchmarks (1k = 1024), kB, MB and GB powers of 1000, KiB, MiB and GiB powers of 1024")

#: ``--sizes`` suffixes without a B: powers of 1024, as the OSU and Intel MPI benchmarks count.
_BINARY = {"k": 1 << 10, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_sizes(text: str) -> list[int]:
    """``8,1k,4M,4kB`` -> byte counts: a bare k, M or G is a power of 1024 (see :data:`SIZES_HELP`),
    other units as :func:`ppt.units.parse_quantity` reads them (kB = 1000 B, KiB = 1024 B)."""
    from ppt.units import parse_quantity
    sizes = []
    for item in text.split(","):
        item = item.strip()
        try:
            value = int(item[:-1]) * _BINARY[item[-1]] if item and item[-1] in _BINARY else int(item)
        except ValueError:
            try:
                value = parse_quantity(item, "size", "size")
            except PPTError:
                raise PPTError(f"bad size {item!r}: give byte counts like 8,1k,4M (k, M, G: powers of 1024) "
                               f"or 4kB, 4KiB") from None
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


def count(text: str) -> int:
    """argparse type: an integer >= 0 (a seed, a node number, a byte count)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text!r}")
    return value


def positive_number(text: str) -> float:
    """argparse type: a finite number above 0 (a load, a factor); the option's own check bounds it above."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text!r}")
    return value


def seconds(text: str) -> float:
    """argparse type: a finite, non-negative time, in seconds or with a unit (``2us``, ``1.5 ns``)."""
    from ppt.units import parse_quantity
    try:
        value = parse_quantity(text, "time", "time")
    except PPTError:
        value = math.nan
    if not 0.0 <= value < math.inf:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds >= 0 or a time with a unit "
                                         f"(2e-6, 2us, 500ns), got {text!r}")
    return value


#: Resolution of the PNG figures unless ``--dpi`` says otherwise: the figure style's, sharp in a paper and on a screen.
DEFAULT_DPI = plotstyle.DPI


class _Dpi(argparse.Action):
    """Stores ``--dpi`` and notes that it was given (see :func:`check_dpi`)."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        namespace.dpi_given = True


def add_dpi_option(parser, default=DEFAULT_DPI, figure: str = "the --plot PNG") -> None:
    """``--dpi N``: the resolution of the command's PNG ``figure``."""
    parser.add_argument("--dpi", type=whole_number, default=default, metavar="N", action=_Dpi,
                        help=f"resolution of {figure} in dots per inch (default {DEFAULT_DPI})")


def check_dpi(args) -> None:
    """PPTError if ``--dpi`` was given to a command whose figure is drawn only with ``--plot``, without it."""
    if getattr(args, "dpi_given", False) and hasattr(args, "plot") and not args.plot:
        raise PPTError(f"--dpi {args.dpi} without --plot: --dpi sets the resolution of the --plot figure; "
                       "give --plot FILE.png too, or drop --dpi")


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
                        help="record per-port and per-NIC time series every S simulated seconds, or e.g. 1us "
                             "(packet network)")
    parser.add_argument("--samples", default=None, metavar="FILE.npz",
                        help=f"where --sample-every writes (default {DEFAULT_SAMPLES}; read it with 'ppt plot')")
    parser.add_argument("--sample-level", default=None, choices=["port", "router"],
                        help="port: every router port and NIC (default); router: summed per router and link class")


#: Where ``--sample-every`` writes without ``--samples``.
DEFAULT_SAMPLES = "samples.npz"


def check_sampling(args) -> None:
    """PPTError if a sampling option comes without ``--sample-every`` (it would do nothing), or the sample
    file cannot be written; fills in the defaults.  Call it before the run (``sampling`` calls it too)."""
    if getattr(args, "sample_every", None) is None:
        given = [option for option, value in (("--samples", getattr(args, "samples", None)),
                                              ("--sample-level", getattr(args, "sample_level", None)))
                 if value is not None]
        if given:
            raise PPTError(f"{' and '.join(given)} without --sample-every records nothing; add --sample-every S "
                           f"(e.g. 1e-6) or drop {' and '.join(given)}")
        return
    from ppt.cli.output import check_writable
    args.samples = args.samples or DEFAULT_SAMPLES
    args.sample_level = args.sample_level or "port"
    check_writable(args.samples, "--samples")


@contextlib.contextmanager
def sampling(args, system: str):
    """The run's :class:`~ppt.drivers.sampling.Sampler` (None without ``--sample-every``).

    Every rank must leave the block normally for the file to be written (the
    leader notes it on the ``ppt`` logger); on an error the partial file is removed."""
    check_sampling(args)
    if args.sample_every is None:
        yield None
        return
    from ppt.drivers.sampling import Sampler
    sampler = Sampler(args.samples, args.sample_every, args.sample_level, system)
    try:
        yield sampler
    except OSError as exc:            # writing the samples failed (a full disk): the run has no result
        sampler.abort()
        if not _raised_in(exc, sys.modules[Sampler.__module__].__file__):
            raise                     # not the sampler's: some other file of the run
        raise PPTError(f"--samples {args.samples}: cannot write the samples: {exc.strerror or exc}; "
                       f"nothing was written") from None
    except BaseException:
        sampler.abort()
        raise
    if sampler.net is None:
        return
    try:
        info = sampler.close()
    except OSError as exc:            # the writer removed its partial file
        sampler.abort()
        raise PPTError(f"--samples {args.samples}: cannot write the samples: {exc.strerror or exc}; "
                       f"nothing was written") from None
    if info is not None:
        logger.info(f"samples: {info['samples']} every {args.sample_every:g} s in {info['sample_file']} "
                    f"({info['sample_bytes'] / 1e6:.3g} MB)")


def _raised_in(exc: BaseException, source: str) -> bool:
    """True if ``exc`` passed through code of the file ``source``."""
    import traceback
    return any(frame.filename == source for frame in traceback.extract_tb(exc.__traceback__))


def report_placement(job, machine=None) -> None:
    """Note on the ``ppt`` logger how many nodes the job's mapping used (not under ``PPT_QUIET``), and warn when
    it put a multi-rank job on one node, or more ranks on the ``host`` preset than the host has cores (called
    after the run, so an error stays the only line)."""
    if not is_leader():
        return
    note, *warnings = placement_notes(job, machine)
    if not os.environ.get("PPT_QUIET"):
        logger.info(note)
    for warning in warnings:
        logger.warning(warning)


def placement_notes(job, machine=None) -> list[str]:
    """How many nodes the job's mapping used, then a warning if it put a multi-rank job on one node, or more
    ranks on ``machine``, the ``host`` preset, than the host has cores."""
    nodes = len(set(job.node_of))
    notes = [f"{job.num_ranks} ranks on {nodes} node{'s' if nodes != 1 else ''} (at most {job.ranks_per_node} per node)"]
    if machine is not None and machine.name == "host" and job.num_ranks > machine.cores_per_node:
        cores = machine.cores_per_node
        notes.append(f"warning: {job.num_ranks} ranks on the host preset of this {cores}-core machine: the "
                     f"prediction gives every rank a core of its own, on {-(-job.num_ranks // cores)} model nodes "
                     f"joined by the preset's same-node copy costs, while a real run of {job.num_ranks} ranks "
                     f"here shares the {cores} cores; predict at most {cores} ranks to compare with this host")
    if nodes == 1 and job.num_ranks > 1:
        notes.append("warning: the whole job sits on one node, so every message is a same-node copy; "
                     "use --ranks-per-node to spread it")
    return notes


def check_message_sizes(machine, sizes, option: str) -> None:
    """ConfigError, before the run, when the packet network cannot hold the largest of ``sizes``
    (bytes per message) in this machine's memory or its packet counts (see
    :func:`ppt.interconnects.topologies.registry.refuse_if_message_too_large`); other networks hold no packets."""
    if machine.network_kind != "packet" or not sizes:
        return
    from ppt.interconnects.topologies.registry import refuse_if_message_too_large
    largest = max(sizes)
    refuse_if_message_too_large(machine.network_settings, largest, option)


#: ``--mapping`` values that are not file names.
MAPPINGS = ("linear", "round-robin", "random")


def check_mapping_file(args) -> None:
    """PPTError if ``--mapping FILE`` names a file that cannot be read as text (see :func:`check_input_file`)."""
    mapping = getattr(args, "mapping", None)
    if mapping and mapping not in MAPPINGS:
        check_input_file(mapping, "--mapping")

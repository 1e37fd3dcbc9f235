"""``ppt plot FILE.npz``: figures of a sample file written with ``--sample-every``.

Writes ``PREFIX-utilization.png`` (link utilization over time per link
class), ``PREFIX-occupancy.png`` (router-group by time heatmap of queued
bytes), ``PREFIX-groups.png`` (traffic between router groups, grouped
topologies only) and ``PREFIX-latency.png`` (packet and message latency
CDFs); PREFIX defaults to the sample file's name without ``.npz``.
"""
from __future__ import annotations

from pathlib import Path

from ppt.cli.output import add_json_flag, check_writable, emit

HELP = "draw a sample file (from --sample-every) as PNG figures"


def add_arguments(parser) -> None:
    parser.add_argument("samples", metavar="FILE.npz", help="sample file written by --sample-every")
    parser.add_argument("--out", default=None, metavar="PREFIX",
                        help="figures go to PREFIX-NAME.png (default: the sample file without .npz)")
    add_json_flag(parser)


def run(args) -> int:
    from ppt.interconnects.sample_plots import draw_all
    from ppt.interconnects.sampling import read_samples
    meta, arrays = read_samples(args.samples)
    prefix = args.out or str(Path(args.samples).with_suffix(""))
    check_writable(f"{prefix}-utilization.png", "--out")
    written = draw_all(meta, arrays, prefix)
    emit(args, {"figures": written}, ["figure"], [[path] for path in written])
    return 0

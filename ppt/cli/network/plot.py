"""``ppt plot FILE.npz``: figures of a sample file written with ``--sample-every``.

Writes ``PREFIX-utilization.png`` (link utilization over time per link
class), ``PREFIX-occupancy.png`` (router-group by time heatmap of queued
bytes), ``PREFIX-groups.png`` (traffic between router groups, grouped
topologies only) and ``PREFIX-latency.png`` (packet and message latency
CDFs); PREFIX defaults to the sample file's name without ``.npz``.
Titles name the system and the workload (pattern, routing and load of
``ppt traffic``; program and ranks of ``ppt run``).  Utilization, per link
class and between groups, is on a fixed 0..1 scale; given several sample
files (``ppt plot wc-min.npz wc-ugal.npz``), their figures also share the
occupancy colour scale and the time and latency axes, so they compare.
The figures are drawn in a temporary folder beside them and moved into
place only once all are drawn, so a failed write (a full disk) leaves none.

Given results instead (``ppt plot result.json``: the ``--json`` output of a
run with ``network.traffic_classes`` > 1), writes ``PREFIX-classes.png``:
each traffic class's delivered throughput and packet latencies
(:mod:`ppt.drivers.class_plots`).
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from ppt.cli.common import add_dpi_option
from ppt.cli.output import add_json_flag, check_writable, emit
from ppt.errors import PPTError

HELP = "draw a sample file (from --sample-every) as PNG figures"


def add_arguments(parser) -> None:
    parser.add_argument("samples", metavar="FILE.npz", nargs="+",
                        help="sample file(s) written by --sample-every; several share their figures' scales "
                             "(or results written by --json: their per-class figures)")
    parser.add_argument("--out", default=None, metavar="PREFIX",
                        help="figures go to PREFIX-NAME.png (default: the sample file without .npz; "
                             "one sample file only)")
    add_dpi_option(parser, figure="the PNG figures")
    add_json_flag(parser)


def _readable(name: str) -> Path:
    source = Path(name)
    if source.is_dir():
        raise PPTError(f"{name}: is a folder, not a sample file; give the FILE.npz written by --samples")
    if not source.exists():
        raise PPTError(f"{name}: no such file; make one with --sample-every S --samples FILE.npz")
    try:
        with open(source, "rb"):
            pass
    except OSError as exc:
        raise PPTError(f"{name}: cannot be read: {exc.strerror or exc}") from None
    return source


def run(args) -> int:
    from ppt.drivers.sample_plots import shared_scales
    from ppt.drivers.sampling import read_samples
    if args.out and len(args.samples) > 1:
        raise PPTError("--out names the figures of one sample file; without it each file's figures go beside it")
    sources = [_readable(name) for name in args.samples]
    prefixes = [args.out or str(source.with_suffix("")) for source in sources]
    option = "--out" if args.out else "figure"      # beside the sample file
    if any(source.suffix == ".json" for source in sources):
        return _plot_classes(args, sources, prefixes, option)
    for prefix in prefixes:
        check_writable(f"{prefix}-utilization.png", option)
    files = [read_samples(str(source)) for source in sources]
    scales = shared_scales(files)
    written = []
    for (meta, arrays), prefix in zip(files, prefixes):
        written += _draw(meta, arrays, prefix, option, scales, args.dpi)
    emit(args, {"figures": written}, ["figure"], [[path] for path in written])
    return 0


def _draw(meta, arrays, prefix: str, option: str, scales: dict, dpi: int) -> list[str]:
    from ppt.drivers.sample_plots import draw_all
    try:
        scratch = Path(tempfile.mkdtemp(prefix=".ppt-plot-", dir=Path(prefix).parent))
    except OSError as exc:
        raise PPTError(f"{option} {prefix}: cannot write there ({exc.strerror or exc})") from None
    drafts = str(scratch / Path(prefix).name)
    written = []
    try:
        for path in draw_all(meta, arrays, drafts, scales, dpi):   # every figure drawn before any is moved into place
            written.append(prefix + path[len(drafts):])
            os.replace(path, written[-1])
    except OSError as exc:
        for path in written:
            Path(path).unlink(missing_ok=True)
        raise PPTError(f"{option} {prefix}: cannot write the figures ({exc.strerror or exc}); "
                       f"none was written") from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return written


def _plot_classes(args, sources: list[Path], prefixes: list[str], option: str) -> int:
    """``ppt plot RESULT.json ...``: each result's per-class figure, PREFIX-classes.png."""
    import json
    from ppt.atomicfile import atomic_output
    from ppt.drivers.class_plots import class_table, draw_classes, title
    if any(source.suffix != ".json" for source in sources):
        raise PPTError("give sample files (.npz) or results (.json) to one ppt plot, not both")
    written = []
    for source, prefix in zip(sources, prefixes):
        try:
            result = json.loads(source.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise PPTError(f"{source}: not a result written by --json ({exc})") from None
        classes = class_table(result, str(source))
        written.append(f"{prefix}-classes.png")
        check_writable(written[-1], option)
        with atomic_output(written[-1], option) as path:
            draw_classes(classes, title(result), path, args.dpi)
    emit(args, {"figures": written}, ["figure"], [[path] for path in written])
    return 0

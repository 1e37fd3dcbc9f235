"""``ppt sweep COMMAND ...``: run a command over a parameter grid and tabulate (and plot) the results.

    ppt sweep traffic slimfly-3k --pattern wc --set network.routing=min,ugal --loads 0.1,0.5 \\
        --out sweep-sf --jobs 2 --plot sweep-sf.png

Every ``--set KEY=V1,V2,...`` with several values and ``--loads`` (traffic's
``--load``) is an axis; the grid is every combination of their values, and
each combination runs as ``ppt COMMAND ... --set KEY=V ... --json`` in its own
process.  Every other argument goes to the command as written.  With
``--out DIR`` each finished point is kept as a JSON file and the table as
``DIR/sweep.csv``; rerunning the same sweep with the same ``--out`` runs only
the points not yet there.  ``--plot``, ``--json`` and ``--set`` anywhere on
the line are the sweep's (each point still gets its ``--set`` values).
"""
from __future__ import annotations

import argparse
from pathlib import Path

from ppt.cli.common import whole_number
from ppt.cli.output import atomic_output, check_writable, emit
from ppt.errors import ConfigError, PPTError

HELP = "run traffic, run, replay or snap over a grid of --set values and loads; CSV, table and plot"

COMMANDS = ("traffic", "run", "replay", "snap")
CSV_NAME = "sweep.csv"


def _sweep_options(parser, defaults: bool) -> None:
    """The sweep's own options (also recognised after COMMAND, among the command's arguments)."""
    default = (lambda value: value) if defaults else (lambda value: None)
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=V1,V2,...",
                        help="an axis of the grid (several values) or a fixed override (one value); repeatable")
    parser.add_argument("--loads", default=None, metavar="L1,L2,...", help="traffic: offered loads to sweep")
    parser.add_argument("--jobs", type=whole_number, default=default(1), metavar="N",
                        help="points run at a time, each in its own process (default 1)")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="keep each point's result in DIR (a rerun resumes) and the table as DIR/sweep.csv")
    parser.add_argument("--plot", default=None, metavar="FILE.png",
                        help="plot every metric against the swept parameter, one line per other combination")
    parser.add_argument("--x", default=None, metavar="COLUMN",
                        help="the plot's horizontal axis (default: load if swept, else the last --set axis)")
    parser.add_argument("--json", action="store_true", default=default(False),
                        help="print one JSON object (the rows) on stdout")


def add_arguments(parser) -> None:
    _sweep_options(parser, defaults=True)
    parser.add_argument("command", choices=COMMANDS, metavar="COMMAND",
                        help=f"the command to sweep: {', '.join(COMMANDS)}")
    parser.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS",
                        help="the command's arguments (see 'ppt COMMAND --help'), sweep options among them")


def _options(args) -> argparse.Namespace:
    """The sweep options given before and after COMMAND; ``args.args`` keeps only the command's own."""
    from ppt.cli.main import _Parser
    inner = _Parser(prog="ppt sweep", allow_abbrev=False, add_help=False)
    _sweep_options(inner, defaults=False)
    after, base = inner.parse_known_args(args.args)
    for name, value in vars(after).items():
        if name == "sets":
            args.sets = args.sets + value
        elif value is not None:
            setattr(args, name, value)
    args.args = base
    return args


def _check_points(points) -> None:
    """Before anything runs: every point's command line parses, names a valid preset, and its
    topology builds (so misspelled or impossible topology values are refused up front)."""
    import json

    from ppt.cli.common import load_preset
    from ppt.cli.main import build_parser
    from ppt.interconnects.registry import build_topology
    from ppt.interconnects.planes import RailPolicy, check_planes
    parser = build_parser()
    presets, topologies = set(), set()
    for point in points:
        point_args = parser.parse_args([*point.argv, "--json"])
        if (point_args.system, tuple(point_args.overrides)) in presets:
            continue
        presets.add((point_args.system, tuple(point_args.overrides)))
        preset = load_preset(point_args)
        topology = preset["topology"]
        planes = RailPolicy.from_cfg(preset.get("network") or {}).planes
        if json.dumps([topology, planes], sort_keys=True) not in topologies:
            topologies.add(json.dumps([topology, planes], sort_keys=True))
            check_planes(build_topology(topology), planes)


def run(args) -> int:
    from ppt.progress import PointProgress
    from ppt.sweep.grid import LOAD, Grid
    from ppt.sweep.runner import Runner
    from ppt.sweep.store import PointStore, check_folder, write_atomic
    from ppt.sweep.table import columns_of, rows_of, to_csv, varying
    _refuse_under_mpiexec()
    args = _options(args)
    grid = Grid(args.sets, args.loads)
    if args.loads is not None and args.command != "traffic":
        raise ConfigError(f"--loads sweeps traffic's --load; sweep {args.command} with --set KEY=V1,V2,...")
    if args.loads is not None and any(a == "--load" or a.startswith("--load=") for a in args.args):
        raise ConfigError("give --loads (swept) or --load (fixed), not both")
    points = grid.points(args.command, args.args)
    _check_points(points)
    params = [axis.name for axis in grid.axes]
    x = args.x or (LOAD if LOAD in params else (params[-1] if params else None))
    if args.x and not args.plot:
        raise ConfigError(f"--x {args.x} picks the plot's horizontal axis; add --plot FILE.png or drop --x")
    if args.plot:
        if x is None:
            raise ConfigError("--plot needs a swept parameter (--set KEY=V1,V2,... or --loads) or --x COLUMN")
        check_writable(args.plot)
    if args.out:
        check_folder(args.out)
    store = PointStore(args.out) if args.out else None
    results = Runner(args.jobs, store, PointProgress(f"sweep {args.command}")).run(points)
    rows = [row for point, result in zip(points, results)
            for row in rows_of({a.name: a.typed(point.params[a.name]) for a in grid.axes}, result)]
    csv_path = str(Path(args.out) / CSV_NAME) if args.out else None
    if csv_path:
        write_atomic(Path(csv_path), to_csv(rows))
    columns = columns_of(rows)
    shown = params + [c for c in varying(rows, columns) if c not in params and not _long_text(rows, c)]
    summary = {"command": args.command, "axes": {a.name: [a.typed(v) for v in a.values] for a in grid.axes},
               "rows": rows, "csv": csv_path, "plot": args.plot}
    emit(args, summary, shown, [[row.get(c, "") for c in shown] for row in rows],
         title=f"ppt sweep {args.command}: {len(points)} point(s)")
    if args.plot:
        _plot(rows, params, x, args)
    if not args.json:
        for name, path in (("csv", csv_path), ("plot", args.plot)):
            if path:
                print(f"{name}: {path}")
    return 0


def _refuse_under_mpiexec() -> None:
    """PPTError when launched by mpiexec: the points would inherit its process-manager connection and
    fail one by one; a sweep runs its points as processes of its own."""
    from ppt.engine.parallel import launched_by_mpiexec
    if launched_by_mpiexec():
        raise PPTError("ppt sweep runs its points as separate processes, not under mpiexec; run it without "
                       "mpiexec and use --jobs N to run N points at a time")


def _long_text(rows, column: str) -> bool:
    """True for a column of sentences (such as a stop reason): the CSV and JSON keep it, the table does not."""
    return any(isinstance(row.get(column), str) and len(row[column]) > 24 for row in rows)


def _plot(rows, params, x, args) -> None:
    from ppt.sweep.plot import plot_sweep
    from ppt.sweep.table import columns_of
    if x not in columns_of(rows):
        raise PPTError(f"--x {x}: no such column; choose one of: {', '.join(columns_of(rows))}")
    try:
        with atomic_output(args.plot, "--plot", suffix=".png") as tmp:
            plot_sweep(rows, params, x, tmp, f"ppt sweep {args.command} {' '.join(args.args)}")
    except PPTError as exc:
        raise PPTError(f"{exc}; the results above are complete") from None

"""``ppt sweep COMMAND ...``: run a command over a parameter grid and tabulate (and plot) the results.

    ppt sweep traffic slimfly-3k --pattern wc --set network.routing=min,ugal --loads 0.1,0.5 \\
        --out sweep-sf --jobs 2 --plot sweep-sf.png
    ppt sweep run examples/stencil_strong.py --ranks 16,64,256,1024 --system edison,hopper,mira \\
        --out scale --plot scale.png

Every ``--set KEY=V1,V2,...`` with several values, ``--system``, ``--ranks``
and ``--loads`` (traffic's ``--load``) is an axis; the grid is every
combination of their values, and each combination runs as
``ppt COMMAND ... --set KEY=V ... --json`` in its own process.  Every other
argument goes to the command as written.  Every point is checked before the
first runs (its arguments, system, preset, topology and rank count), so a bad
value is one line and nothing is written.  With ``--out DIR`` each finished
point is kept as a JSON file and the table as ``DIR/sweep.csv``; rerunning the
same sweep with the same ``--out`` runs only the points not yet there.  A
point is the same only if its command line and its inputs are: PPT's version,
the preset's content and the content of its script, program or trace files
(:mod:`ppt.sweep.inputs`), so an edited script is run again.  ``--plot``,
``--json``, ``--system``, ``--ranks`` and ``--set`` anywhere on the line are
the sweep's (each point still gets its own values).
"""
from __future__ import annotations

import argparse
from pathlib import Path

from ppt.cli.common import DEFAULT_DPI, add_dpi_option, whole_number
from ppt.cli.output import add_columns_option, check_writable, emit, pick_columns, write_plot
from ppt.errors import ConfigError, PPTError

HELP = "run traffic, run, exec, replay or snap over a grid of systems, rank counts, --set values and loads"

COMMANDS = ("traffic", "run", "exec", "replay", "snap")
CSV_NAME = "sweep.csv"
#: Column prefix of a row's provenance (version, preset hash, command line, wall time): in the CSV and
#: JSON, not in the table or the plot.
PROVENANCE = "provenance."


def _sweep_options(parser, defaults: bool) -> None:
    """The sweep's own options (also recognised after COMMAND, among the command's arguments)."""
    default = (lambda value: value) if defaults else (lambda value: None)
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=V1,V2,...",
                        help="an axis of the grid (several values) or a fixed override (one value); repeatable")
    parser.add_argument("--loads", default=None, metavar="L1,L2,...", help="traffic: offered loads to sweep")
    parser.add_argument("--system", dest="systems", default=None, metavar="S1,S2,...",
                        help="systems to sweep (preset names or .json files)")
    parser.add_argument("--ranks", default=None, metavar="N1,N2,...",
                        help="rank counts to sweep (run, exec; snap's cores; replay: {ranks} in the trace's path)")
    parser.add_argument("--jobs", type=whole_number, default=default(1), metavar="N",
                        help="points run at a time, each in its own process (default 1)")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="keep each point's result in DIR (a rerun resumes) and the table as DIR/sweep.csv")
    parser.add_argument("--plot", default=None, metavar="FILE.png",
                        help="plot every metric against the swept parameter, one line per other combination")
    add_dpi_option(parser, default(DEFAULT_DPI))
    parser.add_argument("--x", default=None, metavar="COLUMN",
                        help="the plot's horizontal axis (default: load if swept, else the last --set axis)")
    parser.add_argument("--metrics", default=None, metavar="M1,M2,...",
                        help="the plot's metrics, one panel each (columns of the CSV or --json rows; default: "
                             "those of the default table that vary, predicted_s first, else every metric that "
                             "varies)")
    add_columns_option(parser, "the swept parameters and what the command predicts (traffic: accepted "
                               "fraction, latency, hops, saturation; run, exec, replay, snap: predicted time, ...)")
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
    from ppt.cli.parser import options_among
    return options_among(args, "ppt sweep", _sweep_options, appended=("sets",))


def _point_args(parser, point):
    """The parsed command line of ``point`` (for ``exec``, with the options after its program read too)."""
    point_args = parser.parse_args([point.argv[0], "--json", *point.argv[1:]])
    if point.argv[0] == "exec":
        from ppt.cli.predict.exec import _late_options
        _late_options(point_args)
        if point_args.program is None or point_args.ranks is None or point_args.system is None:
            raise PPTError("ppt sweep exec: give PROGRAM.py, --ranks N1,N2,... (or -n N) and --system S1,S2,...")
    return point_args


def _check_points(points) -> list:
    """Before anything runs: every point's command line parses, names a valid preset, its topology
    builds (so misspelled or impossible topology values are refused up front) and its rank count
    fits; returns the points with their inputs (for their cache keys, see :mod:`ppt.sweep.inputs`)."""
    import dataclasses
    import json

    from ppt.cli.common import load_preset
    from ppt.cli.parser import build_parser
    from ppt.interconnects.topologies.registry import build_topology
    from ppt.interconnects.networks.settings import NetworkSettings
    from ppt.interconnects.topologies.planes import check_planes
    from ppt.machine import Machine
    from ppt.provenance import forget_machine
    from ppt.sweep.inputs import forget_hashes, inputs_of
    forget_hashes()
    parser = build_parser()
    presets, topologies, machines, checked = {}, {}, {}, []
    for point in points:
        point_args = _point_args(parser, point)
        which = (point_args.system, tuple(point_args.overrides))
        if which not in presets:
            presets[which] = preset = load_preset(point_args)
            topology = preset["topology"]
            planes = NetworkSettings.from_preset(preset).rails.planes
            built = json.dumps([topology, planes], sort_keys=True)
            if built not in topologies:
                topologies[built] = build_topology(topology)
                check_planes(topologies[built], planes)
        preset = presets[which]
        counts = _rank_counts(point, point_args)
        if counts:
            if which not in machines:         # one machine per preset: topologies can be large
                machines[which] = Machine(preset, network_kind="analytic", seed=point_args.seed)
            _check_ranks(point, point_args, machines[which], counts)
        checked.append(dataclasses.replace(point, inputs=inputs_of(point.argv[0], point_args, preset)))
    forget_machine()                           # the sweep's own result names no system; its rows do
    return checked


def _rank_counts(point, point_args) -> list[int]:
    """The rank (snap: core) counts ``point`` runs: its ``--ranks`` value, else its command's own
    (run's and exec's ranks, a replayed trace's, snap's cores); none for traffic and job lists."""
    from ppt.sweep.grid import RANKS
    command = point.argv[0]
    if RANKS in point.params:
        return [int(point.params[RANKS])]
    if command in ("run", "exec") and getattr(point_args, "ranks", None):
        return [point_args.ranks]
    if command == "replay" and point_args.trace and not point_args.job_list:
        from ppt.traces.readers.dumpi import TraceSet
        return [TraceSet(point_args.trace).ranks]
    if command == "snap":
        from ppt.cli.predict.snap import core_counts
        return core_counts(point_args.cores)
    return []


def _check_ranks(point, point_args, machine, counts) -> None:
    """ConfigError if a rank (or core) count of ``point`` does not fit its system (``machine``)."""
    from ppt.sweep.grid import RANKS
    for ranks in counts:
        where = f"{'--ranks' if RANKS in point.params else 'ranks'} {ranks} on {point.params.get('system', machine.name)}"
        try:
            if point.argv[0] == "snap":
                from ppt.apps.scaling import check_cores, study_sim
                check_cores(machine, [ranks])
                study_sim(point_args.study, ranks, 1, point_args.npey, point_args.npez)
            else:
                from ppt.mpi.mapping import MAPPINGS, map_ranks
                mapping = point_args.mapping if point_args.mapping in MAPPINGS else "linear"
                map_ranks(ranks, point_args.ranks_per_node or machine.cores_per_node, machine.num_nodes, mapping,
                          point_args.seed)
        except PPTError as exc:
            raise ConfigError(f"{where}: {exc}") from None


def _given(args, *options) -> bool:
    """True if the command's own arguments (before any ``--``) hold one of ``options`` (``--load`` or
    ``--load=0.5``)."""
    args = args[:args.index("--")] if "--" in args else args
    return any(a in options or a.split("=")[0] in options for a in args)


def plan(args):
    """The grid and its checked points of the sweep ``args`` (see :func:`_options`): every point's
    arguments, system, topology and rank count checked before any runs (one-line ConfigError)."""
    from ppt.sweep.grid import Grid
    grid = Grid(args.sets, args.loads, args.systems, args.ranks)
    if args.loads is not None and args.command != "traffic":
        raise ConfigError(f"--loads sweeps traffic's --load; sweep {args.command} with --set KEY=V1,V2,...")
    if args.loads is not None and _given(args.args, "--load"):
        raise ConfigError("give --loads (swept) or --load (fixed), not both")
    if args.ranks is not None:
        if args.command == "traffic":
            raise ConfigError("--ranks: traffic runs on every node; sweep run, exec, replay or snap over rank counts")
        fixed = {"run": ("-n", "--ranks"), "exec": ("-n", "--ranks"), "snap": ("--cores", "-n")}.get(args.command, ())
        if _given(args.args, *fixed):
            raise ConfigError(f"give --ranks (swept) or {fixed[0]} (fixed), not both")
    return grid, _check_points(grid.points(args.command, args.args))


def run(args) -> int:
    from ppt.progress import PointProgress
    from ppt.sweep.grid import LOAD, RANKS
    from ppt.sweep.runner import Runner
    from ppt.sweep.store import PointStore, check_folder, write_atomic
    from ppt.sweep.plot import compact
    from ppt.sweep.table import columns_of, headline, rows_of, to_csv, varying
    _refuse_under_mpiexec()
    args = _options(args)
    grid, points = plan(args)
    params = [axis.name for axis in grid.axes]
    x = args.x or next((p for p in (LOAD, RANKS) if p in params), params[-1] if params else None)
    if args.x and not args.plot:
        raise ConfigError(f"--x {args.x} picks the plot's horizontal axis; add --plot FILE.png or drop --x")
    if args.metrics and not args.plot:
        raise ConfigError(f"--metrics {args.metrics} picks the plot's metrics; add --plot FILE.png or drop --metrics")
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
    summary = {"command": args.command, "axes": {a.name: [a.typed(v) for v in a.values] for a in grid.axes},
               "rows": rows, "csv": csv_path, "plot": args.plot}
    available = [c for c in varying(rows, columns_of(rows))
                 if c not in params and not _long_text(rows, c) and not c.startswith(PROVENANCE)]
    default = [c for c in headline(args.command, rows) if c not in params] or compact(available)
    try:
        shown, width = pick_columns(args.columns, available, default)
    except PPTError as exc:
        shown, width = default, None
        failed = exc
    else:
        failed = None
    emit(args, summary, params + shown, [[row.get(c) for c in params + shown] for row in rows],
         title=f"ppt sweep {args.command}: {len(points)} point(s)", width=width)
    if failed is not None:
        raise PPTError(f"{failed}; the table above has the default columns")
    if args.plot:
        _plot(rows, params, x, args)
    if not args.json:
        for name, path in (("csv", csv_path), ("plot", args.plot)):
            if path:
                print(f"{name}: {path}")
    return 0


def _refuse_under_mpiexec(command: str = "sweep") -> None:
    """PPTError when launched by mpiexec: the points would inherit its process-manager connection and
    fail one by one; a sweep (or ``ppt scale``) runs its points as processes of its own."""
    from ppt.engine.parallel import launched_by_mpiexec
    if launched_by_mpiexec():
        raise PPTError(f"ppt {command} runs its points as separate processes, not under mpiexec; run it without "
                       "mpiexec and use --jobs N to run N points at a time")


def _long_text(rows, column: str) -> bool:
    """True for a column of sentences (such as a stop reason): the CSV and JSON keep it, the table does not."""
    return any(isinstance(row.get(column), str) and len(row[column]) > 24 for row in rows)


def _plot(rows, params, x, args) -> None:
    from ppt.sweep.plot import plot_sweep
    from ppt.sweep.table import columns_of
    if x not in columns_of(rows):
        raise PPTError(f"--x {x}: no such column; choose one of: {', '.join(columns_of(rows))}")
    wanted = [name.strip() for name in (args.metrics or "").split(",") if name.strip()]
    unknown = [name for name in wanted if name not in columns_of(rows)]
    if unknown:
        raise PPTError(f"--metrics {', '.join(unknown)}: no such column; choose among: "
                       f"{', '.join(c for c in columns_of(rows) if not c.startswith(PROVENANCE))}")
    write_plot(args.plot, lambda tmp: plot_sweep(rows, params, x, tmp, f"ppt sweep {args.command} "
                                                 f"{' '.join(args.args)}", wanted, args.command, args.dpi))

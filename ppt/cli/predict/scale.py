"""``ppt scale SCRIPT --ranks N1,N2,... --system S1,S2,...``: strong scaling of any model across systems.

    ppt scale examples/stencil_strong.py --ranks 16,64,256,1024 --system edison,hopper,mira --plot scale.png

SCRIPT is a ``ppt run`` model (a file defining ``main(mpi)``) or an mpi4py
program for ``ppt exec`` (a file importing mpi4py; ``--exec`` says so
explicitly).  Every (system, rank count) runs as a point of ``ppt sweep``
(same checks before the first runs, ``--jobs`` and ``--out`` as there), and a
table per system gives the predicted time, mean compute and MPI time per rank,
speedup and parallel efficiency relative to the smallest rank count.
``--plot`` draws what ``ppt snap --plot`` draws, one set of lines per system.
Every other argument goes to the command (``--network analytic``,
``--script-args '...'``, a program's own arguments, ...).
"""
from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

from ppt.cli.common import DEFAULT_DPI, add_dpi_option, whole_number
from ppt.cli.output import check_writable, emit, format_table, write_plot
from ppt.errors import ConfigError, PPTError

HELP = "strong scaling of a model script or mpi4py program: speedup and efficiency per system, and a plot"


def _scale_options(parser, defaults: bool) -> None:
    """The options of ``ppt scale`` (also recognised among the command's arguments after SCRIPT)."""
    default = (lambda value: value) if defaults else (lambda value: None)
    parser.add_argument("--ranks", default=None, metavar="N1,N2,...", help="rank counts, e.g. 16,64,256")
    parser.add_argument("--system", dest="systems", default=None, metavar="S1,S2,...",
                        help="systems (preset names or .json files), e.g. edison,hopper,mira")
    parser.add_argument("--exec", dest="as_program", action="store_true", default=default(False),
                        help="run SCRIPT as an mpi4py program with ppt exec (default: decided by its content)")
    parser.add_argument("--jobs", type=whole_number, default=default(1), metavar="N",
                        help="points run at a time, each in its own process (default 1)")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="keep each point's result in DIR (a rerun resumes) and the table as DIR/sweep.csv")
    parser.add_argument("--plot", default=None, metavar="FILE.png",
                        help="plot predicted time, speed-up and parallel efficiency against ranks, with the "
                             "ideal lines, one set per system")
    add_dpi_option(parser, default(DEFAULT_DPI))
    parser.add_argument("--json", action="store_true", default=default(False), help="print one JSON object on stdout")


def add_arguments(parser) -> None:
    _scale_options(parser, defaults=True)
    parser.add_argument("script", metavar="SCRIPT.py", help="a ppt run model (defines main(mpi)) or an mpi4py program")
    parser.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS",
                        help="arguments for ppt run or ppt exec (the program's own arguments for exec)")


def _options(args) -> argparse.Namespace:
    """The scale options given before and after SCRIPT; ``args.args`` keeps only the command's own."""
    from ppt.cli.parser import options_among
    return options_among(args, "ppt scale", _scale_options)


def kind_of(script: str) -> str:
    """``exec`` for a file that imports mpi4py, ``run`` for one defining ``main`` (and not importing
    mpi4py); a one-line PPTError otherwise."""
    from ppt.cli.common import check_input_file
    file = Path(script)
    check_input_file(script, "SCRIPT")
    if not file.is_file():
        raise PPTError(f"SCRIPT {script}: no such file")
    try:
        tree = ast.parse(file.read_text(), filename=file.name)
    except SyntaxError as exc:
        raise PPTError(f"SCRIPT {file.name} line {exc.lineno}: syntax error: {exc.msg}") from None
    for node in ast.walk(tree):
        names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        if any(name == "mpi4py" or name.startswith("mpi4py.") for name in names):
            return "exec"
    if any(isinstance(node, ast.FunctionDef) and node.name == "main" for node in tree.body):
        return "run"
    raise PPTError(f"SCRIPT {file.name} neither defines main(mpi) (a ppt run model) nor imports mpi4py (a "
                   f"program for ppt exec); give --exec to run it as a program")


def scaling_table(points, results) -> dict[str, list[dict]]:
    """Per system (in sweep order), one entry per rank count (ascending): ranks, predicted_s, mean
    compute_s and comm_s per rank, speedup and efficiency relative to the smallest rank count."""
    tables: dict[str, list[dict]] = {}
    for point, result in zip(points, results):
        per_rank = result.get("per_rank") or []
        mean = (lambda key: sum(r[key] for r in per_rank) / len(per_rank)) if per_rank else (lambda key: None)
        tables.setdefault(point.params["system"], []).append(
            {"system": point.params["system"], "ranks": int(point.params["ranks"]),
             "predicted_s": result["predicted_s"], "compute_s": mean("compute_s"), "comm_s": mean("comm_s"),
             "network": result["provenance"]["network"]})
    for entries in tables.values():
        entries.sort(key=lambda e: e["ranks"])
        base = entries[0]
        for entry in entries:
            entry["speedup"] = base["predicted_s"] / entry["predicted_s"] if entry["predicted_s"] else None
            entry["efficiency"] = (entry["speedup"] * base["ranks"] / entry["ranks"]
                                   if entry["speedup"] is not None else None)
    return tables


def run(args) -> int:
    from ppt.cli.predict.sweep import CSV_NAME, _refuse_under_mpiexec, plan
    from ppt.progress import PointProgress
    from ppt.sweep.runner import Runner
    from ppt.sweep.store import PointStore, check_folder, write_atomic
    from ppt.sweep.table import rows_of, to_csv
    _refuse_under_mpiexec("scale")
    args = _options(args)
    if args.ranks is None or args.systems is None:
        raise ConfigError("give --ranks N1,N2,... and --system S1,S2,... (see 'ppt scale --help')")
    command = "exec" if args.as_program else kind_of(args.script)
    sweep = argparse.Namespace(command=command, args=[args.script, *args.args], sets=[], loads=None,
                               systems=args.systems, ranks=args.ranks)
    grid, points = plan(sweep)
    if args.plot:
        check_writable(args.plot)
    if args.out:
        check_folder(args.out)
    store = PointStore(args.out) if args.out else None
    results = Runner(args.jobs, store, PointProgress(f"scale {Path(args.script).name}")).run(points)
    if args.out:
        rows = [row for point, result in zip(points, results)
                for row in rows_of({a.name: a.typed(point.params[a.name]) for a in grid.axes}, result)]
        write_atomic(Path(args.out) / CSV_NAME, to_csv(rows))
    tables = scaling_table(points, results)
    title = f"strong scaling of {Path(args.script).name} (ppt {command})"
    summary = {"script": args.script, "command": command, "results": [e for t in tables.values() for e in t],
               "csv": str(Path(args.out) / CSV_NAME) if args.out else None, "plot": args.plot}
    if args.json:
        emit(args, summary)
    else:
        print(title)
        for system, entries in tables.items():
            print(f"\n{system} ({entries[0]['network']} network):")
            print(format_table(["ranks", "predicted_s", "compute_s", "comm_s", "speedup", "efficiency"],
                               [[e["ranks"], e["predicted_s"], e["compute_s"], e["comm_s"],
                                 *(round(e[k], 3) if e[k] is not None else "" for k in ("speedup", "efficiency"))]
                                for e in entries]))
        sys.stdout.flush()
    if args.plot:                      # after the results are out: a failing plot loses nothing
        from ppt.apps.scaling import plot_scaling
        write_plot(args.plot, lambda tmp: plot_scaling(tables, tmp, title, x="ranks", dpi=args.dpi))
    if not args.json:
        for name, path in (("csv", summary["csv"]), ("plot", args.plot)):
            if path:
                print(f"{name}: {path}")
    return 0

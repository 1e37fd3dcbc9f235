"""``ppt app``: the registered stylized applications (:mod:`ppt.apps.registry`) and their strong scaling.

    ppt app --list
    ppt app hpl --params
    ppt app hpl edison -n 96,192,384 --set app.N=20000 --plot hpl.png

``--set app.NAME=VALUE`` sets a model parameter; any other ``--set`` key overrides the system
preset as in every command.  One line per finished point on stderr, as ``ppt snap``.
"""
from __future__ import annotations

from ppt.cli.common import count, load_preset, pick_network
from ppt.cli.output import add_columns_option, add_json_flag, check_writable, emit, pick_columns, write_plot
from ppt.cli.predict.snap import add_scaling_output_arguments, core_counts, scaling_runs
from ppt.errors import PPTError

HELP = "stylized application models (ppt app --list): parameters and strong-scaling predictions"

#: ``--set`` keys with this prefix are model parameters, not preset fields.
APP_PREFIX = "app."


def add_arguments(parser) -> None:
    parser.add_argument("name", nargs="?", metavar="NAME", help="model name (see --list)")
    parser.add_argument("system", nargs="?", metavar="SYSTEM",
                        help="system preset name (see 'ppt systems') or a .json preset file")
    parser.add_argument("--list", action="store_true", help="list the models, one a line, and exit")
    parser.add_argument("--params", action="store_true",
                        help="list NAME's parameters with their defaults and meaning, and exit")
    parser.add_argument("-n", "--ranks", "--cores", dest="cores", metavar="N,N,...",
                        help="rank counts, one rank per core, e.g. 24,48,96 (whole nodes, or less than one)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="app.PARAM=VALUE sets a model parameter (see --params); other keys override "
                             "the preset, e.g. network.routing=val (repeatable)")
    parser.add_argument("--seed", type=count, default=0, help="random seed (default 0)")
    parser.add_argument("--network", choices=["auto", "packet", "flow", "analytic"], default="auto",
                        help="network model (default auto: packet-level unless the estimated packet-hops exceed "
                             "the budget, then flow; stderr says which ran); analytic: contention-free, fastest")
    add_scaling_output_arguments(parser)
    add_columns_option(parser, "cores, the model's own columns, the times, speed-up and efficiency "
                               "(those that fit the terminal)")
    add_json_flag(parser)


def split_overrides(items) -> tuple[dict, list[str]]:
    """``--set`` items parted into model parameters (``app.NAME=VALUE`` -> {NAME: VALUE}) and preset overrides."""
    params, system = {}, []
    for item in items:
        if item.startswith(APP_PREFIX):
            key, sep, value = item[len(APP_PREFIX):].partition("=")
            if not sep or not key:
                raise PPTError(f"--set {item!r}: give app.PARAM=VALUE (see 'ppt app NAME --params')")
            params[key] = value
        else:
            system.append(item)
    return params, system


def run(args) -> int:
    from ppt.apps import registry
    if args.list:
        rows = [[m.name, m.summary] for m in registry.models()]
        emit(args, {"apps": [{"name": m.name, "summary": m.summary, "source": m.source} for m in registry.models()]},
             ["app", "summary"], rows)
        return 0
    if not args.name:
        raise PPTError("give a model name (ppt app --list shows them), or --list")
    model = registry.get(args.name)
    if args.params:
        emit(args, {"app": model.name, "source": model.source,
                     "params": {k: {"default": p.default, "doc": p.doc} for k, p in model.params.items()}},
             ["parameter", "default", "meaning"], [[k, str(p.default), p.doc] for k, p in model.params.items()],
             f"{model.name}: {model.summary}" + (f"\nsource: {model.source}" if model.source else ""))
        return 0
    if not args.system or not args.cores:
        raise PPTError(f"give a system and rank counts, e.g. 'ppt app {model.name} edison -n 24,48,96' "
                       f"(or --params, --list)")
    return _scale(args, model)


def _headers(model) -> list[str]:
    """The table's columns: cores, the model's own, then the times and the scaling."""
    return ["cores", *(header for _, header in model.columns), "predicted_s", "compute_s", "comm_s", "speedup",
            "efficiency"]


def _scale(args, model) -> int:
    from ppt.apps.scaling import app_scaling, check_cores, plot_scaling, sims_traffic
    from ppt.machine import Machine
    if args.plot:
        check_writable(args.plot)         # before the run, not after it
    raw_params, args.overrides = split_overrides(args.overrides)
    pick_columns(args.columns, _headers(model), [])        # a misspelled column: before the runs
    params = model.resolve(raw_params)
    preset = load_preset(args)
    cores = core_counts(args.cores, "-n/--ranks")

    def traffic():
        machine = Machine(preset, seed=args.seed)
        return sims_traffic(machine, [model.build(c, params) for c in check_cores(machine, cores)])
    kind = pick_network(args, traffic)
    machine = Machine(preset, network_kind=kind, seed=args.seed)
    results = scaling_runs(f"app {model.name} {args.system}", args,
                           lambda progress, sim_progress, jobs: app_scaling(machine, model, params, cores, progress,
                                                                            sim_progress, jobs))
    changed = ", ".join(f"{k}={v}" for k, v in params.items() if v != model.params[k].default)
    title = f"{model.name} on {machine.name} ({kind} network{', ' + changed if changed else ''})"
    table = [{"cores": r["cores"], **{header: r[key] for key, header in model.columns},
              **{key: r[key] for key in ("predicted_s", "compute_s", "comm_s")},
              "speedup": round(r["speedup"], 3), "efficiency": round(r["efficiency"], 3)} for r in results]
    headers, width = pick_columns(args.columns, _headers(model), _headers(model))
    summary = {"app": model.name, "params": params, "results": results, "system": machine.name, "network": kind}
    if args.plot:
        summary["plot"] = args.plot
    emit(args, summary, headers, [[row[h] for h in headers] for row in table], title, width)
    if args.plot:                      # after the results are out: a failing plot loses nothing
        write_plot(args.plot, lambda tmp: plot_scaling(results, tmp, title, dpi=args.dpi))
        if not args.json:
            print(f"plot: {args.plot}")
    return 0

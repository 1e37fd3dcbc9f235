"""Strong scaling: one problem, growing core counts, one rank per core -- SNAPSim's two studies
and any model of :mod:`ppt.apps.registry` (:func:`app_scaling`).

The two studies of the design brief (strong scaling on Edison from one node up):

1. 32 x 32 x 48 cells, 192 angles, 8 groups, 8-cell x chunks;
2. 64 x 32 x 48 cells, 384 angles, 42 groups, 16-cell x chunks.

"Angles" are read as the total number of discrete directions; SNAP's input
``nang`` counts angles per octant (``sn.f90``), so the studies run SNAP with
``nang = 192/8 = 24`` and ``384/8 = 48`` (48 is also the ``nang`` of SNAP's own
benchmark input, ``qasnap/benchmark/inp``).

Each point runs one time step, one outer iteration and ``iterations`` inner
iterations (SNAP's ``iitm`` default is 5; a real run repeats until converged).
The sweeps of all inner iterations are identical, so predicted time grows
linearly with steps x iterations and a short run predicts the scaling shape.
The y-z process grid is the most square ``npey x npez = cores`` with npey
dividing ny and npez dividing nz (SNAP's input rule, ``input.f90``).  Core
counts beyond what the mesh can give one rank each (study 2: 32 x 48 = 1,536)
run hybrid, as SNAP does with OpenMP: the fewest threads per rank that make
the rank count decomposable.
"""
from __future__ import annotations

import time

from ppt.apps.snap import SNAPSim, problem_sim
from ppt import plotstyle
from ppt.errors import ConfigError

STUDIES = {
    1: {"nx": 32, "ny": 32, "nz": 48, "angles": 192, "ng": 8, "ichunk": 8},
    2: {"nx": 64, "ny": 32, "nz": 48, "angles": 384, "ng": 42, "ichunk": 16},
}
DEFAULT_ITERATIONS = 1


def study_sim(study: int, cores: int, iterations: int = DEFAULT_ITERATIONS, npey: int | None = None,
              npez: int | None = None) -> SNAPSim:
    """SNAPSim of ``study`` (1 or 2) on ``cores`` ranks; ``npey``/``npez`` force the process grid."""
    if study not in STUDIES:
        raise ConfigError(f"unknown study {study!r}; choose one of: {', '.join(map(str, STUDIES))}")
    return problem_sim(STUDIES[study], cores, iterations, npey, npez)


def check_cores(machine, cores_list) -> list[int]:
    """Core counts that fit ``machine``: positive, whole nodes (or less than one node), not too many."""
    if not cores_list:
        raise ConfigError("give at least one core count, e.g. --cores 24,48,96")
    per_node = machine.cores_per_node
    total = per_node * machine.num_nodes
    for cores in cores_list:
        if cores < 1:
            raise ConfigError(f"core count must be positive, got {cores}")
        if cores > per_node and cores % per_node:
            raise ConfigError(f"{cores} cores is not a whole number of {machine.name} nodes; use a multiple of "
                              f"{per_node} (one rank per core)")
        if cores > total:
            raise ConfigError(f"{cores} cores exceed the {total} cores of {machine.name}")
    return sorted(set(cores_list))


def packet_hops(machine, study: int, cores_list, iterations: int = DEFAULT_ITERATIONS, npey: int | None = None,
                npez: int | None = None):
    """Estimated traffic (:class:`~ppt.drivers.autochoice.Estimate`) of the whole study on
    ``machine``'s packet network (sweep messages between nodes, ranks placed as :meth:`SNAPSim.run`
    places them), for ``--network auto``."""
    return sims_traffic(machine, [study_sim(study, c, iterations, npey, npez)
                                  for c in check_cores(machine, cores_list)])


def sims_traffic(machine, sims):
    """Estimated packet-network traffic of running every sim of ``sims`` on ``machine``: each sim's
    ``traffic()`` (``(source rank, destination rank, bytes, messages)`` tuples; SNAPSim's
    ``sweep_traffic``), ranks placed one per core (per ``threads`` cores for a hybrid sim).
    A sim without a traffic estimate counts as none."""
    from ppt.drivers.autochoice import Estimate, Estimator
    from ppt.mpi.mapping import map_ranks
    total = Estimate()
    for sim in sims:
        traffic = getattr(sim, "traffic", None) or getattr(sim, "sweep_traffic", None)
        if traffic is None:
            continue
        per_node = min(max(1, machine.cores_per_node // getattr(sim, "threads", 1)), sim.ranks)
        total += Estimator(machine, map_ranks(sim.ranks, per_node, machine.num_nodes)).traffic(traffic())
    return total


def strong_scaling(machine, study: int, cores_list, iterations: int = DEFAULT_ITERATIONS, npey: int | None = None,
                   npez: int | None = None, on_point=None, progress=None, jobs: int = 1) -> list[dict]:
    """SNAP's strong scaling: :func:`scale_sims` of the study's SNAPSim at every core count (the
    entries add npey, npez, threads and messages)."""
    cores_list = check_cores(machine, cores_list)
    sims = [study_sim(study, c, iterations, npey, npez) for c in cores_list]     # validate all before running
    return scale_sims(machine, sims, on_point, progress, jobs)


def app_scaling(machine, model, params: dict, cores_list, on_point=None, progress=None,
                jobs: int = 1) -> list[dict]:
    """Strong scaling of a registered app ``model`` (:mod:`ppt.apps.registry`) with ``params``:
    :func:`scale_sims` of ``model.build(cores, params)`` at every core count (one rank per core)."""
    cores_list = check_cores(machine, cores_list)
    sims = [model.build(c, params) for c in cores_list]                           # validate all before running
    return scale_sims(machine, sims, on_point, progress, jobs)


def scale_sims(machine, sims, on_point=None, progress=None, jobs: int = 1) -> list[dict]:
    """One result dict per sim (``sims`` in ascending core counts): its ``as_json()`` (cores,
    predicted_s, compute_s, comm_s, ...), speedup and efficiency (relative to the first) and the
    wall time of the simulation (wall_s).  ``on_point(result, done, total)`` is called as each
    point finishes.

    ``jobs`` > 1 runs that many points at a time in separate processes (largest first, each
    deterministic, so the results are those of a serial run); ``progress`` (a
    :class:`ppt.progress.Progress`) counts the ranks finished over all points, as the workers report
    them, or in a serial run the ranks of the points finished, beside the running point's own progress.
    """
    results: list[dict | None] = [None] * len(sims)

    def finished(index, entry):
        results[index] = entry
        if on_point:
            on_point(entry, sum(r is not None for r in results) - 1, len(sims))

    if jobs > 1 and len(sims) > 1:
        import multiprocessing
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
        counts = multiprocessing.Array("d", len(sims), lock=False)     # ranks finished per point, by the workers
        with ProcessPoolExecutor(min(jobs, len(sims)), initializer=_share_counts, initargs=(counts,)) as pool:
            futures = {pool.submit(_run_point, machine.preset, machine.network_kind, machine.seed, sims[i], i): i
                       for i in reversed(range(len(sims)))}     # the largest first
            pending = set(futures)
            while pending:
                done, pending = wait(pending, timeout=progress.interval_s if progress else None,
                                     return_when=FIRST_COMPLETED)
                for future in done:
                    finished(futures[future], future.result())
                if progress is not None and pending:
                    progress.count(sum(sim.ranks if results[i] else counts[i] for i, sim in enumerate(sims)),
                                   sum(sim.ranks for sim in sims), None, "ranks done over all points",
                                   postfix=f"{sum(r is not None for r in results)} of {len(sims)} points done")
    else:
        for index, sim in enumerate(sims):
            if progress is not None:          # the whole run's bar: ranks of the points finished
                progress.points(sum(s.ranks for s in sims[:index]), sum(s.ranks for s in sims),
                                "ranks done over all points")
            finished(index, _timed(sim, machine, progress))
    if progress is not None:                  # what the run ends at
        progress.points(sum(s.ranks for s in sims), sum(s.ranks for s in sims), "ranks done over all points")
    base = results[0]
    for entry in results:
        entry["speedup"] = base["predicted_s"] / entry["predicted_s"]
        entry["efficiency"] = entry["speedup"] * base["cores"] / entry["cores"]
    return results


def _timed(sim, machine, progress=None) -> dict:
    wall = time.perf_counter()
    entry = sim.run(machine, progress=progress).as_json()
    entry["wall_s"] = time.perf_counter() - wall
    return entry


#: A worker's share of the parent's ranks-finished counts (see :func:`strong_scaling`).
_COUNTS = None


def _share_counts(counts) -> None:
    global _COUNTS
    _COUNTS = counts


class _Finished:
    """A worker's progress hook: the point's ranks finished, into the shared counts (no clock read)."""

    def __init__(self, index: int):
        self.index = index
        self.started = 0

    def __call__(self, sim) -> None:
        live = len(sim.processes)
        self.started = max(self.started, live)
        _COUNTS[self.index] = self.started - live


def _run_point(preset: dict, network_kind: str, seed: int, sim, index: int | None = None) -> dict:
    """One point in a worker process (the machine is rebuilt there from its preset)."""
    from ppt.machine import Machine
    hook = _Finished(index) if index is not None and _COUNTS is not None else None
    return _timed(sim, Machine(preset, network_kind=network_kind, seed=seed), hook)


def plot_scaling(results, path: str, title: str, x: str = "cores", dpi: int | None = None) -> None:
    """Strong scaling against ``x`` (cores or ranks, log axis) as a PNG of three panels: predicted time
    (log) with the ideal line and the mean communication time per rank, speed-up with the ideal line,
    and parallel efficiency.

    ``results`` is one list of entries (``x``, ``predicted_s``, ``comm_s``, ``speedup``, ``efficiency``),
    or ``{label: entries}`` for one set of lines per label (a system); ``dpi``: the PNG's resolution (else
    the style's)."""
    import matplotlib.ticker
    from matplotlib.lines import Line2D
    series = results if isinstance(results, dict) else {None: results}
    ticks = sorted({r[x] for entries in series.values() for r in entries})
    same_base = len({entries[0][x] for entries in series.values()}) == 1
    base = min(ticks)
    speed_label = (f"speed-up over {base} {x if base > 1 else x.rstrip('s')}" if same_base
                   else "speed-up over the first point")
    try:
        with plotstyle.figure(path, 3, title=title, dpi=dpi, sharex=True) as (fig, axes):
            time_ax, speed_ax, eff_ax = axes[:, 0]
            handles = []
            for index, (label, entries) in enumerate(series.items()):
                style = {"color": plotstyle.OKABE_ITO[index], "marker": plotstyle.MARKERS[index]}
                counts = [r[x] for r in entries]
                times = [r["predicted_s"] for r in entries]
                handles += time_ax.loglog(counts, times, "-", label=label, **style)
                time_ax.loglog(counts, [times[0] * counts[0] / c for c in counts], "--", color=style["color"],
                               alpha=0.6)
                time_ax.loglog(counts, [r["comm_s"] for r in entries], ":", mfc="none", **style)
                speed_ax.loglog(counts, [r.get("speedup") for r in entries], "-", **style)
                if not same_base:                           # each system's own ideal, from its first point
                    speed_ax.loglog(counts, [c / counts[0] for c in counts], "--", color=style["color"], alpha=0.6)
                eff_ax.semilogx(counts, [r.get("efficiency") for r in entries], "-", **style)
            kinds = [Line2D([], [], color="grey", linestyle=ls, marker=m, mfc=mfc)   # the line of each quantity
                     for ls, m, mfc in (("-", "o", "grey"), ("--", "", "grey"), (":", "o", "none"))]
            systems = [] if None in series else list(series)            # colours name the systems
            names = systems + ["predicted", "ideal", "communication (mean per rank)"]
            handles = handles[:len(systems)] + kinds
            if same_base:
                speed_ax.loglog(ticks, [t / base for t in ticks], "--", color="grey")
            eff_ax.axhline(1.0, linestyle="--", color="grey")
            for ax, ylabel in ((time_ax, "time (s)"), (speed_ax, speed_label), (eff_ax, "parallel efficiency")):
                ax.set_xticks(ticks, [str(c) for c in ticks], rotation=45 if len(ticks) > 6 else 0)
                ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
                ax.set_ylabel(ylabel)
            eff_ax.set_xlabel(x)
            speed_ticks = sorted({r[x] / entries[0][x] for entries in series.values() for r in entries})
            speed_ax.set_yticks(speed_ticks, [f"{t:g}" for t in speed_ticks])
            speed_ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
            eff_ax.set_ylim(0, max(1.05, *(r.get("efficiency") or 0 for entries in series.values()
                                           for r in entries)) * 1.05)
            plotstyle.legend(fig, handles, names)
    except OSError as exc:
        raise ConfigError(f"cannot write plot {path!r}: {exc.strerror}") from None

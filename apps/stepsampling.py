"""Time steps of a stylized application: which to simulate, and the run's times from them.

Codes such as CloverLeaf and miniMD repeat one time step many times, with a
few periodic variants (a field summary, a neighbour-list rebuild).  A model
names each step's *kind*; its rank program runs a list of kinds and logs, per
step, ``(kind, start_s, end_s, compute_s)``.  Simulating every step gives the
run's time directly.  With step sampling the rank program runs only
:func:`sample_kinds` -- ``sample_steps`` steps of the regular kind, then one
step of every other kind the run contains -- and :func:`scale_steps` predicts
the full run as::

    T = sum over kinds k of  count_k * t_k

where ``t_k`` is the mean duration of the simulated steps of kind ``k``, a
step's duration being the time from the last rank finishing the previous step
to the last rank finishing this one.  Compute and MPI time per rank scale the
same way.  Exact when every step of a kind takes as long as the simulated
ones; the start-up of the first step (all ranks leave time 0 together) is the
main difference, and shrinks as ``sample_steps`` grows.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ppt.errors import ConfigError


def positive(name: str, value, app: str) -> int:
    """``value`` if it is an integer >= 1, else a one-line ConfigError naming ``app``'s parameter."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{app} parameter {name} must be a positive integer, got {value!r}")
    return value


def sample_kinds(counts: Counter, regular: str, sample_steps: int) -> list[str]:
    """The steps a sampled run simulates: ``sample_steps`` steps of kind ``regular`` (at most as many as
    the run has), then one of each other kind in ``counts`` (kind -> steps of the full run)."""
    kinds = [regular] * min(sample_steps, counts.get(regular, 0))
    return kinds + sorted(kind for kind in counts if kind != regular and counts[kind] > 0)


@dataclass
class StepTimes:
    """Times of a run (seconds): ``predicted_s``, per-rank means ``compute_s`` and ``comm_s`` (time in
    steps outside compute), and per kind its step count and mean step time ``step_s``."""

    predicted_s: float
    compute_s: float
    comm_s: float
    kinds: dict = field(default_factory=dict)


def scale_steps(logs: list[list[tuple]], counts: Counter) -> StepTimes:
    """Predict a run of ``counts`` steps per kind from every rank's step log (see module doc)."""
    ranks = len(logs)
    simulated = len(logs[0])
    ends = [max(log[i][2] for log in logs) for i in range(simulated)]
    duration: dict[str, list[float]] = {}
    compute: dict[str, float] = {}
    busy: dict[str, float] = {}
    for i in range(simulated):
        kind = logs[0][i][0]
        duration.setdefault(kind, []).append(ends[i] - (ends[i - 1] if i else 0.0))
        compute[kind] = compute.get(kind, 0.0) + sum(log[i][3] for log in logs) / ranks
        busy[kind] = busy.get(kind, 0.0) + sum(log[i][2] - log[i][1] for log in logs) / ranks
    missing = [kind for kind in counts if counts[kind] and kind not in duration]
    if missing:
        raise ConfigError(f"step sampling simulated no step of kind {', '.join(missing)}")
    times = StepTimes(0.0, 0.0, 0.0)
    for kind, n in sorted(counts.items()):
        if not n:
            continue
        sampled = len(duration[kind])
        step_s = sum(duration[kind]) / sampled
        times.kinds[kind] = {"steps": n, "step_s": step_s}
        times.predicted_s += n * step_s
        times.compute_s += n * compute[kind] / sampled
        times.comm_s += n * (busy[kind] - compute[kind]) / sampled
    return times


@dataclass
class AppResult:
    """One run of a stylized application.  ``predicted_s``: run time (s); ``compute_s`` / ``comm_s``:
    per-rank means of time computing and in MPI (s); ``steps``: per step kind its count and mean time;
    ``sampled``: whether the times were scaled from sampled steps; ``extra``: model-specific figures;
    ``job``: the simulated :class:`~ppt.mpi.JobResult` (of the sampled steps when sampled)."""

    app: str
    ranks: int
    threads: int
    predicted_s: float
    compute_s: float
    comm_s: float
    steps: dict
    sampled: bool
    extra: dict
    job: object = field(repr=False)

    def as_json(self) -> dict:
        return {"app": self.app, "cores": self.ranks * self.threads, "ranks": self.ranks, "threads": self.threads,
                "predicted_s": self.predicted_s, "compute_s": self.compute_s, "comm_s": self.comm_s,
                "sampled": self.sampled, "steps": self.steps, **self.extra}


def run_steps(app: str, job, main, sim, sequence: list[str], regular: str, sample_steps: int, extra: dict,
              progress=None) -> AppResult:
    """Run ``main(mpi, sim, kinds)`` on ``job`` (an :class:`~ppt.mpi.MPIJob`) over the run's whole step
    ``sequence`` (``sample_steps`` 0) or over :func:`sample_kinds`, and gather the :class:`AppResult`.
    ``main`` returns its step log."""
    counts = Counter(sequence)
    kinds = sample_kinds(counts, regular, sample_steps) if sample_steps else sequence
    result = job.run(main, sim, kinds, progress=progress)
    times = scale_steps(result.returns, counts)
    if not sample_steps:                       # the whole run: its own clock and counters
        per_rank = result.per_rank
        times = StepTimes(result.predicted_s, sum(r["compute_s"] for r in per_rank) / len(per_rank),
                          sum(r["comm_s"] for r in per_rank) / len(per_rank), times.kinds)
    return AppResult(app, sim.ranks, sim.threads, times.predicted_s, times.compute_s, times.comm_s, times.kinds,
                     bool(sample_steps), extra, result)

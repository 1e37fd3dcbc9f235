"""A job list: the jobs that share one machine, read from a JSON file and checked key by key.

The file holds an object ``{"ranks_per_node": R, "jobs": [...]}`` (``ranks_per_node``
optional) or just the list of jobs.  Every job is an object with a ``kind``:

``trace``
    ``trace`` (a trace in any format ``ppt replay`` reads: a DUMPI trace
    folder, its ``.meta`` file or file prefix, an op-stream folder, ...) and
    ``ranks`` (the trace's rank count); optional ``compute_scale``,
    ``skip_unsupported``, ``keep_startup`` as for ``ppt replay``.
``script``
    ``script`` (a Python file defining ``main(mpi)``), ``ranks``; optional
    ``args`` (one string, seen by the script as ``mpi.argv``).
``traffic``
    synthetic traffic on ``ranks`` nodes (one source per node; ``"rest"``: the
    nodes no other job takes): ``pattern`` (ur, bitcomp, transpose, tornado, hotspot: all to the job's first node),
    ``load`` (offered fraction of each node's injection bandwidth, (0, 1]),
    optional ``message_B`` (payload bytes per message, default one full
    packet) and ``process`` (exponential or bernoulli).

Every job may have a ``name`` (default ``job<i>``) and a traffic ``class``
(default 0; one of the packet network's ``network.traffic_classes``: every
packet the job sends, MPI or synthetic, belongs to it); MPI jobs may set their own
``ranks_per_node``.  Relative paths are relative to the job list's folder.
A misspelled key, a missing one or a bad value is a one-line ConfigError
naming the job and the key.
"""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field as dataclass_field
from pathlib import Path

from ppt.config import field, reject_unknown
from ppt.errors import ConfigError

#: Keys every job may have, and those of each kind.
COMMON = ("name", "kind", "ranks", "class")
KIND_KEYS = {"trace": ("trace", "ranks_per_node", "compute_scale", "skip_unsupported", "keep_startup"),
             "script": ("script", "ranks_per_node", "args"),
             "traffic": ("pattern", "load", "message_B", "process")}
#: ``ranks`` of a traffic job that takes every node left over.
REST = "rest"


@dataclass
class JobSpec:
    """One job of a job list.  ``ranks``: MPI ranks, or nodes of a traffic job (None: the rest)."""

    name: str
    kind: str
    ranks: int | None
    #: The kind's own settings (paths resolved), as read.
    options: dict = dataclass_field(default_factory=dict)
    #: Traffic class of every packet the job sends.
    traffic_class: int = 0

    @property
    def is_mpi(self) -> bool:
        return self.kind != "traffic"

    def ranks_per_node(self, default: int) -> int:
        """Ranks per node of an MPI job: its own setting, else ``default``."""
        return self.options.get("ranks_per_node", default)

    def nodes_needed(self, ranks_per_node: int) -> int | None:
        """Nodes this job takes, given the default ``ranks_per_node`` (None: a traffic job taking the rest)."""
        if self.ranks is None or not self.is_mpi:
            return self.ranks
        return -(-self.ranks // self.ranks_per_node(ranks_per_node))


@dataclass
class JobList:
    """The jobs of a job list file; ``ranks_per_node``: the list's default for MPI jobs (None: unset)."""

    jobs: list[JobSpec]
    ranks_per_node: int | None = None

    def node_counts(self, ranks_per_node: int, num_nodes: int) -> list[int]:
        """Nodes of every job on a machine of ``num_nodes`` nodes (``ranks_per_node``: the default of
        MPI jobs, see :meth:`default_ranks_per_node`); ConfigError if they do not fit."""
        counts = [job.nodes_needed(ranks_per_node) for job in self.jobs]
        fixed = sum(c for c in counts if c is not None)
        needs = ", ".join(f"{job.name} {c}" for job, c in zip(self.jobs, counts) if c is not None)
        if fixed > num_nodes:
            raise ConfigError(f"the job list needs {fixed} nodes ({needs}) but the system has {num_nodes}; "
                              f"use fewer ranks or more ranks per node")
        if None in counts and num_nodes - fixed < 2:
            raise ConfigError(f"the job list leaves {num_nodes - fixed} of the system's {num_nodes} nodes to its "
                              f"'rest' job ({needs}), and synthetic traffic needs at least 2")
        return [num_nodes - fixed if c is None else c for c in counts]

    def default_ranks_per_node(self, given: int | None, cores_per_node: int) -> int:
        """Ranks per node of MPI jobs that set none: the list's, else ``given`` (the command line's),
        else one per core."""
        return self.ranks_per_node or given or cores_per_node


def read_job_list(path: str) -> JobList:
    """The checked job list in JSON file ``path``."""
    file = Path(path)
    if not file.is_file():
        raise ConfigError(f"job list {path!r} not found")
    try:
        data = json.loads(file.read_text())
    except json.JSONDecodeError as exc:
        raise ConfigError(f"job list {file.name} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
    if isinstance(data, list):
        data = {"jobs": data}
    reject_unknown(data, "job list", ("jobs", "ranks_per_node"))
    entries = field(data, "jobs", "job list", list)
    if not entries:
        raise ConfigError(f"job list {file.name} holds no jobs")
    jobs = [_job(entry, i, file.parent) for i, entry in enumerate(entries)]
    names = [job.name for job in jobs]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice is not None:
        raise ConfigError(f"job list {file.name} names two jobs {twice!r}; give each its own name")
    if not any(job.is_mpi for job in jobs):
        raise ConfigError(f"job list {file.name} has no trace or script job; the run lasts as long as they do")
    if sum(job.ranks is None for job in jobs) > 1:
        raise ConfigError(f"job list {file.name}: only one job may take the 'rest' of the nodes")
    return JobList(jobs, field(data, "ranks_per_node", "job list", int, default=None, positive=True))


def _job(entry, index: int, folder: Path) -> JobSpec:
    where = f"jobs[{index}]"
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be an object with a kind, got {entry!r}")
    name = field(entry, "name", where, str, default=f"job{index}")
    where = f"job {name!r}"
    kind = field(entry, "kind", where, str)
    if kind not in KIND_KEYS:
        raise ConfigError(f"{where}: unknown kind {kind!r}; choose one of: {', '.join(KIND_KEYS)}")
    reject_unknown(entry, where, COMMON + KIND_KEYS[kind])
    return JobSpec(name, kind, _ranks(entry, kind, where), _OPTIONS[kind](entry, where, folder),
                   field(entry, "class", where, int, default=0, nonnegative=True))


def _ranks(entry: dict, kind: str, where: str) -> int | None:
    if kind == "traffic" and entry.get("ranks") == REST:
        return None
    ranks = field(entry, "ranks", where, int, positive=True)
    if kind == "traffic" and ranks < 2:
        raise ConfigError(f"{where}: synthetic traffic needs at least 2 nodes, got ranks {ranks}")
    return ranks


def _path(entry: dict, key: str, where: str, folder: Path) -> str:
    path = folder / field(entry, key, where, str)
    if not path.exists() and not path.with_suffix(".meta").exists():
        raise ConfigError(f"{where}: {key} {str(path)!r} not found")
    return str(path)


def _ranks_per_node(entry: dict, where: str) -> dict:
    rpn = field(entry, "ranks_per_node", where, int, default=None, positive=True)
    return {} if rpn is None else {"ranks_per_node": rpn}


def _trace_options(entry: dict, where: str, folder: Path) -> dict:
    return {"trace": _path(entry, "trace", where, folder), **_ranks_per_node(entry, where),
            "compute_scale": field(entry, "compute_scale", where, float, default=1.0, nonnegative=True),
            "skip_unsupported": _flag(entry, "skip_unsupported", where),
            "keep_startup": _flag(entry, "keep_startup", where)}


def _flag(entry: dict, key: str, where: str) -> bool:
    value = entry.get(key, False)
    if not isinstance(value, bool):
        raise ConfigError(f"{where}.{key} must be true or false, got {value!r}")
    return value


def _script_options(entry: dict, where: str, folder: Path) -> dict:
    text = field(entry, "args", where, str, default="")
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise ConfigError(f"{where}.args {text!r}: {exc}") from None
    return {"script": _path(entry, "script", where, folder), **_ranks_per_node(entry, where), "argv": argv}


def _traffic_options(entry: dict, where: str, folder: Path) -> dict:
    load = field(entry, "load", where, float)
    if not 0.0 < load <= 1.0:
        raise ConfigError(f"{where}.load must be in (0, 1], got {load}")
    message_B = field(entry, "message_B", where, int, default=None, positive=True)
    process = field(entry, "process", where, str, default="exponential")
    if process not in ("exponential", "bernoulli"):
        raise ConfigError(f"{where}.process must be exponential or bernoulli, got {process!r}")
    return {"pattern": field(entry, "pattern", where, str), "load": load, "message_B": message_B,
            "process": process}


_OPTIONS = {"trace": _trace_options, "script": _script_options, "traffic": _traffic_options}

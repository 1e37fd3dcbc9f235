"""What a registered model's run returns: the job's times as ``ppt app`` tabulates them.

A model's ``run`` builds an :class:`AppResult` from its :class:`~ppt.mpi.JobResult` with
:meth:`AppResult.of_job`, adding its own figures (``extra``: Gflop/s, MB/s, ...) that
:meth:`AppResult.as_json` reports beside the common keys.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class AppResult:
    """One run on ``ranks`` ranks of ``threads`` cores each: ``predicted_s``, the simulated run time;
    ``compute_s`` / ``comm_s``, the mean over ranks of time in compute and inside MPI calls;
    ``messages``, point-to-point messages sent (collectives' included); ``extra``, the
    model's own figures; ``job``, the full job result (not reported)."""

    ranks: int
    predicted_s: float
    compute_s: float
    comm_s: float
    messages: int
    extra: dict = field(default_factory=dict)
    job: object = field(default=None, repr=False)
    threads: int = 1

    @classmethod
    def of_job(cls, job, extra=None, threads: int = 1) -> "AppResult":
        per_rank = job.per_rank
        return cls(len(per_rank), job.predicted_s, sum(r["compute_s"] for r in per_rank) / len(per_rank),
                   sum(r["comm_s"] for r in per_rank) / len(per_rank),
                   sum(r["messages_sent"] for r in per_rank), dict(extra or {}), job, threads)

    def as_json(self) -> dict:
        return {"cores": self.ranks * self.threads, "ranks": self.ranks, "threads": self.threads,
                "predicted_s": self.predicted_s,
                "compute_s": self.compute_s, "comm_s": self.comm_s, "messages": self.messages, **self.extra}

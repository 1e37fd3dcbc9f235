"""Per-rank MPI statistics: compute vs communication time, traffic sent, calls by name."""
from __future__ import annotations

from collections import Counter


class RankStats:
    """What one rank did.  Times in seconds, traffic in bytes.

    ``compute_s``: time in ``compute``/``sleep``; ``comm_s``: time inside MPI
    calls; ``messages_sent``/``bytes_sent``: point-to-point data messages this
    rank sent (including those of collectives, excluding rendezvous control
    messages); ``calls``: top-level MPI calls by MPI name; ``finish_s``: when
    the rank's main function returned (None if it never did).
    """

    __slots__ = ("compute_s", "comm_s", "messages_sent", "bytes_sent", "calls", "finish_s")

    def __init__(self):
        self.compute_s = 0.0
        self.comm_s = 0.0
        self.messages_sent = 0
        self.bytes_sent = 0
        self.calls: Counter[str] = Counter()       # ``calls[name] += 1`` counts a first call too
        self.finish_s = None

    def count(self, call: str) -> None:
        self.calls[call] += 1

    def as_dict(self, rank: int, node: int) -> dict:
        return {"rank": rank, "node": node, "compute_s": self.compute_s, "comm_s": self.comm_s,
                "messages_sent": self.messages_sent, "bytes_sent": self.bytes_sent,
                "finish_s": self.finish_s, "calls": dict(sorted(self.calls.items()))}


def total_calls(per_rank: list[dict]) -> dict[str, int]:
    """Calls by name summed over ranks (sorted by name)."""
    total: dict[str, int] = {}
    for entry in per_rank:
        for name, count in entry["calls"].items():
            total[name] = total.get(name, 0) + count
    return dict(sorted(total.items()))

"""What a run of an MPI job gives: its result, each rank's process body, the ids of the predefined
communicators, and the reports of a run that went wrong (ranks left blocked, a collective message nobody
received)."""
from __future__ import annotations

from dataclasses import dataclass, field

from ppt.errors import DeadlockError
from ppt.mpi.engine.deadlock import deadlock_message
from ppt.mpi.errors import MPIError



@dataclass
class JobResult:
    """Outcome of a job.  ``predicted_s``: when the last rank finished (s)."""

    ranks: int
    predicted_s: float
    per_rank: list[dict]
    calls: dict[str, int]
    network: dict
    #: Return value of every rank's main function, by world rank.
    returns: list = field(repr=False)
    events: int = 0
    wall_s: float = 0.0

    def as_json(self) -> dict:
        return {"ranks": self.ranks, "predicted_s": self.predicted_s, "per_rank": self.per_rank,
                "calls": self.calls, "network": self.network}


def rank_body(proc, rank, main, args) -> None:
    """A rank's process: its program, then the overhead it still owes; its finish time."""
    rank.result = main(rank.api, *args)
    rank.pay()
    rank.stats.finish_s = proc.now


def stray(world_rank: int, src: int, header: tuple | None) -> tuple:
    """A collective message nobody received: a mismatched collective call.  ``world_rank`` never received
    the message world rank ``src`` sent it, whose collective ``(call, root, sequence number)`` is
    ``header`` (None for a rendezvous message, whose header travels with its data)."""
    what = ""
    if header is not None:
        call, root, seq = header
        what = f" of {call}{'' if root is None else f'(root={root})'} (collective #{seq})"
    return (world_rank, f"rank {world_rank}: collective mismatch: it never received the message{what} "
                        f"sent by world rank {src}; the ranks called different collectives or roots")


def raise_failures(parts: list[dict], num_ranks: int) -> None:
    """Raise what a finished run went wrong with, from its parts (one per simulation process, each with the
    ``blocked`` ranks and their calls, the ``stray`` collective messages nobody received, and ``now``, the
    process's last time in s): a DeadlockError naming every rank left blocked, else an MPIError for the first
    collective message nobody received."""
    blocked = sorted(b for p in parts for b in p["blocked"])
    if blocked:
        raise DeadlockError(deadlock_message(blocked, max(p["now"] for p in parts), num_ranks))
    unreceived = sorted(s for p in parts for s in p["stray"])
    if unreceived:
        raise MPIError(unreceived[0][1])

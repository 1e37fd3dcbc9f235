"""Deadlock reports: which ranks are blocked, and in which call."""
from __future__ import annotations

from ppt.mpi.constants import ANY_SOURCE, ANY_TAG

#: Ranks listed in the first line; more are listed one per line up to MAX_LINES.
FIRST_LINE_RANKS = 4
MAX_LINES = 16


def describe(rank) -> str:
    """``MPI_Recv(source=1, tag=7, comm=WORLD)``: the call a blocked rank waits in."""
    call = rank.call or "MPI"
    why = rank.proc.blocked_in
    if isinstance(why, tuple) and why and why[0] == "probe":
        _, comm, source, tag = why
        source, tag = _wild(source, ANY_SOURCE, "ANY_SOURCE"), _wild(tag, ANY_TAG, "ANY_TAG")
        return f"{call}(source={source}, tag={tag}, comm={comm.label})"
    pending = [req for req in (why or ()) if not req.done]
    if not pending:
        return call
    more = f", +{len(pending) - 1} more" if len(pending) > 1 else ""
    return f"{call}({pending[0].describe()}{more})"


def barrier_text(comm, dist: int) -> str:
    """What an MPI_Ibarrier on ``comm`` in its round at distance ``dist`` waits in, for deadlock reports."""
    return f"Ibarrier round to rank {(comm.rank + dist) % comm.size}, comm={comm.label}"


def schedule_text(call: str, comm, step: int, is_send: int, peer: int) -> str:
    """What nonblocking collective ``call`` (``MPI_Iallreduce`` ...) on ``comm`` waits in, for deadlock reports: its
    schedule's ``step``, and there a send (``is_send`` 1) or a receive with ``peer``, a rank of ``comm``."""
    verb = "sending to" if is_send == 1 else "waiting for"
    return f"{call[4:]} step {step}, {verb} rank {peer}, comm={comm.label}"


def _wild(value, wildcard: int, name: str) -> str:
    return name if value == wildcard else str(value)


def deadlock_message(blocked: list[tuple[int, str]], now_s: float, total_ranks: int) -> str:
    """One line for a few blocked ranks; for many, an informative first line and one line per rank."""
    head = f"deadlock at t={now_s:.9g} s: {len(blocked)} of {total_ranks} ranks blocked"
    listed = [f"rank {r} in {call}" for r, call in blocked]
    if len(blocked) <= FIRST_LINE_RANKS:
        return f"{head}: " + "; ".join(listed)
    lines = [f"{head}, e.g. {listed[0]}"] + [f"  {entry}" for entry in listed[:MAX_LINES]]
    if len(listed) > MAX_LINES:
        lines.append(f"  ... and {len(listed) - MAX_LINES} more")
    return "\n".join(lines)

"""One-sided transfers on the compiled engine, for RMA windows (``ppt/mpi/engine/core/rma.c``).

A transfer is an RDMA message: no receive matches it and no CPU of the target's handles it.  It completes a
request of the rank that waits for it (an origin's operation, a grant, a notice), which the rank waits on
like any request (:func:`waitable`).  The NIC of a target answers at the engine's time, at no cost to the target's
process: a get's data, a lock's grant, an unlock's acknowledgement.  Sizes in bytes.
"""
from __future__ import annotations

from collections import defaultdict, deque

from ppt.mpi.constants import CONTROL_B
from ppt.mpi.engine.core import ffi, lib


def waitable(rank, comm, peer: int, q: int):
    """Engine request ``q`` as a request of the rank's class (``rank.request_class``) for ``rank`` to wait on,
    waiting 'for' rank ``peer`` of ``comm`` in deadlock reports."""
    req = rank.request_class(rank, False, comm, peer, 0, comm.coll_ctx)
    req.q = q
    return req


def put(rank, comm, target: int, nbytes: int):
    """``nbytes`` from ``rank`` (its own call) to rank ``target`` of ``comm``: the request completed on arrival."""
    q = lib.ppt_mpi_rma_request(rank.m, rank.me)
    lib.ppt_mpi_rma_put(rank.m, rank.me, rank.engine_of(comm.members[target]), nbytes, q, 1)
    return waitable(rank, comm, target, q)


def get(rank, comm, target: int, request_B: int, reply_B: int, served: list):
    """A request of ``request_B`` to rank ``target`` of ``comm`` and ``reply_B`` back from its NIC: the request
    completed when the reply arrives.  The target's part is added to ``served`` (see :func:`release_served`)."""
    out = ffi.new("int32_t *")
    target_engine = rank.engine_of(comm.members[target])
    q = lib.ppt_mpi_rma_get(rank.m, rank.me, target_engine, request_B, reply_B, out)
    served.append((target_engine, out[0]))
    return waitable(rank, comm, target, q)


def release_served(rank, served: list) -> None:
    """Release the targets' parts of gets whose reply has left (all of them once the replies arrived)."""
    out = ffi.new("int64_t[4]")
    for target_engine, s in list(served):
        if lib.ppt_mpi_req_done(rank.m, s):
            lib.ppt_mpi_wait_one(rank.m, target_engine, s, out)
            served.remove((target_engine, s))


def answer(rank, comm, source: int, dest: int, q: int) -> None:
    """A control message from the NIC of rank ``source`` of ``comm`` to rank ``dest``, now, completing engine
    request ``q`` (``dest``'s)."""
    lib.ppt_mpi_rma_put(rank.m, rank.engine_of(comm.members[source]), rank.engine_of(comm.members[dest]),
                        CONTROL_B, q, 0)


def expecting(rank, comm, owner: int) -> int:
    """A new engine request of rank ``owner`` of ``comm``, for a transfer yet to be sent."""
    return lib.ppt_mpi_rma_request(rank.m, rank.engine_of(comm.members[owner]))


def on_arrival(rank, requests: list, act) -> None:
    """Wait for every request of ``requests``, calling ``act(i)`` as request ``i`` completes (at its time; those
    completing at one instant in index order)."""
    pending = dict(enumerate(requests))
    while pending:
        done = [i for i, req in pending.items() if req.done]
        if not done:
            rank.block(list(pending.values()))
            continue
        for i in done:
            rank.wait(pending.pop(i))
            act(i)


class Mailbox:
    """Notices between the members of a window (PSCW's post and complete), by key (kind, from, to): each is a
    request of the receiver's that the sender's transfer completes, made by whichever side comes first."""

    def __init__(self):
        self.slots: dict = defaultdict(deque)

    def _take(self, key, side: str, rank, comm, receiver: int) -> int:
        queue = self.slots[key]
        if queue and queue[0][0] != side:
            return queue.popleft()[1]
        q = expecting(rank, comm, receiver)
        queue.append((side, q))
        return q

    def send(self, rank, comm, key, receiver: int) -> None:
        """Send notice ``key`` to rank ``receiver`` of ``comm`` (``rank``'s own call)."""
        q = self._take(key, "sent", rank, comm, receiver)
        lib.ppt_mpi_rma_put(rank.m, rank.me, rank.engine_of(comm.members[receiver]), CONTROL_B, q, 1)

    def expect(self, rank, comm, key, sender: int):
        """The request that completes when notice ``key`` from rank ``sender`` of ``comm`` reaches ``rank``."""
        return waitable(rank, comm, sender, self._take(key, "expected", rank, comm, comm.rank))

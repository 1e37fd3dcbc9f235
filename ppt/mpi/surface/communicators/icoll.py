"""Nonblocking collectives (MPI_Ibcast, MPI_Iallreduce ...) whose messages go on while the rank computes.

The call runs its blocking counterpart up to the start of the collective's schedule (the algorithm, its
block sizes and payloads as the blocking call has them), and the engine then runs the schedule in the
background (``ppt/mpi/engine/core/icoll.c``): its first step's messages leave at the call, each later
step's as soon as the step before it is over, while the rank goes on with its own work.  The request
completes at the schedule's end; the wait or test that retires it runs the rest of the blocking call
(combining the payloads, filling the receive buffer).  An ``Iallreduce`` of ``t`` seconds followed by
``C`` seconds of computation and a wait thus ends after about ``max(C, t)``, not ``C + t``.

The first schedule the call starts is the one that runs in the background: a call that agrees on sizes
first (``Ireduce_scatter`` without ``recvcounts``) runs that agreement so, and its reduction at the wait.
The rest of the call waits meanwhile in a greenlet of its own.  A call with nothing to send (one rank)
completes at once, and so does a schedule the background runner does not run (streams, relays and
flows: an all-gatherv's Bruck, NCCL's algorithms), which runs as the blocking call does.
"""
from __future__ import annotations

from greenlet import getcurrent, greenlet

from ppt.mpi.surface.core.calls import mpi_call


class _Call:
    """A nonblocking collective call of ``rank``: ``body`` (the blocking call) in a greenlet of its own, from the
    call to its schedule's start, and from the request's completion to its end."""

    __slots__ = ("rank", "glet", "request")

    def __init__(self, rank, body):
        self.rank = rank
        self.glet = greenlet(body, parent=getcurrent())
        self.request = None

    def hand_over(self, request):
        """The body's schedule started as ``request``: back to the caller; returns the slots at completion."""
        self.rank.background = None
        self.request = request
        request.finish = self.resume
        return self.glet.parent.switch()

    def resume(self, *slots) -> None:
        """Run the body (on: given its schedule's ``slots``), until it hands its schedule over or ends; a wait
        inside it resumes the body."""
        proc = self.rank.proc
        outer, proc.glet = proc.glet, self.glet
        try:
            self.glet.switch(*slots)
        finally:
            proc.glet = outer


def background(comm, body):
    """The request of ``body`` (a blocking collective call on ``comm``) started in the background."""
    rank = comm._rank
    call = _Call(rank, body)
    rank.background = call.hand_over
    try:
        call.resume()
    finally:
        rank.background = None
    if call.request is None:                 # over already
        return comm._done()
    return call.request


def nonblocking(name: str, blocking):
    """MPI call ``name``: ``blocking`` (a communicator method) started, its request returned."""
    @mpi_call(name)
    def start(comm, *args, **kwargs):
        return background(comm, lambda: blocking(comm, *args, **kwargs))
    start.__name__ = "I" + blocking.__name__.lower()
    return start

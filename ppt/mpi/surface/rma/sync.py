"""RMA synchronisation (MPI-3.1 section 11.5): fence, passive-target locks, flushes and PSCW, on a rank's
window (:class:`ppt.mpi.surface.rma.window.Win`).

Costs are those of the messages each needs (:mod:`ppt.mpi.surface.rma.transfer`): a fence completes the rank's
operations and is a barrier of the window's group; a lock is a request to the target and a grant back, the
target's lock granting in arrival order (shared locks together, exclusive ones alone); an unlock completes the
operations to the target, then a release there and an acknowledgement back; a flush waits for the operations
still in flight.  Post sends a notice to each origin, start waits for the targets' notices, complete sends
one to each target once its operations arrived, and wait waits for those.
"""
from __future__ import annotations

from collections import deque

from ppt.mpi.constants import CONTROL_B, RMA
from ppt.mpi.surface.rma import transfer

LOCK_EXCLUSIVE, LOCK_SHARED = RMA["LOCK_EXCLUSIVE"], RMA["LOCK_SHARED"]
MODE_NOCHECK, MODE_NOSUCCEED = RMA["MODE_NOCHECK"], RMA["MODE_NOSUCCEED"]


class TargetLock:
    """The lock of one window at one target: its holders and the origins waiting, in arrival order, each with
    the engine request its grant completes."""

    def __init__(self):
        self.exclusive = None
        self.shared: set[int] = set()
        self.waiting: deque = deque()

    def _free_for(self, lock_type: int) -> bool:
        return self.exclusive is None and (lock_type == LOCK_SHARED or not self.shared)

    def hold(self, origin: int, lock_type: int) -> None:
        """The origin holds the lock (granted, or taken under MODE_NOCHECK)."""
        if lock_type == LOCK_EXCLUSIVE:
            self.exclusive = origin
        else:
            self.shared.add(origin)

    def request(self, origin: int, lock_type: int, grant: int) -> bool:
        """An origin's request arrives: True if granted now, else it waits (``grant``: its grant's request)."""
        if not self.waiting and self._free_for(lock_type):
            self.hold(origin, lock_type)
            return True
        self.waiting.append((origin, lock_type, grant))
        return False

    def release(self, origin: int) -> list:
        """An origin's release arrives: the (origin, grant request) of each waiter granted now."""
        if self.exclusive == origin:
            self.exclusive = None
        else:
            self.shared.discard(origin)
        granted = []
        while self.waiting and self._free_for(self.waiting[0][1]):
            waiter, lock_type, grant = self.waiting.popleft()
            self.hold(waiter, lock_type)
            granted.append((waiter, grant))
        return granted


# -- completion ---------------------------------------------------------------------------------------
def flush(win, targets) -> None:
    """Wait until the rank's operations to ``targets`` (ranks of the window's group) are complete there."""
    rank = win._rank
    for target in targets:
        rank.wait_all(win.pending.pop(target, ()))
    transfer.release_served(rank, win.served)


def flush_all(win) -> None:
    flush(win, sorted(win.pending))


# -- fence --------------------------------------------------------------------------------------------
def fence(win, assertion: int) -> None:
    """Complete the rank's operations, then a barrier of the group; an epoch opens unless MODE_NOSUCCEED."""
    if win.locks or win.started is not None or win.posted is not None:
        raise win.error("a fence inside a lock or PSCW epoch (MPI_ERR_RMA_SYNC)")
    flush_all(win)
    win.comm.barrier()
    win.fence_open = not assertion & MODE_NOSUCCEED


# -- passive target ----------------------------------------------------------------------------------------
def lock(win, targets, lock_type: int, assertion: int = 0) -> None:
    """Lock the window at each of ``targets`` (ranks of its group) with ``lock_type``: requests to all at once,
    each granted by its target as it can; returns once all are granted.  Under MODE_NOCHECK (no other origin
    holds or asks for a conflicting lock, the program asserts) the lock is taken with no message."""
    if lock_type not in (LOCK_EXCLUSIVE, LOCK_SHARED):
        raise win.error(f"lock type {lock_type!r} is neither LOCK_EXCLUSIVE nor LOCK_SHARED (MPI_ERR_LOCKTYPE)")
    held = [t for t in targets if t in win.locks]
    if held:
        raise win.error(f"the window is already locked at rank {held[0]} (MPI_ERR_RMA_SYNC)")
    rank, comm, me = win._rank, win.comm, win.comm.rank
    if assertion & MODE_NOCHECK:
        for target in targets:
            win.state.locks[target].hold(me, lock_type)
            win.locks[target] = lock_type
        return
    grants = []

    def arrived(i):
        target = targets[i]
        grant = transfer.expecting(rank, comm, me)
        if win.state.locks[target].request(me, lock_type, grant):
            transfer.answer(rank, comm, target, me, grant)
        grants.append(transfer.waitable(rank, comm, target, grant))

    transfer.on_arrival(rank, [transfer.put(rank, comm, t, CONTROL_B) for t in targets], arrived)
    rank.wait_all(grants)
    for target in targets:
        win.locks[target] = lock_type


def unlock(win, targets) -> None:
    """Complete the rank's operations to ``targets``, then release its lock at each: a release to the target,
    which grants the origins waiting there, and an acknowledgement back."""
    missing = [t for t in targets if t not in win.locks]
    if missing:
        raise win.error(f"the window is not locked at rank {missing[0]} (MPI_ERR_RMA_SYNC)")
    flush(win, targets)
    rank, comm, me = win._rank, win.comm, win.comm.rank
    acks = []

    def arrived(i):
        target = targets[i]
        for waiter, grant in win.state.locks[target].release(me):
            transfer.answer(rank, comm, target, waiter, grant)
        ack = transfer.expecting(rank, comm, me)
        transfer.answer(rank, comm, target, me, ack)
        acks.append(transfer.waitable(rank, comm, target, ack))

    transfer.on_arrival(rank, [transfer.put(rank, comm, t, CONTROL_B) for t in targets], arrived)
    rank.wait_all(acks)
    for target in targets:
        del win.locks[target]


# -- general active target (PSCW) ------------------------------------------------------------------------
def post(win, origins) -> None:
    """Expose the window to ``origins`` (ranks of its group): a notice to each; their completions awaited."""
    if win.posted is not None:
        raise win.error("the window is already posted (MPI_ERR_RMA_SYNC)")
    rank, comm, me, mail = win._rank, win.comm, win.comm.rank, win.state.mail
    for origin in origins:
        mail.send(rank, comm, ("post", me, origin), origin)
    win.posted = [mail.expect(rank, comm, ("complete", origin, me), origin) for origin in origins]


def start(win, targets) -> None:
    """Open an access epoch to ``targets``: wait for each one's post notice."""
    if win.started is not None:
        raise win.error("an access epoch was already started (MPI_ERR_RMA_SYNC)")
    rank, comm, me, mail = win._rank, win.comm, win.comm.rank, win.state.mail
    rank.wait_all([mail.expect(rank, comm, ("post", target, me), target) for target in targets])
    win.started = tuple(targets)


def complete(win) -> None:
    """Close the access epoch: its operations complete at their targets, then a notice to each target."""
    if win.started is None:
        raise win.error("MPI_Win_complete without MPI_Win_start (MPI_ERR_RMA_SYNC)")
    flush(win, [t for t in win.started if t in win.pending])
    rank, comm, me, mail = win._rank, win.comm, win.comm.rank, win.state.mail
    for target in win.started:
        mail.send(rank, comm, ("complete", me, target), target)
    win.started = None


def _posted(win):
    if win.posted is None:
        raise win.error("no exposure epoch: MPI_Win_post was not called (MPI_ERR_RMA_SYNC)")
    return win.posted


def wait(win) -> None:
    """Close the exposure epoch once every origin completed its accesses."""
    win._rank.wait_all(_posted(win))
    win.posted = None


def test(win) -> bool:
    """:func:`wait` if every origin has completed, else False (an unsuccessful poll)."""
    win._rank.pay()
    if not all(req.done for req in _posted(win)):
        win._rank.api.polled("MPI_Win_test")
        return False
    wait(win)
    return True

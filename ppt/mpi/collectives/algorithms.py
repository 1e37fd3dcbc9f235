"""The collective algorithms of :mod:`ppt.mpi.collectives.calls` as schedules (:mod:`ppt.mpi.collectives.schedule`).

Each function gives rank ``me``'s schedule on a communicator of ``size``
ranks, from integers alone; the slot layout it documents is what
:mod:`ppt.mpi.collectives.calls` fills before the run and reads after.  A
``sendrecv`` of the algorithms' literature is a receive posted, then a send,
then waits for both in that order (:meth:`~ppt.mpi.collectives.schedule.Builder.sendrecv`).
Schedules of the algorithms with O(log P) steps per rank are cached; those with O(P) steps are cached on
communicators of at most :data:`SMALL_P` ranks, where they are as short.
"""
from __future__ import annotations

from functools import lru_cache, wraps

import numpy as np

from ppt.mpi.collectives.schedule import OP, UNPACK, Builder, Rounds

#: Schedules kept per cached algorithm (each a few hundred bytes).
CACHED = 4096
#: Peers MPICH's scattered all-to-all has messages posted with at once (the default of its throttle setting).
ALLTOALL_THROTTLE = 32
#: Communicators of at most this many ranks have their O(P)-step schedules cached too.
SMALL_P = 16


def cached_when_small(build):
    """``build`` (a schedule of O(P) steps, from ``me``, ``size`` and integers) cached while ``size`` is at most
    :data:`SMALL_P`: a program calling the collective again and again gets the schedule it ran before."""
    cached = lru_cache(maxsize=CACHED)(build)

    @wraps(build)
    def schedule(me: int, size: int, *args):
        return cached(me, size, *args) if size <= SMALL_P else build(me, size, *args)
    return schedule


def pof2_floor(n: int) -> int:
    """The largest power of two not above ``n`` (n >= 1)."""
    return 1 << (n.bit_length() - 1)


def is_pof2(n: int) -> bool:
    """``n`` is a power of two."""
    return n & (n - 1) == 0


# -- barrier -----------------------------------------------------------------------
@lru_cache(maxsize=CACHED)
def barrier_dissemination(me: int, size: int):
    """Slot 0: nothing (0 bytes)."""
    b = Builder()
    dist = 1
    while dist < size:
        b.sendrecv((me + dist) % size, 0, (me - dist) % size, 0)
        dist <<= 1
    return b.schedule(1)


# -- bcast -------------------------------------------------------------------------
def _bcast_binomial(b: Builder, me: int, size: int, root: int) -> None:
    rel = (me - root) % size
    mask = 1
    while mask < size:
        if rel & mask:
            b.wait(b.recv((rel - mask + root) % size, 0))
            break
        mask <<= 1
    mask >>= 1
    sends = []
    while mask:
        if rel + mask < size:
            sends.append(b.send((rel + mask + root) % size, 0))
        mask >>= 1
    b.wait(*sends)


@lru_cache(maxsize=CACHED)
def bcast_binomial(me: int, size: int, root: int):
    """Slot 0: the payload (the root's, received at the others)."""
    b = Builder()
    _bcast_binomial(b, me, size, root)
    return b.schedule(1)


@cached_when_small
def bcast_linear(me: int, size: int, root: int):
    """Slot 0: the payload."""
    b = Builder()
    if me != root:
        b.wait(b.recv(root, 0))
    else:
        b.wait(*[b.send(dest, 0) for dest in range(size) if dest != root])
    return b.schedule(1)


# -- reduce ------------------------------------------------------------------------
def _reduce_binomial(b: Builder, me: int, size: int, root: int, commutative: bool) -> None:
    """Slot 0: this rank's contribution, at the root the result; slot 1: a child's partial result."""
    tree_root = root if commutative else 0          # rank order kept for non-commutative ops
    rel = (me - tree_root) % size
    mask = 1
    while mask < size:
        if rel & mask:
            b.wait(b.send((rel - mask + tree_root) % size, 0))
            break
        if rel + mask < size:
            b.wait(b.recv((rel + mask + tree_root) % size, 1))
            b.combine(OP, 0, 0, 1)
        mask <<= 1
    if tree_root != root:
        if me == tree_root:
            b.wait(b.send(root, 0))
        elif me == root:
            b.wait(b.recv(tree_root, 0))


@lru_cache(maxsize=CACHED)
def reduce_binomial(me: int, size: int, root: int, commutative: bool):
    """Slot 0: the contribution, at the root the result; slot 1: scratch."""
    b = Builder()
    _reduce_binomial(b, me, size, root, commutative)
    return b.schedule(2)


@cached_when_small
def reduce_linear(me: int, size: int, root: int):
    """Slot 0: the contribution; at the root slot ``1 + src``: rank src's, slot ``size + 1``: the result
    (None to start with), combined in rank order."""
    b = Builder()
    if me != root:
        b.wait(b.send(root, 0))
        return b.schedule(1)
    result = size + 1
    b.wait(*[b.recv(src, 1 + src) for src in range(size) if src != root])
    for src in range(size):
        b.combine(OP, result, result, 0 if src == root else 1 + src)
    return b.schedule(size + 2)


# -- allreduce ---------------------------------------------------------------------
@lru_cache(maxsize=CACHED)
def allreduce_recursive_doubling(me: int, size: int):
    """Slot 0: the contribution, then the result; slot 1: a partner's.  Non-powers of two: the first
    2(P - 2^k) ranks fold pairwise first and the odd one of each pair hands the result back."""
    b = Builder()
    pof2 = pof2_floor(size)
    rem = size - pof2
    if me < 2 * rem:
        if me % 2 == 0:
            b.wait(b.send(me + 1, 0))
            new_rank = -1
        else:
            b.wait(b.recv(me - 1, 1))
            b.combine(OP, 0, 1, 0)
            new_rank = me // 2
    else:
        new_rank = me - rem
    if new_rank >= 0:
        mask = 1
        while mask < pof2:
            new_peer = new_rank ^ mask
            peer = new_peer * 2 + 1 if new_peer < rem else new_peer + rem
            b.sendrecv(peer, 0, peer, 1)
            if new_peer < new_rank:
                b.combine(OP, 0, 1, 0)
            else:
                b.combine(OP, 0, 0, 1)
            mask <<= 1
    if me < 2 * rem:
        if me % 2:
            b.wait(b.send(me - 1, 0))
        else:
            b.wait(b.recv(me + 1, 0))
    return b.schedule(2)


def _ring_neighbours(me: int, size: int) -> tuple:
    """Per round of a ring of ``size`` ranks (size - 1 rounds): the rank ``me`` sends to (the right
    neighbour) and the one it receives from (the left)."""
    return np.full(size - 1, (me + 1) % size), np.full(size - 1, (me - 1) % size)


def _ring_reduce_scatter(me: int, size: int, have: int) -> Rounds:
    """Reduce blocks (slots 0 .. size - 1; slot ``size``: scratch) round the ring; this rank ends
    holding complete block ``have``."""
    step = np.arange(size - 1)
    out, into, scratch = (have - 1 - step) % size, (have - 2 - step) % size, np.full(size - 1, size)
    right, left = _ring_neighbours(me, size)
    return Rounds(size + 1, right, out, left, scratch, np.stack((into, scratch, into), axis=1))


def _ring_allgather(me: int, size: int, have: int, slots: int) -> Rounds:
    """Circulate blocks (slots 0 .. size - 1 of ``slots``) round the ring; this rank starts with complete
    block ``have``."""
    step = np.arange(size - 1)
    right, left = _ring_neighbours(me, size)
    return Rounds(slots, right, (have - step) % size, left, (have - step - 1) % size)


def allreduce_ring(me: int, size: int):
    """Slots 0 .. size - 1: the contribution cut in blocks, then the result's; slot ``size``: scratch.
    Reduce-scatter then allgather round the ring (commutative ops)."""
    have = (me + 1) % size
    return _ring_reduce_scatter(me, size, have).then(_ring_allgather(me, size, have, size + 1))


@lru_cache(maxsize=CACHED)
def allreduce_reduce_bcast(me: int, size: int, commutative: bool):
    """Slot 0: the contribution, then the result; slot 1: scratch.  A binomial reduce to rank 0,
    then a binomial bcast from it."""
    b = Builder()
    _reduce_binomial(b, me, size, 0, commutative)
    _bcast_binomial(b, me, size, 0)
    return b.schedule(2)


# -- gather / scatter ----------------------------------------------------------------
@lru_cache(maxsize=CACHED)
def gather_binomial(me: int, size: int, root: int):
    """Slot r: the block of rank ``root + r`` (mod size).  Every rank but the root sends its subtree's
    blocks in one message."""
    b = Builder()
    rel = (me - root) % size
    mask = 1
    while mask < size:
        if rel & mask:
            b.wait(b.send((rel - mask + root) % size, rel, min(mask, size - rel)))
            break
        child = rel + mask
        if child < size:
            b.wait(b.recv((child + root) % size, child, min(mask, size - child)))
        mask <<= 1
    return b.schedule(size)


@cached_when_small
def gather_linear(me: int, size: int, root: int):
    """Slot r: rank r's block."""
    b = Builder()
    if me != root:
        b.wait(b.send(root, me))
    else:
        b.wait(*[b.recv(src, src) for src in range(size) if src != root])
    return b.schedule(size)


@lru_cache(maxsize=CACHED)
def scatter_binomial(me: int, size: int, root: int, base: int = 0):
    """Slot ``base + r``: the block for rank ``root + r`` (mod size); a rank receives its subtree's
    blocks and ends with its own in slot ``base + (me - root) % size``."""
    b = Builder()
    _scatter_binomial(b, me, size, root, base)
    return b.schedule(base + size)


def _scatter_binomial(b: Builder, me: int, size: int, root: int, base: int) -> None:
    rel = (me - root) % size
    if rel == 0:
        mask = 1 << (size - 1).bit_length()
    else:
        mask = rel & -rel
        b.wait(b.recv((rel - mask + root) % size, base + rel, min(mask, size - rel)))
    mask >>= 1
    sends = []
    while mask:
        if rel + mask < size:
            sends.append(b.send((rel + mask + root) % size, base + rel + mask, min(mask, size - rel - mask)))
        mask >>= 1
    b.wait(*sends)


@cached_when_small
def scatter_linear(me: int, size: int, root: int):
    """Slot r: the block for rank r."""
    b = Builder()
    if me != root:
        b.wait(b.recv(root, me))
    else:
        b.wait(*[b.send(dest, dest) for dest in range(size) if dest != root])
    return b.schedule(size)


# -- allgather -----------------------------------------------------------------------
def allgather_ring(me: int, size: int):
    """Slot r: rank r's block."""
    return _ring_allgather(me, size, me, size)


@lru_cache(maxsize=CACHED)
def allgather_recursive_doubling(me: int, size: int):
    """Slot r: rank r's block; at distance d a rank swaps its aligned group of d blocks (size a power of two)."""
    b = Builder()
    mask = 1
    while mask < size:
        peer = me ^ mask
        b.sendrecv(peer, me & -mask, peer, peer & -mask, mask, mask)
        mask <<= 1
    return b.schedule(size)


@lru_cache(maxsize=CACHED)
def allgather_bruck(me: int, size: int):
    """Slot i: the block of rank ``me + i`` (mod size)."""
    b = Builder()
    dist = 1
    while dist < size:
        count = min(dist, size - dist)
        b.sendrecv((me - dist) % size, 0, (me + dist) % size, dist, count, count)
        dist <<= 1
    return b.schedule(size)


# -- alltoall ------------------------------------------------------------------------
def alltoall_pairwise(me: int, size: int):
    """Slot r: the block for rank r; slot ``size + r``: the block from rank r.  XOR partners for
    powers of two, else a shifted ring."""
    step = np.arange(1, size)
    if is_pof2(size):
        dests = sources = me ^ step
    else:
        dests, sources = (me + step) % size, (me - step) % size
    return Rounds(2 * size, dests, dests, sources, size + sources)


@cached_when_small
def alltoall_isend_irecv(me: int, size: int):
    """Slots as :func:`alltoall_pairwise`; every receive, then every send, posted at once."""
    b = Builder()
    recvs = [b.recv(src, size + src) for src in ((me - step) % size for step in range(1, size))]
    sends = [b.send(dest, dest) for dest in ((me + step) % size for step in range(1, size))]
    b.wait(*recvs, *sends)
    return b.schedule(2 * size)


@cached_when_small
def alltoall_scattered(me: int, size: int, throttle: int = ALLTOALL_THROTTLE):
    """Slots as :func:`alltoall_pairwise`; MPICH's scattered algorithm (its Alltoallv default): the peers in
    blocks of ``throttle``, this rank itself first, each block's receives (from ``me + i``) then sends (to
    ``me - i``) posted at once and waited for.  The block a rank keeps is a message to itself, which
    costs what a copy through the node's memory does, as MPICH's self-message does."""
    b = Builder()
    for first in range(0, size, throttle):
        steps = range(first, min(first + throttle, size))
        recvs = [b.recv((me + i) % size, size + (me + i) % size) for i in steps]
        sends = [b.send((me - i) % size, (me - i) % size) for i in steps]
        b.wait(*recvs, *sends)
    return b.schedule(2 * size)


# -- reduce_scatter --------------------------------------------------------------------
def reduce_scatter_ring(me: int, size: int):
    """Slots 0 .. size - 1: the blocks, block ``me`` ends reduced; slot ``size``: scratch."""
    return _ring_reduce_scatter(me, size, me)


@lru_cache(maxsize=CACHED)
def reduce_scatter_reduce_scatterv(me: int, size: int, commutative: bool):
    """Slot 0: the list of blocks, reduced (blockwise) to rank 0; slot 1: scratch; rank 0 unpacks the
    result into slots 2 .. size + 1 and scatters them (binomially): a rank's block ends in slot 2 + me."""
    b = Builder()
    _reduce_binomial(b, me, size, 0, commutative)
    if me == 0:
        b.combine(UNPACK, 2, 0, size)
    _scatter_binomial(b, me, size, 0, 2)
    return b.schedule(size + 2)


# -- scan ----------------------------------------------------------------------------
@lru_cache(maxsize=CACHED)
def scan_recursive_doubling(me: int, size: int):
    """Slot 0: the partial reduction of this rank's group (the contribution to start with); slot 1:
    the result (the contribution for scan, None for exscan); slot 2: a partner's partial."""
    b = Builder()
    mask = 1
    while mask < size:
        peer = me ^ mask
        if peer < size:
            b.sendrecv(peer, 0, peer, 2)
            if peer < me:
                b.combine(OP, 0, 2, 0)
                b.combine(OP, 1, 2, 1)
            else:
                b.combine(OP, 0, 0, 2)
        mask <<= 1
    return b.schedule(3)


@lru_cache(maxsize=CACHED)
def scan_linear(me: int, size: int):
    """Slot 0: the contribution; slot 1: the reduction of the lower ranks' (None at rank 0); slot 2:
    slot 1 combined with slot 0, passed on to the next rank."""
    b = Builder()
    if me > 0:
        b.wait(b.recv(me - 1, 1))
    b.combine(OP, 2, 1, 0)
    if me + 1 < size:
        b.wait(b.send(me + 1, 2))
    return b.schedule(3)


# -- NCCL's pipelined ring (ppt.mpi.collectives.nccl) ------------------------------------------------------
def nccl_ring(me: int, size: int, slices: int, reductions: int, copies: int, have: int):
    """NCCL's ring over ``slices`` slices of ``size`` blocks: ``reductions`` steps that reduce, then
    ``copies`` that copy.  At step s a rank sends block ``have - 1 - s`` (mod size) of each slice to its
    right neighbour and receives block ``have - 2 - s`` from its left one; steps run in order, the
    slices of a step one after the other, so a rank forwards slice q of step s as soon as it has it.
    Every receive is posted at the start.

    Slots: block b of slice q is slot ``q * size + b``; a reduction's received block lands in a slot
    of its own after those (``size * slices`` + its receive's number), then ``OP``-combines into the
    rank's block (received operand first).
    """
    b = Builder()
    right, left = (me + 1) % size, (me - 1) % size
    steps = reductions + copies
    blocks = size * slices
    receives = []
    for k in range(steps * slices):
        s, q = divmod(k, slices)
        block = (have - 2 - s) % size
        receives.append(b.recv(left, blocks + k if s < reductions else q * size + block))
    sends = [b.send(right, q * size + (have - 1) % size) for q in range(slices)]
    for s in range(1, steps + 1):
        block = (have - 1 - s) % size
        for q in range(slices):
            k = (s - 1) * slices + q
            b.wait(receives[k])
            if s <= reductions:
                b.combine(OP, q * size + block, blocks + k, q * size + block)
            if s < steps:
                sends.append(b.send(right, q * size + block))
    b.wait(*sends)
    return b.schedule(blocks + reductions * slices)


def nccl_allgather(me: int, size: int, pieces: int):
    """NCCL's ring all-gather (P > 1) of blocks cut into pieces, as many as each block's size asks: a
    rank sends its own ``pieces`` right as one stream, relays the streams of the P-2 ranks before it
    on the ring right as they come from the left (its left neighbour's first), keeps the last, its
    right neighbour's, then waits for its sends in the order it posted them.

    Slots: the rank's own pieces ``0 .. pieces - 1``, then every piece received, in the order received.
    """
    b = Builder()
    right, left = (me + 1) % size, (me - 1) % size
    sends = b.stream(right, 0, pieces)
    if size > 2:
        relayed = b.relay(left, right, size - 2)
        b.wait(relayed)
    b.wait(b.relay(left, -1, 1), *sends)
    if size > 2:
        b.wait(~relayed)
    return b.schedule(pieces)


# -- neighbourhood collectives -------------------------------------------------------
def neighbor_exchange(sources: list, dests: list, send_slots: list, first_recv: int, slots: int,
                      recv_order=None):
    """One step: a receive from each of ``sources`` into slots ``first_recv``, ``first_recv + 1`` ... (posted
    in ``recv_order``, indices into ``sources``; default their order) and a send of slot ``send_slots[j]`` to
    each of ``dests``, in order, PROC_NULL ones skipped; then wait for all.  Two messages between one pair of
    ranks match in the order they were posted."""
    b = Builder()
    order = range(len(sources)) if recv_order is None else recv_order
    posted = [b.recv(sources[i], first_recv + i) for i in order if sources[i] >= 0]
    posted += [b.send(peer, slot) for peer, slot in zip(dests, send_slots) if peer >= 0]
    if posted:
        b.wait(*posted)
    return b.schedule(slots)

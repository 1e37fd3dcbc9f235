"""NCCL-style collectives of AI training: pipelined rings over channels, the double binary tree, all-to-all.

Algorithms of NCCL (github.com/NVIDIA/nccl), built from the simulated MPI's
point-to-point messages and registered beside the MPI ones in
:data:`ppt.mpi.collectives.ALGORITHMS`:

==============  =============  ===============================================
allreduce       ``nccl_ring``  reduce-scatter then all-gather round one ring,
                               2(P-1) steps (src/device/all_reduce.h, runRing)
allreduce       ``nccl_tree``  double binary tree: two complementary binary
                               trees, each carrying half the buffer, reduced
                               up and broadcast down at once (runTreeUpDown;
                               trees of src/graph/trees.cc)
allgather       ``nccl_ring``  P-1 ring steps
reduce_scatter  ``nccl_ring``  P-1 ring steps
alltoall        ``nccl_p2p``   one send and one receive per peer, all posted
                               at once (NCCL's grouped ncclSend/ncclRecv)
==============  =============  ===============================================

A buffer is cut as NCCL cuts it (:class:`~ppt.mpi.settings.MPISettings`,
read once per call): into ``nccl_channels`` channels, each an independent ring
(or pair of trees), and each channel's share into chunks of at most
``nccl_chunk_B`` bytes.  Chunks are pipelined: a rank forwards chunk c of a
ring step as soon as it holds it, while chunk c+1 is on its way, so a step
does not wait for the whole of the previous one.  Ranks follow communicator
order on every ring and the trees are built over the communicator's ranks
(NCCL orders rings and trees by its topology search, with a chain through
each node's GPUs; here the network, with its on-node fabric and rails,
decides what each hop costs).  Reductions are computed exactly, in zero time.

Every algorithm carries ``cost(size, nbytes) -> (messages, bytes)`` as
:mod:`ppt.mpi.collectives` defines it, for the default settings.
"""
from __future__ import annotations

from collections import deque

from ppt.mpi.payload import join, split, split_sizes
from ppt.mpi.settings import MPISettings

_DEFAULTS = MPISettings()


# -- cutting buffers ---------------------------------------------------------------
def _chunk_count(nbytes: int, chunk_B: int) -> int:
    """Chunks of at most ``chunk_B`` bytes that ``nbytes`` is cut into (at least one)."""
    return max(1, -(-nbytes // chunk_B))


def _layout(sizes: list, channels: int, chunk_B: int) -> list[int]:
    """Per channel, the chunks its share of every block is cut into: enough for the largest share."""
    shares = [split_sizes(size, channels) for size in sizes]
    return [_chunk_count(max(share[ch] for share in shares), chunk_B) for ch in range(channels)]


def _slices(blocks: list, sizes: list, channels: int, chunk_B: int):
    """``blocks`` (one per rank) cut into slices: slice q holds chunk k of channel ch of every block.

    Returns ``(slices, slice_sizes, layout)``: ``slices[q][b]`` is block b's piece in slice q,
    ``slice_sizes[q][b]`` its bytes, ``layout`` the chunk count per channel (:func:`_layout`).
    """
    layout = _layout(sizes, channels, chunk_B)
    shares = [split(block, channels) for block in blocks]
    share_sizes = [split_sizes(size, channels) for size in sizes]
    slices, slice_sizes = [], []
    for ch, count in enumerate(layout):
        pieces = [split(share[ch], count) for share in shares]
        piece_sizes = [split_sizes(share[ch], count) for share in share_sizes]
        for k in range(count):
            slices.append([piece[k] for piece in pieces])
            slice_sizes.append([piece[k] for piece in piece_sizes])
    return slices, slice_sizes, layout


def _unslice(slices: list, layout: list[int], b: int):
    """Block ``b`` put back together from its pieces (inverse of :func:`_slices`)."""
    shares, q = [], 0
    for count in layout:
        shares.append(join([slices[q + k][b] for k in range(count)]))
        q += count
    return join(shares)


def _settings(c) -> tuple[int, int]:
    settings = c.rank.job.settings
    return settings.nccl_channels, settings.nccl_chunk_B


def _require_commutative(c, op, collective: str) -> None:
    if not op.commutative:
        raise c.rank.error(f"NCCL's {collective} reorders operands and needs a commutative op, {op} is not; "
                           f"use an MPI algorithm")


# -- the pipelined ring ----------------------------------------------------------------
def _ring(c, slices: list, sizes: list, ops: list, have: int) -> None:
    """Run ``len(ops)`` ring steps on every slice, pipelined slice by slice.

    At step s a rank sends block ``have - 1 - s`` (mod P) of each slice to its right
    neighbour and receives block ``have - 2 - s`` from its left one, which it combines
    with ``ops[s]`` (None: the received block replaces its own).  Steps run in order, the
    slices of a step one after the other, so a rank forwards slice q of step s as soon
    as it has it while slice q+1 of step s-1 is still arriving.  All receives are posted
    at the start (NCCL's receive buffers are ready before data arrives).  With reductions
    for the first P-1 steps and copies for the next P-1, the rank ends holding every block
    complete; with P-1 reductions, block ``have`` complete.
    """
    me, size = c.me, c.size
    right, left = (me + 1) % size, (me - 1) % size
    steps = len(ops)
    recvs = deque(c.irecv(left) for _ in range(steps * len(slices)))
    sends = []
    for s in range(steps + 1):
        block = (have - 1 - s) % size
        for q, pieces in enumerate(slices):
            if s:
                req = recvs.popleft()
                c.wait(req)
                data, sizes[q][block] = c.value(req)
                op = ops[s - 1]
                pieces[block] = data if op is None else op(data, pieces[block])
            if s < steps:
                sends.append(c.isend(right, sizes[q][block], pieces[block]))
    c.waitall(sends)


def _ring_allreduce_cost(p, s, channels=_DEFAULTS.nccl_channels, chunk_B=_DEFAULTS.nccl_chunk_B):
    slices = sum(_layout(split_sizes(s, p), channels, chunk_B))
    return 2 * p * (p - 1) * slices, 2 * (p - 1) * s


def allreduce_ring(c, obj, op, nbytes):
    _require_commutative(c, op, "ring all-reduce")
    size = c.size
    slices, sizes, layout = _slices(split(obj, size), split_sizes(nbytes, size), *_settings(c))
    _ring(c, slices, sizes, [op] * (size - 1) + [None] * (size - 1), c.me + 1)
    return join([_unslice(slices, layout, b) for b in range(size)])


def _ring_reduce_scatter_cost(p, s, channels=_DEFAULTS.nccl_channels, chunk_B=_DEFAULTS.nccl_chunk_B):
    slices = sum(_layout([s] * p, channels, chunk_B))
    return p * (p - 1) * slices, p * (p - 1) * s


def reduce_scatter_ring(c, objs, op, sizes):
    _require_commutative(c, op, "ring reduce-scatter")
    slices, slice_sizes, layout = _slices(list(objs), list(sizes), *_settings(c))
    _ring(c, slices, slice_sizes, [op] * (c.size - 1), c.me)
    return _unslice(slices, layout, c.me)


# -- ring all-gather: every rank's pieces forwarded round the ring ------------------------
def _ring_allgather_cost(p, s, channels=_DEFAULTS.nccl_channels, chunk_B=_DEFAULTS.nccl_chunk_B):
    pieces = sum(_layout([s], channels, chunk_B))
    return p * (p - 1) * pieces, p * (p - 1) * s


def allgather_ring(c, obj, nbytes):
    """Each rank sends its own pieces right, then forwards every piece it receives from the left
    until the piece is one hop short of its origin.  Pieces carry ``(origin, index, layout)`` so
    blocks of different sizes (allgatherv) need no agreement beforehand."""
    me, size = c.me, c.size
    right, left = (me + 1) % size, (me - 1) % size
    slices, slice_sizes, layout = _slices([obj], [nbytes], *_settings(c))
    sends = [c.isend(right, piece_B[0], ((me, q, tuple(layout)), piece[0]))
             for q, (piece, piece_B) in enumerate(zip(slices, slice_sizes))]
    received = {}                                            # origin -> (its layout, {index: piece})
    complete = 0
    while complete < size - 1:
        ((origin, q, origin_layout), data), piece_B = c.recv(left)
        pieces = received.setdefault(origin, (origin_layout, {}))[1]
        pieces[q] = data
        if origin != right:
            sends.append(c.isend(right, piece_B, ((origin, q, origin_layout), data)))
        complete += len(pieces) == sum(origin_layout)
    c.waitall(sends)
    result = [None] * size
    result[me] = obj
    for origin, (origin_layout, pieces) in received.items():
        result[origin] = _unslice([[pieces[q]] for q in range(len(pieces))], origin_layout, 0)
    return result


# -- double binary tree ------------------------------------------------------------------
def _btree(size: int, rank: int) -> tuple[int, list[int]]:
    """``(parent, children)`` of ``rank`` in NCCL's binary tree over ``size`` ranks (src/graph/trees.cc,
    ncclGetBtree); the root, rank 0, has parent -1 and one child.

    Ranks sit in in-order position: a rank whose lowest set bit is b hangs below
    ``rank ^ b | 2b`` (below ``rank ^ b`` where that is out of range) and has children
    ``rank - b/2`` and ``rank + b/2``, the right one moved down a level while out of range.
    """
    bit = 1
    while bit < size and not bit & rank:
        bit <<= 1
    if rank == 0:
        return -1, [bit >> 1] if size > 1 else []
    parent = rank ^ bit | bit << 1
    if parent >= size:
        parent = rank ^ bit
    low = bit >> 1
    children = [rank - low] if low else []
    while low and rank + low >= size:
        low >>= 1
    if low:
        children.append(rank + low)
    return parent, children


def _dtree(size: int, rank: int, tree: int) -> tuple[int, list[int]]:
    """``(parent, children)`` of ``rank`` in tree 0 or 1 of NCCL's double binary tree (ncclGetDtree):
    tree 1 is tree 0 mirrored (ranks r -> P-1-r) for even P, shifted by one rank for odd P, so that
    ranks that are leaves in one tree are inner ranks of the other."""
    if tree == 0:
        return _btree(size, rank)
    if size % 2:
        parent, children = _btree(size, (rank - 1) % size)
        back = [(r + 1) % size for r in (parent, *children)]
    else:
        parent, children = _btree(size, size - 1 - rank)
        back = [size - 1 - r for r in (parent, *children)]
    return (-1 if parent < 0 else back[0]), back[1:]


def _tree_allreduce_cost(p, s, channels=_DEFAULTS.nccl_channels, chunk_B=_DEFAULTS.nccl_chunk_B):
    chunks = sum(_chunk_count(part, chunk_B) for part in split_sizes(s, 2 * channels))
    return 2 * (p - 1) * chunks, 2 * (p - 1) * s


class _Arrivals:
    """The messages of one collective from known peers: every receive posted at the start, in the
    order each peer sends, and what arrived kept by ``(peer, key)`` (a message carries ``(key, data)``)."""

    def __init__(self, c, expected: dict):
        self.c = c
        self.queues = {peer: deque(c.irecv(peer) for _ in range(count)) for peer, count in expected.items()}
        self.got = {}

    def wait(self) -> None:
        """Block until at least one more message has arrived; file what arrived."""
        rank = self.c.rank
        heads = [queue[0] for queue in self.queues.values() if queue]
        while not any(req.done for req in heads):
            rank.block(heads)
        for peer, queue in self.queues.items():
            while queue and queue[0].done:
                req = queue.popleft()
                rank.take(req)
                key, data = self.c.value(req)[0]
                self.got[peer, key] = data


def _run(arrivals: _Arrivals, streams: list) -> None:
    """Run ``streams`` (lists of ``(needed keys, action)`` steps, each stream in order) as their
    keys arrive: a step runs once every ``(peer, key)`` it needs is in, with those payloads."""
    streams = [deque(stream) for stream in streams if stream]
    while streams:
        moved = False
        for stream in streams:
            while stream and all(key in arrivals.got for key in stream[0][0]):
                needs, action = stream.popleft()
                action(*[arrivals.got.pop(key) for key in needs])
                moved = True
        streams = [stream for stream in streams if stream]
        if streams and not moved:
            arrivals.wait()


def allreduce_tree(c, obj, op, nbytes):
    """The buffer cut into 2 x channels parts, part j on tree j % 2, each part in chunks; a rank
    reduces a chunk from its children's, sends it up, and sends the final chunk down as soon as it
    comes from above (the root turns it round), chunk after chunk, up and down at once."""
    _require_commutative(c, op, "tree all-reduce")
    me, size = c.me, c.size
    channels, chunk_B = _settings(c)
    parts = 2 * channels
    part_sizes = split_sizes(nbytes, parts)
    counts = [_chunk_count(part_B, chunk_B) for part_B in part_sizes]
    chunks = [split(part, count) for part, count in zip(split(obj, parts), counts)]
    chunk_sizes = [split_sizes(part_B, count) for part_B, count in zip(part_sizes, counts)]
    trees = [_dtree(size, me, tree) for tree in (0, 1)]
    expected = {}
    for j, count in enumerate(counts):
        parent, children = trees[j % 2]
        for peer in children + ([parent] if parent >= 0 else []):
            expected[peer] = expected.get(peer, 0) + count
    arrivals = _Arrivals(c, expected)
    sends = []

    def up(j, k, parent, children):
        def action(*got):
            total = chunks[j][k]
            for data in got:
                total = op(data, total)
            if parent < 0:
                arrivals.got[me, ("down", j, k)] = total
            else:
                sends.append(c.isend(parent, chunk_sizes[j][k], (("up", j, k), total)))
        return [(child, ("up", j, k)) for child in children], action

    def down(j, k, parent, children):
        def action(total):
            chunks[j][k] = total
            sends.extend(c.isend(child, chunk_sizes[j][k], (("down", j, k), total)) for child in children)
        return [(me if parent < 0 else parent, ("down", j, k))], action

    streams = []
    for tree, (parent, children) in enumerate(trees):
        order = [(j, k) for k in range(max(counts)) for j in range(tree, parts, 2) if k < counts[j]]
        streams.append([up(j, k, parent, children) for j, k in order])
        streams.append([down(j, k, parent, children) for j, k in order])
    _run(arrivals, streams)
    c.waitall(sends)
    return join([join(part) for part in chunks])


#: The algorithms by collective: ``{kind: {name: (algorithm, cost)}}``, ``cost(size, nbytes)`` as
#: :func:`ppt.mpi.collectives.costs` attaches it (for the default settings).
ALGORITHMS = {
    "allreduce": {"nccl_ring": (allreduce_ring, _ring_allreduce_cost),
                  "nccl_tree": (allreduce_tree, _tree_allreduce_cost)},
    "allgather": {"nccl_ring": (allgather_ring, _ring_allgather_cost)},
    "reduce_scatter": {"nccl_ring": (reduce_scatter_ring, _ring_reduce_scatter_cost)},
}

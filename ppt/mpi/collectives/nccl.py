"""NCCL-style collectives of AI training: pipelined rings over channels, the double binary tree, all-to-all.

Algorithms of NCCL (github.com/NVIDIA/nccl), built from the simulated MPI's
point-to-point messages and registered beside the MPI ones in
:data:`ppt.mpi.collectives.calls.ALGORITHMS`:

==============  =============  ===============================================
allreduce       ``nccl_ring``  reduce-scatter then all-gather round one ring,
                               2(P-1) steps (src/device/all_reduce.h, runRing)
allreduce       ``nccl_tree``  double binary tree over the nodes, a chain
                               through each node's ranks: two trees, each
                               carrying half the buffer, reduced up and
                               broadcast down at once (runTreeUpDown; trees of
                               src/graph/trees.cc and src/graph/connect.cc)
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
order on every ring (NCCL orders rings by its topology search; here the
network, with its on-node fabric and rails, decides what each hop costs).
The trees are built over nodes, as NCCL builds them: the double binary tree
joins one rank per node, and within a node the ranks form a chain, taken
from the communicator's ranks and the node each runs on (see
:func:`_node_trees`).  As in NCCL, the tree halves its chunk size for buffers
too small to fill its pipeline (:func:`_tree_chunk_B`), and each stream of a
tree keeps at most :data:`WINDOW` chunks on their way, NCCL's buffer slots per
connection (the rings need no such limit: every rank of a ring sends and
receives alike).  Reductions are computed exactly, in zero time.

Every algorithm carries ``cost(size, nbytes) -> (messages, bytes)`` as
:mod:`ppt.mpi.collectives.calls` defines it, for the default settings.
"""
from __future__ import annotations

import weakref

from ppt.mpi.collectives import algorithms
from ppt.mpi.collectives.payload import join, split, split_sizes
from ppt.mpi.collectives.schedule import OP, Builder, Flow
from ppt.mpi.settings import MPISettings

_DEFAULTS = MPISettings()
#: Chunks a tree stream may have on their way at once: NCCL's 8 buffer slots (steps) per
#: connection (src/include/device.h), a slot freed here when its chunk has left the sender.
WINDOW = 8


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
def _ring(c, slices: list, sizes: list, op, reductions: int, copies: int, have: int) -> None:
    """Run NCCL's ring (:func:`ppt.mpi.collectives.algorithms.nccl_ring`) on every slice, in place: ``reductions``
    steps that combine with ``op``, then ``copies`` that replace.  With P-1 of each, the rank ends
    holding every block complete; with P-1 reductions, block ``have`` complete."""
    size, count = c.size, len(slices)
    values = [piece for pieces in slices for piece in pieces] + [None] * (reductions * count)
    slot_sizes = [nbytes for row in sizes for nbytes in row] + [0] * (reductions * count)
    values = c.run(algorithms.nccl_ring(c.me, size, count, reductions, copies, have), values, slot_sizes, op)
    for q in range(count):
        slices[q][:] = values[q * size:(q + 1) * size]


def _ring_allreduce_cost(p, s, channels=_DEFAULTS.nccl_channels, chunk_B=_DEFAULTS.nccl_chunk_B):
    slices = sum(_layout(split_sizes(s, p), channels, chunk_B))
    return 2 * p * (p - 1) * slices, 2 * (p - 1) * s


def allreduce_ring(c, obj, op, nbytes):
    _require_commutative(c, op, "ring all-reduce")
    size = c.size
    slices, sizes, layout = _slices(split(obj, size), split_sizes(nbytes, size), *_settings(c))
    _ring(c, slices, sizes, op, size - 1, size - 1, c.me + 1)
    return join([_unslice(slices, layout, b) for b in range(size)])


def _ring_reduce_scatter_cost(p, s, channels=_DEFAULTS.nccl_channels, chunk_B=_DEFAULTS.nccl_chunk_B):
    slices = sum(_layout([s] * p, channels, chunk_B))
    return p * (p - 1) * slices, p * (p - 1) * s


def reduce_scatter_ring(c, objs, op, sizes):
    _require_commutative(c, op, "ring reduce-scatter")
    slices, slice_sizes, layout = _slices(list(objs), list(sizes), *_settings(c))
    _ring(c, slices, slice_sizes, op, c.size - 1, 0, c.me)
    return _unslice(slices, layout, c.me)


# -- ring all-gather: every rank's pieces forwarded round the ring ------------------------
def _ring_allgather_cost(p, s, channels=_DEFAULTS.nccl_channels, chunk_B=_DEFAULTS.nccl_chunk_B):
    pieces = sum(_layout([s], channels, chunk_B))
    return p * (p - 1) * pieces, p * (p - 1) * s


def allgather_ring(c, obj, nbytes):
    """Each rank's pieces go round the ring (:func:`ppt.mpi.collectives.algorithms.nccl_allgather`), each carrying
    ``(origin, index, layout)`` so that blocks of different sizes (allgatherv), cut into different
    numbers of pieces, need no agreement beforehand."""
    me = c.me
    slices, slice_sizes, layout = _slices([obj], [nbytes], *_settings(c))
    pieces = len(slices)
    values = c.run(algorithms.nccl_allgather(me, c.size, pieces),
                   [((me, q, tuple(layout)), piece[0]) for q, piece in enumerate(slices)],
                   [piece_B[0] for piece_B in slice_sizes])
    received = {}                                            # origin -> (its layout, {index: piece})
    for (origin, q, origin_layout), data in values[pieces:]:
        received.setdefault(origin, (origin_layout, {}))[1][q] = data
    result = [None] * c.size
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


def _dtree_position(size: int, rank: int, tree: int) -> int:
    """Where ``rank`` sits in tree 0 or 1 of :func:`_dtree`: its position in the binary tree
    (:func:`_btree`) that the tree is a mirrored or shifted copy of."""
    if tree == 0:
        return rank
    return (rank - 1) % size if size % 2 else size - 1 - rank


def _dtree(size: int, rank: int, tree: int) -> tuple[int, list[int]]:
    """``(parent, children)`` of ``rank`` in tree 0 or 1 of NCCL's double binary tree (ncclGetDtree):
    tree 1 is tree 0 mirrored (ranks r -> P-1-r) for even P, shifted by one rank for odd P, so that
    ranks that are leaves in one tree are inner ranks of the other."""
    if tree == 0:
        return _btree(size, rank)
    parent, children = _btree(size, _dtree_position(size, rank, tree))
    if size % 2:
        back = [(r + 1) % size for r in (parent, *children)]
    else:
        back = [size - 1 - r for r in (parent, *children)]
    return (-1 if parent < 0 else back[0]), back[1:]


def _child_slot(size: int, rank: int, tree: int) -> int:
    """Which child of its parent a non-root ``rank`` is in tree ``tree`` of :func:`_dtree`: 0 if it
    sits below its parent in the binary tree's order, else 1 (ncclGetBtree's parentChildType)."""
    position = _dtree_position(size, rank, tree)
    return 0 if position < _btree(size, position)[0] else 1


def _node_trees(nodes: list[list[int]], channel: int) -> list[tuple[list[int], list[list[int]]]]:
    """Tree 0 and tree 1 of ``channel`` over ranks grouped by node, as NCCL connects them
    (src/graph/connect.cc, ncclTopoPreset and connectTrees): per tree ``(parent, children)``,
    indexed by rank.

    ``nodes`` lists each node's ranks.  Within a node the ranks form a chain: the channel's
    chain starts at the node's rank ``channel`` mod its size and runs through the others in
    order (NCCL takes the chain from its topology search, a different head GPU and NIC per
    channel; both trees of a channel share it).  A chain's first rank is the node's head: it
    sends up to the parent node and is the rank the tree's down stream enters by.  Between nodes,
    node i hangs below node ``_dtree(len(nodes), i, tree)``; as in NCCL's balanced tree pattern, a
    child node in slot 0 (:func:`_child_slot`) attaches to the second rank of the parent's chain
    and one in slot 1 to the head, so the parent node's inter-node traffic is spread over two
    ranks (over its head alone if it has one rank).  Every rank has at most two children; each tree spans every rank in P-1 edges, of
    which (nodes - 1) join nodes.
    """
    size = sum(len(ranks) for ranks in nodes)
    chains = []
    for ranks in nodes:
        start = channel % len(ranks)
        chains.append(ranks[start:] + ranks[:start])
    trees = []
    for tree in (0, 1):
        parent, children = [-1] * size, [[] for _ in range(size)]
        for chain in chains:
            for upper, lower in zip(chain, chain[1:]):
                parent[lower] = upper
                children[upper].append(lower)
        for node, chain in enumerate(chains):
            above = _dtree(len(chains), node, tree)[0]
            if above >= 0:
                target = chains[above]
                upper = target[1] if _child_slot(len(chains), node, tree) == 0 and len(target) > 1 else target[0]
                parent[chain[0]] = upper
                children[upper].append(chain[0])
        trees.append((parent, children))
    return trees


def _comm_nodes(c) -> list[list[int]]:
    """The communicator's ranks grouped by the node each runs on: nodes in the order of their first
    rank, ranks in communicator order."""
    node_of, nodes = c.rank.job.node_of, {}
    for rank, world in enumerate(c.comm.members):
        nodes.setdefault(node_of[world], []).append(rank)
    return list(nodes.values())


#: Per job, the trees of each communicator's members and channel count, so that a collective
#: builds them once, not once per rank and call: ``{job: {key: (members, trees, depth)}}``.
_TREES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _tree_depth(ranks: int, nodes: int) -> int:
    """NCCL's estimate of a tree's depth, ranks per node - 1 + floor(log2 nodes) (connectTrees)."""
    return ranks // nodes - 1 + nodes.bit_length() - 1


def _tree_chunk_B(nbytes: int, parts: int, chunk_B: int, depth: int) -> int:
    """The tree's chunk size for ``nbytes`` in ``parts`` parts: ``chunk_B`` halved while the parts hold
    too few chunks to fill a pipeline ``depth`` deep, as NCCL does for its Simple protocol's
    up-and-down tree (src/enqueue.cc): below 8 x depth chunks a part down to 128 KiB, below
    4 x depth down to 64 KiB, below depth down to 32 KiB; chunks already that small are kept."""
    for fill, floor_B in ((8, 131072), (4, 65536), (1, 32768)):
        while nbytes // (parts * chunk_B) < depth * fill and chunk_B > floor_B:
            chunk_B //= 2
    return chunk_B


def _trees(c, channels: int) -> tuple[list, int]:
    """:func:`_node_trees` of every channel for the communicator of collective ``c``, shared by its
    ranks, and the trees' depth (:func:`_tree_depth`).

    Members lists are shared by a job's ranks (``job.intern_members``) and kept with the trees,
    so their identity names them; a world communicator's members are a range, equal by value."""
    members = c.comm.members
    per_job = _TREES.setdefault(c.rank.job, {})
    key = (members if isinstance(members, range) else id(members), channels)
    found = per_job.get(key)
    if found is None or found[0] is not members and not isinstance(members, range):
        nodes = _comm_nodes(c)
        found = per_job[key] = (members, [_node_trees(nodes, channel) for channel in range(channels)],
                                _tree_depth(c.size, len(nodes)))
    return found[1], found[2]


def _tree_allreduce_cost(p, s, channels=_DEFAULTS.nccl_channels, chunk_B=_DEFAULTS.nccl_chunk_B, per_node=1):
    """Every chunk goes up and down every edge of its tree; a tree over P ranks has P-1 edges,
    however the ranks sit on nodes (chains within nodes, the binary tree between them).  The
    chunk size depends on the trees' depth, here for ``per_node`` ranks on every node."""
    parts = 2 * channels
    chunk_B = _tree_chunk_B(s, parts, chunk_B, _tree_depth(p, max(1, -(-p // per_node))))
    chunks = sum(_chunk_count(part, chunk_B) for part in split_sizes(s, parts))
    return 2 * (p - 1) * chunks, 2 * (p - 1) * s


def _tree_flow(trees: list, me: int, counts: list[int]) -> Flow:
    """Rank ``me``'s part of the tree all-reduce of parts cut into ``counts`` chunks, part j on tree
    j % 2 of channel j // 2 of ``trees`` (:func:`_trees`), as a flow (:class:`~ppt.mpi.collectives.schedule.Flow`):
    per part an up stream (chunk k reduced from the children's, then sent up; the root's turns round)
    and a down stream (chunk k, once final, sent to the children), chunk after chunk, at most
    :data:`WINDOW` chunks of a stream on their way.

    Slots, for n chunks in all, chunk q of the buffer (parts in order, chunks in order): q, the
    rank's own and, at a part's root, the final; n + q, the final, from the parent; (2 + i) n + q,
    from child i.  A message's mark is the slot it fills at its receiver."""
    n = sum(counts)
    receives, streams, first = {}, [], 0
    for j, count in enumerate(counts):
        parents, children = trees[j // 2][j % 2]
        parent, below = parents[me], children[me]
        for peer in below + ([parent] if parent >= 0 else []):
            receives[peer] = receives.get(peer, 0) + count
        up, down = [], []
        for q in range(first, first + count):
            from_below = tuple((2 + i) * n + q for i in range(len(below)))
            combines = tuple((OP, q, slot, q) for slot in from_below)
            to_parent = ((parent, q, (2 + children[parent].index(me)) * n + q),) if parent >= 0 else ()
            up.append((from_below, combines, to_parent))
            final = n + q if parent >= 0 else q
            down.append(((final,), (), tuple((child, final, n + q) for child in below)))
        streams += [tuple(up), tuple(down)]
        first += count
    return Flow(tuple(receives.items()), tuple(streams), WINDOW)


def allreduce_tree(c, obj, op, nbytes):
    """The buffer cut into 2 x channels parts, part j on tree j % 2 of channel j // 2 (both trees
    over nodes, :func:`_node_trees`), each part in chunks (:func:`_tree_chunk_B`); a rank reduces
    a chunk from its children's, sends it up, and sends the final chunk down as soon as it comes
    from above (the root turns it round), chunk after chunk, up and down at once
    (:func:`_tree_flow`)."""
    _require_commutative(c, op, "tree all-reduce")
    me = c.me
    channels, chunk_B = _settings(c)
    parts = 2 * channels
    trees, depth = _trees(c, channels)
    chunk_B = _tree_chunk_B(nbytes, parts, chunk_B, depth)
    part_sizes = split_sizes(nbytes, parts)
    counts = [_chunk_count(part_B, chunk_B) for part_B in part_sizes]
    chunks = [chunk for part, count in zip(split(obj, parts), counts) for chunk in split(part, count)]
    chunk_sizes = [size for part_B, count in zip(part_sizes, counts) for size in split_sizes(part_B, count)]
    n = len(chunks)
    b = Builder()
    flow = b.flow(_tree_flow(trees, me, counts))
    b.wait(flow, ~flow)
    values = c.run(b.schedule(4 * n), chunks + [None] * (3 * n), chunk_sizes * 4, op)
    result, first = [], 0
    for j, count in enumerate(counts):
        final = first if trees[j // 2][j % 2][0][me] < 0 else n + first
        result.append(join(values[final:final + count]))
        first += count
    return join(result)


#: The algorithms by collective: ``{kind: {name: (algorithm, cost)}}``, ``cost(size, nbytes)`` as
#: :func:`ppt.mpi.collectives.calls.costs` attaches it (for the default settings).
ALGORITHMS = {
    "allreduce": {"nccl_ring": (allreduce_ring, _ring_allreduce_cost),
                  "nccl_tree": (allreduce_tree, _tree_allreduce_cost)},
    "allgather": {"nccl_ring": (allgather_ring, _ring_allgather_cost)},
    "reduce_scatter": {"nccl_ring": (reduce_scatter_ring, _ring_reduce_scatter_cost)},
}

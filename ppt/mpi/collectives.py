"""Collective operations built from point-to-point messages, with named algorithms.

Algorithms (R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of Collective
Communication Operations in MPICH", IJHPCA 19(1), 2005,
doi:10.1177/1094342005051521):

=================  ==========================================================
barrier            ``dissemination`` (ceil(log2 P) rounds of 0-byte messages)
bcast              ``binomial`` (children sent to at once), ``linear``
reduce             ``binomial``, ``linear``
allreduce          ``recursive_doubling`` (non-powers of two: the first
                   2(P - 2^k) ranks fold pairwise first), ``ring``
                   (reduce-scatter + allgather rings, commutative ops),
                   ``reduce_bcast``
gather(v)          ``binomial``, ``linear``
scatter(v)         ``binomial``, ``linear``
allgather(v)       ``ring``, ``recursive_doubling`` (P a power of two),
                   ``bruck``
alltoall(v)        ``pairwise`` (XOR partners for powers of two, else
                   shifted ring), ``isend_irecv``
reduce_scatter     ``ring`` (commutative ops), ``reduce_scatterv``
scan / exscan      ``recursive_doubling``, ``linear``
=================  ==========================================================

Default choices follow MPICH's published cut-offs: allreduce by recursive
doubling up to 2,048 bytes per ring chunk (payload / ranks), ring above.
MPICH uses Rabenseifner's reduce-scatter/allgather for long messages, which
has the ring's bandwidth term with only 2 log2(P) latency terms; holding
recursive doubling until ring chunks reach 2,048 bytes keeps the ring's
2(P-1) latency terms from dominating mid-size messages; allgather by recursive
doubling below 80 KiB total for powers of two, Bruck below 512 KiB, ring
above.  A job or a call may name another algorithm, among them NCCL's
(``nccl_ring``, ``nccl_tree``, ``nccl_p2p``; :mod:`ppt.mpi.nccl`).

Every collective message carries ``(call, root, sequence number)`` of the
collective it belongs to and travels in the communicator's collective
context with the sequence number as tag, so it never matches user messages;
a receiver checks the header and reports mismatched collective calls.
"""
from __future__ import annotations

from ppt.errors import PPTError
from ppt.mpi import nccl
from ppt.mpi.ops import blockwise
from ppt.mpi.payload import join, split, split_sizes

#: Allreduce uses recursive doubling until ring chunks (payload / ranks) exceed this, bytes.
ALLREDUCE_SHORT_B = 2048
#: Allgather: recursive doubling below this total size (MPICH), bytes.
ALLGATHER_SHORT_B = 81920
#: Allgather: Bruck below this total size, ring above (MPICH), bytes.
ALLGATHER_LONG_B = 524288


class Coll:
    """One collective invocation on a communicator: its header and point-to-point helpers."""

    __slots__ = ("comm", "rank", "me", "size", "hdr", "tag", "ctx")

    def __init__(self, comm, root=None):
        comm.coll_seq += 1
        self.comm = comm
        self.rank = comm._rank
        self.me = comm.rank
        self.size = comm.size
        self.tag = comm.coll_seq
        self.ctx = comm.coll_ctx
        self.hdr = (self.rank.call, root, comm.coll_seq)

    def isend(self, dest: int, nbytes: int, data):
        return self.rank.isend(self.comm, dest, self.tag, nbytes, (self.hdr, data), self.ctx)

    def irecv(self, source: int):
        return self.rank.irecv(self.comm, source, self.tag, self.ctx)

    def value(self, req):
        """``(payload, nbytes)`` of a completed receive, after checking it belongs to this collective."""
        hdr, data = req.value
        if hdr != self.hdr:
            theirs, mine = _call_text(hdr), _call_text(self.hdr)
            raise self.rank.error(f"collective mismatch on {self.comm.label}: rank {req.status.source} called "
                                  f"{theirs} where this rank called {mine} (collective #{self.hdr[2]})")
        return data, req.status.bytes

    def wait(self, req) -> None:
        self.rank.wait(req)

    def waitall(self, reqs) -> None:
        for req in reqs:
            self.rank.wait(req)

    def send(self, dest: int, nbytes: int, data) -> None:
        self.rank.wait(self.isend(dest, nbytes, data))

    def recv(self, source: int):
        req = self.irecv(source)
        self.rank.wait(req)
        return self.value(req)

    def sendrecv(self, dest: int, nbytes: int, data, source: int):
        rreq = self.irecv(source)
        sreq = self.isend(dest, nbytes, data)
        self.rank.wait(rreq)
        self.rank.wait(sreq)
        return self.value(rreq)


def _call_text(hdr) -> str:
    call, root, _ = hdr
    return call if root is None else f"{call}(root={root})"


def _pof2_floor(n: int) -> int:
    return 1 << (n.bit_length() - 1)


def _is_pof2(n: int) -> bool:
    return n & (n - 1) == 0


# -- what an algorithm sends ------------------------------------------------
# Each algorithm carries ``cost(size, nbytes) -> (messages, bytes)``: what one call sends over all
# ``size`` ranks, ``nbytes`` being the size the communicator method passes it (a bcast's or allreduce's
# buffer, an alltoall's or scatter's block per peer, an allgather's or gather's contribution per
# rank).  Per rank, on average: both divided by ``size``.  ``--network auto`` estimates a trace's
# traffic from them (:mod:`ppt.drivers.autochoice`).
def costs(cost):
    """Decorator: attach ``cost`` to the algorithm."""
    def attach(fn):
        fn.cost = cost
        return fn
    return attach


def _log2_ceil(n: int) -> int:
    return (max(n, 1) - 1).bit_length()


def _add(a, b):
    return a[0] + b[0], a[1] + b[1]


def _tree(p, s):
    """One message of ``s`` bytes to (or from) every rank but the root."""
    return p - 1, (p - 1) * s


def _all_pairs(p, s):
    """Every rank sends ``s`` bytes to every other (pairwise exchange: p - 1 messages per rank)."""
    return p * (p - 1), p * (p - 1) * s


def _binomial_subtrees(p, s):
    """Binomial gather/scatter: every rank but the root moves its subtree's blocks in one message."""
    return p - 1, s * sum(min(rel & -rel, p - rel) for rel in range(1, p))


def _allreduce_recursive_doubling_cost(p, s):
    pof2 = _pof2_floor(max(p, 1))
    messages = 2 * (p - pof2) + pof2 * _log2_ceil(pof2)
    return messages, messages * s


def _scan_recursive_doubling_cost(p, s):
    messages, mask = 0, 1
    while mask < p:
        messages += sum(1 for me in range(p) if me ^ mask < p)
        mask <<= 1
    return messages, messages * s


# -- barrier ---------------------------------------------------------------
@costs(lambda p, s: (p * _log2_ceil(p), 0))
def barrier_dissemination(c: Coll) -> None:
    me, size = c.me, c.size
    dist = 1
    while dist < size:
        c.sendrecv((me + dist) % size, 0, None, (me - dist) % size)
        dist <<= 1


# -- bcast -----------------------------------------------------------------
@costs(_tree)
def bcast_binomial(c: Coll, obj, root: int, nbytes):
    me, size = c.me, c.size
    rel = (me - root) % size
    mask = 1
    while mask < size:
        if rel & mask:
            obj, nbytes = c.recv((rel - mask + root) % size)
            break
        mask <<= 1
    mask >>= 1
    reqs = []
    while mask:
        if rel + mask < size:
            reqs.append(c.isend((rel + mask + root) % size, nbytes, obj))
        mask >>= 1
    c.waitall(reqs)
    return obj


@costs(_tree)
def bcast_linear(c: Coll, obj, root: int, nbytes):
    if c.me != root:
        return c.recv(root)[0]
    c.waitall([c.isend(dest, nbytes, obj) for dest in range(c.size) if dest != root])
    return obj


# -- reduce ----------------------------------------------------------------
@costs(_tree)
def reduce_binomial(c: Coll, obj, op, root: int, nbytes):
    me, size = c.me, c.size
    tree_root = root if op.commutative else 0       # rank order kept for non-commutative ops
    rel = (me - tree_root) % size
    mask = 1
    while mask < size:
        if rel & mask:
            c.send((rel - mask + tree_root) % size, nbytes, obj)
            break
        if rel + mask < size:
            obj = op(obj, c.recv((rel + mask + tree_root) % size)[0])
        mask <<= 1
    if tree_root != root:
        if me == tree_root:
            c.send(root, nbytes, obj)
        elif me == root:
            obj = c.recv(tree_root)[0]
    return obj if me == root else None


@costs(_tree)
def reduce_linear(c: Coll, obj, op, root: int, nbytes):
    if c.me != root:
        c.send(root, nbytes, obj)
        return None
    reqs = [c.irecv(src) if src != root else None for src in range(c.size)]
    result = None
    for src, req in enumerate(reqs):
        if req is None:
            result = op(result, obj)
        else:
            c.wait(req)
            result = op(result, c.value(req)[0])
    return result


# -- allreduce -------------------------------------------------------------
@costs(_allreduce_recursive_doubling_cost)
def allreduce_recursive_doubling(c: Coll, obj, op, nbytes):
    me, size = c.me, c.size
    pof2 = _pof2_floor(size)
    rem = size - pof2
    if me < 2 * rem:
        if me % 2 == 0:
            c.send(me + 1, nbytes, obj)
            new_rank = -1
        else:
            obj = op(c.recv(me - 1)[0], obj)
            new_rank = me // 2
    else:
        new_rank = me - rem
    if new_rank >= 0:
        mask = 1
        while mask < pof2:
            new_peer = new_rank ^ mask
            peer = new_peer * 2 + 1 if new_peer < rem else new_peer + rem
            got = c.sendrecv(peer, nbytes, obj, peer)[0]
            obj = op(got, obj) if new_peer < new_rank else op(obj, got)
            mask <<= 1
    if me < 2 * rem:
        if me % 2:
            c.send(me - 1, nbytes, obj)
        else:
            obj = c.recv(me + 1)[0]
    return obj


@costs(lambda p, s: (2 * p * (p - 1), 2 * (p - 1) * s))
def allreduce_ring(c: Coll, obj, op, nbytes):
    _require_commutative(c, op, "allreduce", "recursive_doubling")
    chunks = split(obj, c.size)
    sizes = split_sizes(nbytes, c.size)
    have = (c.me + 1) % c.size
    _ring_reduce_scatter(c, chunks, sizes, op, have)
    _ring_allgather(c, chunks, sizes, have)
    return join(chunks)


def _require_commutative(c: Coll, op, collective: str, alternative: str) -> None:
    if not op.commutative:
        raise c.rank.error(f"the ring {collective} needs a commutative op, {op} is not; "
                           f"use algorithm='{alternative}'")


def _ring_reduce_scatter(c: Coll, blocks: list, sizes: list, op, have: int) -> None:
    """Reduce ``blocks`` round the ring; this rank ends holding complete block ``have``."""
    me, size = c.me, c.size
    right, left = (me + 1) % size, (me - 1) % size
    for step in range(size - 1):
        out, into = (have - 1 - step) % size, (have - 2 - step) % size
        blocks[into] = op(c.sendrecv(right, sizes[out], blocks[out], left)[0], blocks[into])


def _ring_allgather(c: Coll, blocks: list, sizes: list, have: int) -> None:
    """Circulate ``blocks`` round the ring; this rank starts with complete block ``have``."""
    me, size = c.me, c.size
    right, left = (me + 1) % size, (me - 1) % size
    for step in range(size - 1):
        out, into = (have - step) % size, (have - step - 1) % size
        blocks[into], sizes[into] = c.sendrecv(right, sizes[out], blocks[out], left)


@costs(lambda p, s: (2 * (p - 1), 2 * (p - 1) * s))
def allreduce_reduce_bcast(c: Coll, obj, op, nbytes):
    obj = reduce_binomial(c, obj, op, 0, nbytes)
    return bcast_binomial(c, obj, 0, nbytes)


# -- gather / scatter --------------------------------------------------------
@costs(_binomial_subtrees)
def gather_binomial(c: Coll, obj, root: int, nbytes):
    me, size = c.me, c.size
    rel = (me - root) % size
    items = [(me, obj)]
    mask = 1
    while mask < size:
        if rel & mask:
            c.send((rel - mask + root) % size, nbytes, items)
            return None
        if rel + mask < size:
            got, got_bytes = c.recv((rel + mask + root) % size)
            items.extend(got)
            nbytes += got_bytes
        mask <<= 1
    return _by_rank(items, size)


def _by_rank(items, size: int) -> list:
    """``(rank, value)`` pairs as a list indexed by rank."""
    result = [None] * size
    for rank, value in items:
        result[rank] = value
    return result


@costs(_tree)
def gather_linear(c: Coll, obj, root: int, nbytes):
    if c.me != root:
        c.send(root, nbytes, obj)
        return None
    reqs = [c.irecv(src) if src != root else None for src in range(c.size)]
    c.waitall([req for req in reqs if req is not None])
    return [obj if req is None else c.value(req)[0] for req in reqs]


@costs(_binomial_subtrees)
def scatter_binomial(c: Coll, objs, root: int, sizes):
    me, size = c.me, c.size
    rel = (me - root) % size
    if rel == 0:
        blocks = [(objs[(r + root) % size], sizes[(r + root) % size]) for r in range(size)]
        mask = 1 << (size - 1).bit_length()
    else:
        mask = rel & -rel
        blocks = c.recv((rel - mask + root) % size)[0]
    mask >>= 1
    reqs = []
    while mask:
        if rel + mask < size:
            part = blocks[mask:2 * mask]
            reqs.append(c.isend((rel + mask + root) % size, sum(s for _, s in part), part))
        mask >>= 1
    c.waitall(reqs)
    return blocks[0][0]


@costs(_tree)
def scatter_linear(c: Coll, objs, root: int, sizes):
    if c.me != root:
        return c.recv(root)[0]
    c.waitall([c.isend(dest, sizes[dest], objs[dest]) for dest in range(c.size) if dest != root])
    return objs[root]


# -- allgather ---------------------------------------------------------------
@costs(_all_pairs)
def allgather_ring(c: Coll, obj, nbytes):
    blocks, sizes = [None] * c.size, [0] * c.size
    blocks[c.me], sizes[c.me] = obj, nbytes
    _ring_allgather(c, blocks, sizes, c.me)
    return blocks


@costs(lambda p, s: (p * _log2_ceil(p), p * (p - 1) * s))
def allgather_recursive_doubling(c: Coll, obj, nbytes):
    me, size = c.me, c.size
    if not _is_pof2(size):
        raise c.rank.error(f"recursive-doubling allgather needs a power-of-two communicator size, "
                           f"{c.comm.label} has {size}; use algorithm='bruck' or 'ring'")
    items = [(me, obj)]
    mask = 1
    while mask < size:
        got, got_bytes = c.sendrecv(me ^ mask, nbytes, items, me ^ mask)
        items = items + got
        nbytes += got_bytes
        mask <<= 1
    return _by_rank(items, size)


@costs(lambda p, s: (p * _log2_ceil(p), p * (p - 1) * s))
def allgather_bruck(c: Coll, obj, nbytes):
    me, size = c.me, c.size
    blocks = [(obj, nbytes)]       # blocks[i] belongs to rank (me + i) % size
    dist = 1
    while dist < size:
        part = blocks[:min(dist, size - dist)]
        got = c.sendrecv((me - dist) % size, sum(s for _, s in part), part, (me + dist) % size)[0]
        blocks.extend(got)
        dist <<= 1
    return [blocks[(r - me) % size][0] for r in range(size)]


# -- alltoall ----------------------------------------------------------------
@costs(_all_pairs)
def alltoall_pairwise(c: Coll, objs, sizes):
    me, size = c.me, c.size
    result = [None] * size
    result[me] = objs[me]
    xor = _is_pof2(size)
    for step in range(1, size):
        dest, source = (me ^ step, me ^ step) if xor else ((me + step) % size, (me - step) % size)
        result[source] = c.sendrecv(dest, sizes[dest], objs[dest], source)[0]
    return result


@costs(_all_pairs)
def alltoall_isend_irecv(c: Coll, objs, sizes):
    me, size = c.me, c.size
    order = [(me + step) % size for step in range(1, size)]
    recvs = [c.irecv((me - step) % size) for step in range(1, size)]
    sends = [c.isend(dest, sizes[dest], objs[dest]) for dest in order]
    c.waitall(recvs)
    c.waitall(sends)
    result = [None] * size
    result[me] = objs[me]
    for step, req in enumerate(recvs, 1):
        result[(me - step) % size] = c.value(req)[0]
    return result


# -- reduce_scatter ------------------------------------------------------------
@costs(_all_pairs)
def reduce_scatter_ring(c: Coll, objs, op, sizes):
    _require_commutative(c, op, "reduce_scatter", "reduce_scatterv")
    blocks = list(objs)
    _ring_reduce_scatter(c, blocks, sizes, op, c.me)
    return blocks[c.me]


@costs(lambda p, s: _add(_tree(p, p * s), _binomial_subtrees(p, s)))
def reduce_scatter_reduce_scatterv(c: Coll, objs, op, sizes):
    reduced = reduce_binomial(c, list(objs), blockwise(op), 0, sum(sizes))
    return scatter_binomial(c, reduced, 0, sizes)


# -- scan ----------------------------------------------------------------------
def _scan_recursive_doubling(c: Coll, obj, op, nbytes, inclusive: bool):
    me, size = c.me, c.size
    partial, result = obj, (obj if inclusive else None)
    mask = 1
    while mask < size:
        peer = me ^ mask
        if peer < size:
            got = c.sendrecv(peer, nbytes, partial, peer)[0]
            if peer < me:
                partial = op(got, partial)
                result = op(got, result)
            else:
                partial = op(partial, got)
        mask <<= 1
    return result


def _scan_linear(c: Coll, obj, op, nbytes, inclusive: bool):
    me, size = c.me, c.size
    before = c.recv(me - 1)[0] if me > 0 else None
    if me + 1 < size:
        c.send(me + 1, nbytes, op(before, obj))
    return op(before, obj) if inclusive else before


@costs(_scan_recursive_doubling_cost)
def scan_recursive_doubling(c, obj, op, nbytes):
    return _scan_recursive_doubling(c, obj, op, nbytes, True)


@costs(_scan_recursive_doubling_cost)
def exscan_recursive_doubling(c, obj, op, nbytes):
    return _scan_recursive_doubling(c, obj, op, nbytes, False)


@costs(_tree)
def scan_linear(c, obj, op, nbytes):
    return _scan_linear(c, obj, op, nbytes, True)


@costs(_tree)
def exscan_linear(c, obj, op, nbytes):
    return _scan_linear(c, obj, op, nbytes, False)


ALGORITHMS = {
    "barrier": {"dissemination": barrier_dissemination},
    "bcast": {"binomial": bcast_binomial, "linear": bcast_linear},
    "reduce": {"binomial": reduce_binomial, "linear": reduce_linear},
    "allreduce": {"recursive_doubling": allreduce_recursive_doubling, "ring": allreduce_ring,
                  "reduce_bcast": allreduce_reduce_bcast},
    "gather": {"binomial": gather_binomial, "linear": gather_linear},
    "scatter": {"binomial": scatter_binomial, "linear": scatter_linear},
    "allgather": {"ring": allgather_ring, "recursive_doubling": allgather_recursive_doubling,
                  "bruck": allgather_bruck},
    "alltoall": {"pairwise": alltoall_pairwise, "isend_irecv": alltoall_isend_irecv},
    "reduce_scatter": {"ring": reduce_scatter_ring, "reduce_scatterv": reduce_scatter_reduce_scatterv},
    "scan": {"recursive_doubling": scan_recursive_doubling, "linear": scan_linear},
    "exscan": {"recursive_doubling": exscan_recursive_doubling, "linear": exscan_linear},
}
for _kind, _table in nccl.ALGORITHMS.items():
    ALGORITHMS[_kind].update({name: costs(cost)(fn) for name, (fn, cost) in _table.items()})
#: NCCL's all-to-all posts one send and one receive per peer, all at once: isend_irecv's schedule.
ALGORITHMS["alltoall"]["nccl_p2p"] = alltoall_isend_irecv


def default_algorithm(kind: str, size: int, nbytes=None, op=None) -> str:
    """MPICH-style default for collective ``kind`` on ``size`` ranks (``nbytes`` per rank if known)."""
    if kind == "allreduce":
        short = nbytes <= ALLREDUCE_SHORT_B * size
        return "recursive_doubling" if short or not op.commutative else "ring"
    if kind == "allgather":
        if nbytes is None:
            return "bruck"
        total = nbytes * size
        if total < ALLGATHER_SHORT_B and _is_pof2(size):
            return "recursive_doubling"
        return "bruck" if total < ALLGATHER_LONG_B else "ring"
    if kind == "reduce_scatter":
        return "ring" if op.commutative else "reduce_scatterv"
    return next(iter(ALGORITHMS[kind]))


def cost(kind: str, size: int, nbytes: int, name: str | None = None) -> tuple[int, int]:
    """``(messages, bytes)`` one ``kind`` call sends over all ``size`` ranks with algorithm ``name``
    (default: :func:`default_algorithm`'s for a commutative op), ``nbytes`` as the algorithm is passed it."""
    name = name or default_algorithm(kind, size, nbytes, _COMMUTATIVE)
    return ALGORITHMS[kind][name].cost(size, nbytes)


class _Commutative:
    commutative = True


_COMMUTATIVE = _Commutative()


def check_algorithms(choices: dict) -> dict:
    """Validate a ``{collective: algorithm}`` mapping; returns it."""
    for kind, name in choices.items():
        if kind not in ALGORITHMS:
            raise PPTError(f"unknown collective {kind!r} in algorithm choices; known: {', '.join(ALGORITHMS)}")
        if name not in ALGORITHMS[kind]:
            raise PPTError(f"unknown {kind} algorithm {name!r}; choose one of: {', '.join(ALGORITHMS[kind])}")
    return choices


def algorithm(comm, kind: str, name, nbytes=None, op=None):
    """The algorithm function for a call: the call's choice, else the job's, else the default."""
    name = name or comm._rank.job.algorithms.get(kind) or default_algorithm(kind, comm.size, nbytes, op)
    table = ALGORITHMS[kind]
    if name not in table:
        raise comm._rank.error(f"unknown {kind} algorithm {name!r}; choose one of: {', '.join(table)}")
    return table[name]

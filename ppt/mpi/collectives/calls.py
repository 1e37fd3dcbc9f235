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
(``nccl_ring``, ``nccl_tree``, ``nccl_p2p``; :mod:`ppt.mpi.collectives.nccl`).

Each MPI algorithm is a per-rank schedule (:mod:`ppt.mpi.collectives.schedule`) of
:mod:`ppt.mpi.collectives.algorithms`, executed by the MPI engine from message
completions (``ppt/mpi/engine/core/run.c``), the rank's process asleep from the
call to the end; the functions here fill its payload slots and read the
result from them.
NCCL's ring all-reduce, reduce-scatter and all-gather are schedules too, and
so is its tree all-reduce (a schedule flow).

Every collective message carries ``(call, root, sequence number)`` of the
collective it belongs to and travels in the communicator's collective
context with the sequence number as tag, so it never matches user messages;
a receiver checks the header and reports mismatched collective calls.
"""
from __future__ import annotations

from ppt.errors import PPTError
from ppt.mpi.collectives import algorithms, nccl
from ppt.mpi.collectives.algorithms import is_pof2, pof2_floor
from ppt.mpi.errors import MPIError
from ppt.mpi.collectives.ops import blockwise
from ppt.mpi.collectives.payload import join, split, split_sizes

#: Allreduce uses recursive doubling until ring chunks (payload / ranks) exceed this, bytes.
ALLREDUCE_SHORT_B = 2048
#: Allgather: recursive doubling below this total size (MPICH), bytes.
ALLGATHER_SHORT_B = 81920
#: Allgather: Bruck below this total size, ring above (MPICH), bytes.
ALLGATHER_LONG_B = 524288


class Coll:
    """One collective invocation on a communicator: its header ``(call, root, sequence number)`` and the
    hand-over of its schedule to the engine (:meth:`run`)."""

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

    def run(self, schedule, values: list, sizes: list, op=None) -> list:
        """Execute this rank's ``schedule`` (slots: ``values``, ``sizes`` in bytes; ``op`` for its
        combines) in the engine, through the rank's planner (``plan``: a program rank's,
        :mod:`ppt.mpi.engine.program`, or a replay's, :mod:`ppt.mpi.engine.replay`); returns the slots'
        payloads."""
        return self.rank.plan(self, schedule, values, sizes, op)


def _call_text(hdr) -> str:
    call, root, _ = hdr
    return call if root is None else f"{call}(root={root})"


def mismatch_error(rank, comm, source: int, theirs: tuple, mine: tuple) -> MPIError:
    """The error of ``rank``'s collective call with header ``mine`` (call, root, sequence number) that
    received the message of call ``theirs`` from rank ``source`` of ``comm``."""
    return rank.error(f"collective mismatch on {comm.label}: rank {source} called {_call_text(theirs)} where "
                      f"this rank called {_call_text(mine)} (collective #{mine[2]})")


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
    pof2 = pof2_floor(max(p, 1))
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
    c.run(algorithms.barrier_dissemination(c.me, c.size), [None], [0])


# -- bcast -----------------------------------------------------------------
@costs(_tree)
def bcast_binomial(c: Coll, obj, root: int, nbytes):
    return c.run(algorithms.bcast_binomial(c.me, c.size, root), [obj], [nbytes])[0]


@costs(_tree)
def bcast_linear(c: Coll, obj, root: int, nbytes):
    return c.run(algorithms.bcast_linear(c.me, c.size, root), [obj], [nbytes])[0]


# -- reduce ----------------------------------------------------------------
@costs(_tree)
def reduce_binomial(c: Coll, obj, op, root: int, nbytes):
    values = c.run(algorithms.reduce_binomial(c.me, c.size, root, op.commutative), [obj, None], [nbytes, 0], op)
    return values[0] if c.me == root else None


@costs(_tree)
def reduce_linear(c: Coll, obj, op, root: int, nbytes):
    schedule = algorithms.reduce_linear(c.me, c.size, root)
    values = c.run(schedule, [obj] + [None] * (schedule.slots - 1), [nbytes] + [0] * (schedule.slots - 1), op)
    return values[-1] if c.me == root else None


# -- allreduce -------------------------------------------------------------
@costs(_allreduce_recursive_doubling_cost)
def allreduce_recursive_doubling(c: Coll, obj, op, nbytes):
    return c.run(algorithms.allreduce_recursive_doubling(c.me, c.size), [obj, None], [nbytes, 0], op)[0]


@costs(lambda p, s: (2 * p * (p - 1), 2 * (p - 1) * s))
def allreduce_ring(c: Coll, obj, op, nbytes):
    _require_commutative(c, op, "allreduce", "recursive_doubling")
    size = c.size
    values = c.run(algorithms.allreduce_ring(c.me, size), split(obj, size) + [None],
                 split_sizes(nbytes, size) + [0], op)
    return join(values[:size])


def _require_commutative(c: Coll, op, collective: str, alternative: str) -> None:
    if not op.commutative:
        raise c.rank.error(f"the ring {collective} needs a commutative op, {op} is not; "
                           f"use algorithm='{alternative}'")


@costs(lambda p, s: (2 * (p - 1), 2 * (p - 1) * s))
def allreduce_reduce_bcast(c: Coll, obj, op, nbytes):
    schedule = algorithms.allreduce_reduce_bcast(c.me, c.size, op.commutative)
    return c.run(schedule, [obj, None], [nbytes, 0], op)[0]


# -- gather / scatter --------------------------------------------------------
def _own_block(size: int, slot: int, obj, nbytes) -> tuple[list, list]:
    """Slots of a call on ``size`` ranks with only ``slot`` filled: ``(payloads, sizes)``."""
    values, sizes = [None] * size, [0] * size
    values[slot], sizes[slot] = obj, nbytes
    return values, sizes


@costs(_binomial_subtrees)
def gather_binomial(c: Coll, obj, root: int, nbytes):
    me, size = c.me, c.size
    values = c.run(algorithms.gather_binomial(me, size, root), *_own_block(size, (me - root) % size, obj, nbytes))
    return [values[(r - root) % size] for r in range(size)] if me == root else None


@costs(_tree)
def gather_linear(c: Coll, obj, root: int, nbytes):
    values = c.run(algorithms.gather_linear(c.me, c.size, root), *_own_block(c.size, c.me, obj, nbytes))
    return values if c.me == root else None


@costs(_binomial_subtrees)
def scatter_binomial(c: Coll, objs, root: int, sizes):
    me, size = c.me, c.size
    if me == root:
        order = [(r + root) % size for r in range(size)]
        values, slot_sizes = [objs[r] for r in order], [sizes[r] for r in order]
    else:
        values, slot_sizes = [None] * size, [0] * size
    return c.run(algorithms.scatter_binomial(me, size, root), values, slot_sizes)[(me - root) % size]


@costs(_tree)
def scatter_linear(c: Coll, objs, root: int, sizes):
    me, size = c.me, c.size
    values, slot_sizes = (list(objs), list(sizes)) if me == root else ([None] * size, [0] * size)
    return c.run(algorithms.scatter_linear(me, size, root), values, slot_sizes)[me]


# -- allgather ---------------------------------------------------------------
@costs(_all_pairs)
def allgather_ring(c: Coll, obj, nbytes):
    return c.run(algorithms.allgather_ring(c.me, c.size), *_own_block(c.size, c.me, obj, nbytes))


@costs(lambda p, s: (p * _log2_ceil(p), p * (p - 1) * s))
def allgather_recursive_doubling(c: Coll, obj, nbytes):
    me, size = c.me, c.size
    if not is_pof2(size):
        raise c.rank.error(f"recursive-doubling allgather needs a power-of-two communicator size, "
                           f"{c.comm.label} has {size}; use algorithm='bruck' or 'ring'")
    return c.run(algorithms.allgather_recursive_doubling(me, size), *_own_block(size, me, obj, nbytes))


@costs(lambda p, s: (p * _log2_ceil(p), p * (p - 1) * s))
def allgather_bruck(c: Coll, obj, nbytes):
    me, size = c.me, c.size
    values = c.run(algorithms.allgather_bruck(me, size), *_own_block(size, 0, obj, nbytes))
    return [values[(r - me) % size] for r in range(size)]


# -- alltoall ----------------------------------------------------------------
def _alltoall(c: Coll, schedule, objs, sizes) -> list:
    size = c.size
    values = list(objs) + [None] * size
    values[size + c.me] = objs[c.me]
    return c.run(schedule, values, list(sizes) + [0] * size)[size:]


@costs(_all_pairs)
def alltoall_pairwise(c: Coll, objs, sizes):
    return _alltoall(c, algorithms.alltoall_pairwise(c.me, c.size), objs, sizes)


@costs(_all_pairs)
def alltoall_isend_irecv(c: Coll, objs, sizes):
    return _alltoall(c, algorithms.alltoall_isend_irecv(c.me, c.size), objs, sizes)


@costs(lambda p, s: (p * p, p * p * s))
def alltoall_scattered(c: Coll, objs, sizes):
    return _alltoall(c, algorithms.alltoall_scattered(c.me, c.size), objs, sizes)


# -- reduce_scatter ------------------------------------------------------------
@costs(_all_pairs)
def reduce_scatter_ring(c: Coll, objs, op, sizes):
    _require_commutative(c, op, "reduce_scatter", "reduce_scatterv")
    values = c.run(algorithms.reduce_scatter_ring(c.me, c.size), list(objs) + [None], list(sizes) + [0], op)
    return values[c.me]


@costs(lambda p, s: _add(_tree(p, p * s), _binomial_subtrees(p, s)))
def reduce_scatter_reduce_scatterv(c: Coll, objs, op, sizes):
    schedule = algorithms.reduce_scatter_reduce_scatterv(c.me, c.size, op.commutative)
    values = c.run(schedule, [list(objs), None] + [None] * c.size, [sum(sizes), 0] + list(sizes), blockwise(op))
    return values[2 + c.me]


# -- scan ----------------------------------------------------------------------
@costs(_scan_recursive_doubling_cost)
def scan_recursive_doubling(c, obj, op, nbytes):
    return c.run(algorithms.scan_recursive_doubling(c.me, c.size), [obj, obj, None], [nbytes, 0, 0], op)[1]


@costs(_scan_recursive_doubling_cost)
def exscan_recursive_doubling(c, obj, op, nbytes):
    return c.run(algorithms.scan_recursive_doubling(c.me, c.size), [obj, None, None], [nbytes, 0, 0], op)[1]


@costs(_tree)
def scan_linear(c, obj, op, nbytes):
    return c.run(algorithms.scan_linear(c.me, c.size), [obj, None, None], [nbytes, 0, nbytes], op)[2]


@costs(_tree)
def exscan_linear(c, obj, op, nbytes):
    return c.run(algorithms.scan_linear(c.me, c.size), [obj, None, None], [nbytes, 0, nbytes], op)[1]


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
    "alltoall": {"pairwise": alltoall_pairwise, "isend_irecv": alltoall_isend_irecv, "scattered": alltoall_scattered},
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
        if total < ALLGATHER_SHORT_B and is_pof2(size):
            return "recursive_doubling"
        return "bruck" if total < ALLGATHER_LONG_B else "ring"
    if kind == "reduce_scatter":
        return "ring" if op.commutative else "reduce_scatterv"
    return next(iter(ALGORITHMS[kind]))


def alltoallv_algorithm(choices: dict) -> str:
    """The algorithm of an Alltoallv or Alltoallw: the all-to-all algorithm ``choices`` (``{kind: name}``, a
    job's) names, else MPICH's default for these calls, ``scattered``, whose own block is a message to itself."""
    return choices.get("alltoall") or "scattered"


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

"""Who is in each communicator of an op-stream trace, as far as a DUMPI writer needs to know.

DUMPI records some values an op does not keep: a rank's place in the call's communicator
(``commrank`` of Gather and Scatter, which decides which fields the record has), the
communicator's size (the v-collectives' arrays) and what the other members contribute
(``recvcounts``).  This module finds them from the streams themselves: every rank's stream is
walked once (:meth:`Communicators.walk`), naming each communicator by how it was made (the
creating call's place among the creations on its parent, and the Comm_split colour), which
is the same on every member; then membership follows from the recorded parents, keys and
grid shapes.  COMM_WORLD, COMM_SELF and what Comm_dup, Comm_split and Cart_create make from
known communicators are known; the communicators of Comm_create and Cart_sub are not (their
members' rank is then asked for in vain: :class:`TraceError`).
"""
from __future__ import annotations

import math
from collections import Counter

from ppt.errors import TraceError
from ppt.oprecord import AUX_LEN, AUX_START, CALL, COMM, COMM_NULL, COMM_SELF, COMM_WORLD, KIND, UNDEFINED, Op

WORLD = ("world",)
UNKNOWN = "unknown"

#: Kinds every member of a communicator calls in the same order on it.
COLLECTIVE = frozenset((Op.BARRIER, Op.BCAST, Op.REDUCE, Op.ALLREDUCE, Op.SCAN, Op.EXSCAN, Op.GATHER,
                        Op.SCATTER, Op.SCATTERV, Op.ALLGATHER, Op.ALLGATHERV, Op.ALLTOALL, Op.ALLTOALLV,
                        Op.REDUCE_SCATTER, Op.COMM_DUP, Op.COMM_SPLIT, Op.COMM_CREATE, Op.CART_CREATE,
                        Op.CART_SUB))


class Communicators:
    """Membership of every communicator of a trace of ``num_ranks`` ranks (identities are tuples)."""

    def __init__(self, num_ranks: int):
        self.num_ranks = num_ranks
        self.parents = {}         # identity -> (parent identity, how: "dup" | "split" | "cart", cells)
        self.keys = {}            # split identity -> {world rank: key}
        self.contributions = {}   # (identity, collective number) -> {world rank: value}
        self._members = {WORLD: tuple(range(num_ranks))}

    def walk(self, rank: int, ops, keep=None):
        """Yield ``(op, aux, name, identity, number)`` for rank ``rank``'s ``ops`` (``(op row, aux, name)``
        triples), with the identity of the op's communicator and, for a collective, its number among the
        collectives on it (else None); ``keep(kind, op, aux)`` returns what to remember of a collective for
        the other members (None: nothing)."""
        handles = {COMM_WORLD: WORLD, COMM_SELF: ("self", rank)}
        self._members.setdefault(("self", rank), (rank,))
        made, calls = Counter(), Counter()
        for op, aux, name in ops:
            kind = op[KIND]
            ident = handles.get(op[COMM])            # None: a handle no earlier call created (or COMM_NULL)
            number = None
            if kind in COLLECTIVE:
                if ident is None:
                    raise TraceError(f"trace rank {rank} calls {name} on communicator {op[COMM]}, which no earlier "
                                     "call of the rank created")
                number = calls[ident]
                calls[ident] += 1
                if keep is not None and ident != UNKNOWN:
                    value = keep(kind, op, aux)
                    if value is not None:
                        self.contributions.setdefault((ident, number), {})[rank] = value
            if kind in (Op.COMM_DUP, Op.COMM_SPLIT, Op.COMM_CREATE, Op.CART_CREATE, Op.CART_SUB):
                made[ident] += 1
                new = self._made(kind, ident, made[ident], aux, rank)
                if aux[0] != COMM_NULL:
                    handles[aux[0]] = new
            elif kind == Op.COMM_FREE:
                handles.pop(op[COMM], None)
            yield op, aux, name, ident, number

    def _made(self, kind, parent, seq, aux, rank):
        if kind in (Op.COMM_CREATE, Op.CART_SUB) or parent == UNKNOWN:
            return UNKNOWN
        if kind == Op.COMM_DUP:
            ident = (parent, seq)
            self.parents[ident] = (parent, "dup", None)
        elif kind == Op.CART_CREATE:
            ndims = aux[2]
            ident = (parent, seq)
            self.parents[ident] = (parent, "cart", math.prod(aux[3:3 + ndims]))
        else:
            colour, key = aux[1], aux[2]
            if colour == UNDEFINED:
                return None
            ident = (parent, seq, colour)
            self.parents[ident] = (parent, "split", None)
            self.keys.setdefault(ident, {})[rank] = key
        return ident

    def members(self, ident) -> tuple:
        """The world ranks of communicator ``ident`` in rank order (TraceError if unknown)."""
        found = self._members.get(ident)
        if found is None:
            if ident == UNKNOWN or ident not in self.parents:
                raise TraceError("the DUMPI writer cannot tell who is in its communicator (made by MPI_Comm_create or "
                                 "MPI_Cart_sub), which the call's record must say")
            parent, how, cells = self.parents[ident]
            above = self.members(parent)
            if how == "dup":
                found = above
            elif how == "cart":
                found = above[:cells]
            else:
                place = {w: i for i, w in enumerate(above)}
                found = tuple(sorted(self.keys[ident], key=lambda w: (self.keys[ident][w], place[w])))
            self._members[ident] = found
        return found

    def rank_of(self, ident, world_rank: int) -> int:
        return self.members(ident).index(world_rank)

    def contributed(self, ident, number: int, name: str) -> list:
        """Every member's remembered value of collective ``number`` on ``ident``, in rank order."""
        values = self.contributions.get((ident, number), {})
        members = self.members(ident)
        missing = [w for w in members if w not in values]
        if missing:
            raise TraceError(f"{name} (collective call {number} on its communicator) is never called by world "
                             f"rank(s) {missing[:8]}: the trace is inconsistent")
        return [values[w] for w in members]


def ops_of(trace, rank: int):
    """Rank ``rank``'s ops as ``(op row, aux list, call name)``, in order."""
    for chunk in trace.stream(rank):
        aux, calls = chunk.aux_list(), chunk.calls
        for op in chunk.rows():
            start = op[AUX_START]
            yield op, aux[start:start + op[AUX_LEN]], calls[op[CALL]]

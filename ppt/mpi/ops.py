"""Reduction operations for reduce, allreduce, reduce_scatter and scan.

An :class:`Op` combines two contributions ``op(a, b)`` where ``a`` comes from
lower ranks than ``b``.  ``None`` stands for "no data" (size-only
simulation) and is the identity, so ``op(a, None) == a``.  Built-in ops work on
Python numbers and element-wise on numpy arrays; any two-argument callable
can be used (``Op.create(fn, commute=False)`` for a non-commutative one).
"""
from __future__ import annotations

import operator

import numpy as np

from ppt.errors import PPTError


class Op:
    """A named, associative reduction ``fn(a, b)``; ``commutative`` lets algorithms reorder operands."""

    __slots__ = ("name", "fn", "commutative")

    def __init__(self, name: str, fn, commutative: bool = True):
        self.name = name
        self.fn = fn
        self.commutative = commutative

    @classmethod
    def create(cls, fn, commute: bool = True) -> "Op":
        """A user operation (mpi4py's ``Op.Create``)."""
        return cls(getattr(fn, "__name__", "user_op"), fn, commute)

    def __call__(self, a, b):
        if a is None:
            return b
        if b is None:
            return a
        return self.fn(a, b)

    def __repr__(self):
        return self.name


def _elementwise(numpy_fn, scalar_fn):
    def combine(a, b):
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            return numpy_fn(a, b)
        return scalar_fn(a, b)
    return combine


SUM = Op("SUM", operator.add)
PROD = Op("PROD", operator.mul)
MAX = Op("MAX", _elementwise(np.maximum, max))
MIN = Op("MIN", _elementwise(np.minimum, min))
LAND = Op("LAND", _elementwise(np.logical_and, lambda a, b: bool(a and b)))
LOR = Op("LOR", _elementwise(np.logical_or, lambda a, b: bool(a or b)))
BAND = Op("BAND", operator.and_)
BOR = Op("BOR", operator.or_)
BXOR = Op("BXOR", operator.xor)

BUILTIN = {op.name: op for op in (SUM, PROD, MAX, MIN, LAND, LOR, BAND, BOR, BXOR)}


def as_op(op) -> Op:
    """``op`` as an :class:`Op`: an Op, a name (``"sum"``, ``"MPI_MAX"``) or a two-argument callable."""
    if isinstance(op, Op):
        return op
    if isinstance(op, str):
        name = op.upper().removeprefix("MPI_")
        if name in BUILTIN:
            return BUILTIN[name]
        raise PPTError(f"unknown reduction op {op!r}; choose one of: {', '.join(BUILTIN)} or pass a callable")
    if callable(op):
        return Op.create(op)
    raise PPTError(f"reduction op must be an Op, a name or a callable, got {op!r}")


def blockwise(op: Op) -> Op:
    """``op`` applied element by element to two equal-length lists of blocks."""
    return Op(f"blockwise({op.name})", lambda a, b: [op(x, y) for x, y in zip(a, b)], op.commutative)

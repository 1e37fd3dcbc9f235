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
from ppt.mpi.unsupported import Refusing


class Op(metaclass=Refusing):
    """A named, associative reduction ``fn(a, b)``; ``commutative`` lets algorithms reorder operands.

    ``user``: for an operation made by mpi4py's ``Op.Create``, its function
    ``user(inbuf, inoutbuf, datatype)``; None for the others.
    """

    __slots__ = ("name", "fn", "commutative", "user", "freed")

    def __init__(self, name: str | None = None, fn=None, commutative: bool = True, user=None):
        """Without a name, mpi4py's ``MPI.Op()``: a null operation, equal to ``MPI.OP_NULL``."""
        self.name = "OP_NULL" if name is None else name
        self.fn = fn
        self.commutative = commutative
        self.user = user
        #: Freed by Op.Free (user operations only: the built-in ones are shared by all ranks).
        self.freed = name is None

    def __bool__(self):
        """False for a null or freed operation, as mpi4py's handles."""
        return not self.freed

    @classmethod
    def create(cls, fn, commute: bool = True) -> "Op":
        """A user operation ``fn(a, b)`` on Python objects."""
        return cls(getattr(fn, "__name__", "user_op"), fn, commute)

    @classmethod
    def create_mpi4py(cls, function, commute: bool = False) -> "Op":
        """mpi4py's ``Op.Create(function, commute=False)``: lowercase calls combine objects as
        ``function(a, b, None)`` (its result), buffer calls as ``function(inbuf, inoutbuf, datatype)``
        (see :func:`on_buffers`)."""
        return cls(getattr(function, "__name__", "user_op"), lambda a, b: function(a, b, None), bool(commute),
                   function)

    def is_commutative(self) -> bool:
        return self.commutative

    @property
    def is_predefined(self) -> bool:
        return self.name in BUILTIN

    def free(self) -> None:
        """MPI_Op_free: the operation equals MPI.OP_NULL from now on (built-in ones cannot be freed)."""
        if self.user is not None:
            self.freed = True

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

LXOR = Op("LXOR", _elementwise(np.logical_xor, lambda a, b: bool(a) != bool(b)))


def _loc(better):
    """MAXLOC/MINLOC on ``(value, index)`` pairs: the better value, the lower index on a tie."""
    def combine(a, b):
        (u, i), (v, j) = a, b
        if better(u, v):
            return u, i
        if better(v, u):
            return v, j
        return u, min(i, j)
    return combine


MAXLOC = Op("MAXLOC", _loc(operator.gt))
MINLOC = Op("MINLOC", _loc(operator.lt))
#: mpi4py's REPLACE and NO_OP: the second and the first operand.
REPLACE = Op("REPLACE", lambda a, b: b, False)
NO_OP = Op("NO_OP", lambda a, b: a, False)

BUILTIN = {op.name: op for op in (SUM, PROD, MAX, MIN, LAND, LOR, BAND, BOR, BXOR, LXOR, MAXLOC, MINLOC, REPLACE,
                                  NO_OP)}


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


def on_buffers(op: Op, datatype) -> Op:
    """``op`` for mpi4py's buffer calls on numpy arrays of ``datatype``'s elements.

    A built-in op works element-wise and its result keeps the datatype
    (``LAND`` of ints gives ints); a user op from ``Op.Create`` is called as
    ``function(inbuf, inoutbuf, datatype)`` on byte buffers, ``inbuf`` from
    the lower ranks, and its result is what it leaves in ``inoutbuf``.
    """
    if op.user is not None:
        function = op.user

        def combine(a, b):
            inout = np.array(b, copy=True)
            function(memoryview(np.ascontiguousarray(a).reshape(-1).view(np.uint8)),
                     memoryview(inout.reshape(-1).view(np.uint8)), datatype)
            return inout
    else:
        fn, dtype = op.fn, datatype.dtype

        def combine(a, b):
            return np.asarray(fn(a, b)).astype(dtype, copy=False)
    return Op(op.name, combine, op.commutative)


def blockwise(op: Op) -> Op:
    """``op`` applied element by element to two equal-length lists of blocks."""
    return Op(f"blockwise({op.name})", lambda a, b: [op(x, y) for x, y in zip(a, b)], op.commutative)

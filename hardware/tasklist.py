"""Compute tasklists: machine-independent operation counts for one piece of work.

A :class:`Tasklist` holds what a code region does, not how long it takes; a
:class:`~ppt.hardware.node.NodeModel` turns it into seconds.  Build one with
named fields, or from a LANL PPT style list of ``(op, count[, extra...])``
entries with :meth:`Tasklist.from_list`:

=====================  ===========================================================
``("iALU", n)``        ``n`` scalar integer operations
``("fALU", n)``        ``n`` scalar floating-point adds/multiplies (an FMA counts once)
``("fDIV", n)``        ``n`` floating-point divides (or square roots)
``("VECTOR", n[, w])`` ``n`` vector operations, each on ``w`` 64-bit elements
                       (default 1); a processor with ``L`` lanes needs
                       ``ceil(w / L)`` instructions for each
``("INTVEC", n[, w])`` integer vector operations; same issue resources as ``VECTOR``
``("FMA", n[, w])``    ``n`` fused multiply-adds on ``w`` 64-bit elements (2 flops per
                       element): one vector instruction per ``ceil(w / L)`` on a
                       processor with FMA units, a multiply and an add without
``("MEM_ACCESS", n, b, rates)``
                       ``n`` loads/stores of ``b`` bytes each; ``rates`` are the
                       local hit rates of cache levels L1, L2, ... (a list, or a
                       dict ``{"L1": .9, "L2": .5}``): the fraction of the accesses
                       *reaching* a level that hit there.  Levels not given hit
                       never; rates for levels the processor lacks are ignored.
``("MEM_ACCESS_REUSE", n, b, profile)``
                       as above, with a reuse-distance profile instead of hit rates:
                       ``[(distance_B, probability), ...]`` (or a dict), where the
                       distance is the number of distinct bytes touched since the
                       previous access to the same data; ``None`` or ``inf`` marks a
                       first touch.  Probabilities must sum to 1.  This form is
                       portable: each processor derives its own hit rates.
``("MEM_BYTES", b)``   ``b`` bytes streamed to/from main memory that no
                       ``MEM_ACCESS`` entry already describes
=====================  ===========================================================

Every count must be a finite number >= 0; a bad entry raises a one-line
:class:`~ppt.errors.ConfigError` naming it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from numbers import Real

from ppt.errors import ConfigError

PROBABILITY_TOLERANCE = 1e-6


def _count(value, what: str) -> float:
    """``value`` as a finite float >= 0, else a ConfigError naming ``what``."""
    if isinstance(value, bool):
        raise ConfigError(f"{what} must be a number >= 0, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{what} must be a number >= 0, got {value!r}") from None
    if not math.isfinite(number) or number < 0:
        raise ConfigError(f"{what} must be a finite number >= 0, got {value!r}")
    return number


def _lanes(value, what: str) -> int:
    """A vector width in 64-bit elements: a positive integer."""
    if isinstance(value, bool) or not isinstance(value, Real) or value != int(value) or value < 1:
        raise ConfigError(f"{what} vector width must be a positive integer (64-bit elements), got {value!r}")
    return int(value)


def _hit_rates(rates, what: str) -> tuple[float, ...]:
    """Local hit rates, L1 first, from a list or a ``{"L<k>": rate}`` dict."""
    if isinstance(rates, dict):
        by_level = {}
        for key, rate in rates.items():
            if not (isinstance(key, str) and key[:1] in "Ll" and key[1:].isdigit() and int(key[1:]) >= 1):
                raise ConfigError(f"{what} hit-rate key {key!r} is not a cache level name like 'L1'")
            by_level[int(key[1:])] = rate
        rates = [by_level.get(level, 0.0) for level in range(1, max(by_level, default=0) + 1)]
    if isinstance(rates, (str, bytes)) or not hasattr(rates, "__iter__"):
        raise ConfigError(f"{what} hit rates must be a list or a dict like {{'L1': 0.9}}, got {rates!r}")
    checked = []
    for level, rate in enumerate(rates, start=1):
        rate = _count(rate, f"{what} L{level} hit rate")
        if rate > 1:
            raise ConfigError(f"{what} L{level} hit rate must lie in [0, 1], got {rate!r}")
        checked.append(rate)
    return tuple(checked)


def _reuse_profile(profile, what: str) -> tuple[tuple[float, float], ...]:
    """``(distance_B, probability)`` pairs sorted by distance; ``inf`` for first touches."""
    pairs = profile.items() if isinstance(profile, dict) else profile
    try:
        pairs = [tuple(pair) for pair in pairs]
    except TypeError:
        raise ConfigError(f"{what} reuse profile must be (distance_B, probability) pairs, got {profile!r}") from None
    checked = []
    for pair in pairs:
        if len(pair) != 2:
            raise ConfigError(f"{what} reuse profile entry {pair!r} must be (distance_B, probability)")
        distance, probability = pair
        distance = math.inf if distance is None else distance
        if not (isinstance(distance, Real) and not isinstance(distance, bool)
                and distance >= 0 and not math.isnan(distance)):
            raise ConfigError(f"{what} reuse distance must be bytes >= 0 (or None for a first touch), got {distance!r}")
        checked.append((float(distance), _count(probability, f"{what} reuse probability")))
    total = sum(p for _, p in checked)
    if abs(total - 1.0) > PROBABILITY_TOLERANCE:
        raise ConfigError(f"{what} reuse probabilities must sum to 1, got {total:.6g}")
    return tuple(sorted(checked))


@dataclass(frozen=True)
class MemAccess:
    """``count`` loads/stores of ``bytes_per_access`` bytes with either local
    ``hit_rates`` (L1 first) or a ``reuse_profile`` of (distance_B, probability)."""

    count: float
    bytes_per_access: float
    hit_rates: tuple[float, ...] | None = None
    reuse_profile: tuple[tuple[float, float], ...] | None = None

    def __post_init__(self):
        if (self.hit_rates is None) == (self.reuse_profile is None):
            raise ConfigError("MEM_ACCESS needs exactly one of hit rates or a reuse profile")
        what = "MEM_ACCESS" if self.hit_rates is not None else "MEM_ACCESS_REUSE"
        object.__setattr__(self, "count", _count(self.count, f"{what} count"))
        object.__setattr__(self, "bytes_per_access", _count(self.bytes_per_access, f"{what} bytes per access"))
        if self.hit_rates is not None:
            object.__setattr__(self, "hit_rates", _hit_rates(self.hit_rates, what))
        else:
            object.__setattr__(self, "reuse_profile", _reuse_profile(self.reuse_profile, what))


@dataclass(frozen=True)
class Tasklist:
    """Operation counts of one piece of work on one core.

    ``vector_ops`` and ``fma_ops`` hold ``(count, width)`` pairs, ``width`` in 64-bit elements;
    ``stream_bytes`` are bytes moved to/from main memory outside ``accesses``.
    """

    int_ops: float = 0.0
    float_ops: float = 0.0
    divides: float = 0.0
    vector_ops: tuple[tuple[float, int], ...] = ()
    accesses: tuple[MemAccess, ...] = ()
    stream_bytes: float = 0.0
    fma_ops: tuple[tuple[float, int], ...] = ()

    def __post_init__(self):
        for name in ("int_ops", "float_ops", "divides", "stream_bytes"):
            object.__setattr__(self, name, _count(getattr(self, name), f"Tasklist.{name}"))
        object.__setattr__(self, "vector_ops", tuple(
            (_count(count, "VECTOR count"), _lanes(width, "VECTOR")) for count, width in self.vector_ops))
        object.__setattr__(self, "fma_ops", tuple(
            (_count(count, "FMA count"), _lanes(width, "FMA")) for count, width in self.fma_ops))
        for access in self.accesses:
            if not isinstance(access, MemAccess):
                raise ConfigError(f"Tasklist.accesses must hold MemAccess entries, got {access!r}")
        object.__setattr__(self, "accesses", tuple(self.accesses))

    @classmethod
    def from_list(cls, entries) -> "Tasklist":
        """A Tasklist from LANL PPT style ``(op, count[, extra...])`` entries (see module doc)."""
        if isinstance(entries, Tasklist):
            return entries
        if isinstance(entries, (str, bytes, dict)) or not hasattr(entries, "__iter__"):
            raise ConfigError(f"a tasklist must be a list of (op, count, ...) entries, got {type(entries).__name__}")
        scalars = {"iALU": 0.0, "fALU": 0.0, "fDIV": 0.0, "MEM_BYTES": 0.0}
        vectors, fmas, accesses = [], [], []
        for entry in entries:
            if isinstance(entry, (str, bytes)) or not hasattr(entry, "__len__") or len(entry) == 0:
                raise ConfigError(f"tasklist entry {entry!r} must be a tuple (op, count, ...)")
            op, *args = entry
            if op in scalars:
                if len(args) != 1:
                    raise ConfigError(f"tasklist entry {op!r} takes one count, got {tuple(args)!r}")
                scalars[op] += _count(args[0], f"{op} count")
            elif op in ("VECTOR", "INTVEC", "FMA"):
                if len(args) not in (1, 2):
                    raise ConfigError(f"tasklist entry {op!r} takes (count[, width]), got {tuple(args)!r}")
                (fmas if op == "FMA" else vectors).append(
                    (_count(args[0], f"{op} count"), _lanes(args[1] if len(args) == 2 else 1, op)))
            elif op in ("MEM_ACCESS", "MEM_ACCESS_REUSE"):
                key = "hit_rates" if op == "MEM_ACCESS" else "reuse_profile"
                if len(args) != 3:
                    raise ConfigError(f"tasklist entry {op!r} takes (count, bytes_per_access, {key}), "
                                      f"got {len(args)} values")
                accesses.append(MemAccess(args[0], args[1], **{key: args[2]}))
            else:
                known = "iALU, fALU, fDIV, VECTOR, INTVEC, FMA, MEM_ACCESS, MEM_ACCESS_REUSE, MEM_BYTES"
                raise ConfigError(f"unknown tasklist op {op!r}; use one of: {known}")
        return cls(int_ops=scalars["iALU"], float_ops=scalars["fALU"], divides=scalars["fDIV"],
                   vector_ops=tuple(vectors), accesses=tuple(accesses), stream_bytes=scalars["MEM_BYTES"],
                   fma_ops=tuple(fmas))

    def __add__(self, other: "Tasklist") -> "Tasklist":
        """The work of both tasklists, done one after the other."""
        if not isinstance(other, Tasklist):
            return NotImplemented
        return Tasklist(self.int_ops + other.int_ops, self.float_ops + other.float_ops,
                        self.divides + other.divides, self.vector_ops + other.vector_ops,
                        self.accesses + other.accesses, self.stream_bytes + other.stream_bytes,
                        self.fma_ops + other.fma_ops)

    def scaled(self, factor: float) -> "Tasklist":
        """This work repeated ``factor`` times (every count multiplied)."""
        factor = _count(factor, "Tasklist scale factor")
        return Tasklist(self.int_ops * factor, self.float_ops * factor, self.divides * factor,
                        tuple((count * factor, width) for count, width in self.vector_ops),
                        tuple(replace(a, count=a.count * factor) for a in self.accesses),
                        self.stream_bytes * factor,
                        tuple((count * factor, width) for count, width in self.fma_ops))

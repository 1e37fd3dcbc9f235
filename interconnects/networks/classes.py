"""Traffic classes of a packet network: the ``traffic_classes``, ``class_shares`` and ``class_priority``
keys of a preset's ``network`` section, checked.

Every packet belongs to one class (that of its MPI job, or of its synthetic
traffic stream).  Class ``c`` has its own copy of the routing's VCs on every
port (so a class's packets never wait in another's buffers), and every router
output port shares its wire among the classes with packets waiting: strict
priority first (higher ``class_priority`` levels served first), then, within a
priority level, each class at least its ``class_shares`` fraction of the
wire, with what a class leaves unused going to the others (work-conserving).
Arbitration and the deadlock argument are in ``core/net.c``.  One class (the
default) is the network without classes, result for result.
"""
from __future__ import annotations

from dataclasses import dataclass

from ppt.errors import ConfigError

#: Classes a network may have at most (each keeps its own latency histogram in the core).
MAX_CLASSES = 8
#: How far the shares' sum may be from 1.
SHARE_TOLERANCE = 1e-6


@dataclass(frozen=True)
class TrafficClasses:
    """``count`` classes; ``shares[c]``: class c's guaranteed fraction of every port's bandwidth (sum 1);
    ``priority[c]``: its strict priority level (higher first; all 0: shares alone)."""

    count: int = 1
    shares: tuple[float, ...] = (1.0,)
    priority: tuple[int, ...] = (0,)

    @classmethod
    def from_settings(cls, settings) -> "TrafficClasses":
        """The classes of a ``network`` section's settings (a ConfigError names a bad key)."""
        count = settings.traffic_classes
        if not 1 <= count <= MAX_CLASSES:
            raise ConfigError(f"network.traffic_classes must be 1 to {MAX_CLASSES}, got {count}")
        shares = settings.class_shares
        if shares is None:
            shares = [1.0 / count] * count
        shares = _numbers(shares, count, "class_shares", float)
        if any(not s > 0.0 for s in shares):
            raise ConfigError(f"network.class_shares must all be positive fractions, got {list(shares)}")
        if abs(sum(shares) - 1.0) > SHARE_TOLERANCE:
            raise ConfigError(f"network.class_shares must sum to 1 (fractions of a port's bandwidth), got "
                              f"{list(shares)} summing to {sum(shares):.6g}")
        priority = settings.class_priority
        priority = (0,) * count if priority is None else _numbers(priority, count, "class_priority", int)
        return cls(count, shares, priority)

    @property
    def on(self) -> bool:
        """Whether there are classes to tell apart (more than one)."""
        return self.count > 1

    def describe(self) -> dict:
        """The classes as ``ppt topology`` and results show them."""
        return {"count": self.count, "shares": list(self.shares), "priority": list(self.priority)}


def _numbers(values, count: int, key: str, kind) -> tuple:
    """``values`` as a tuple of ``count`` numbers of ``kind``; a ConfigError names ``network.key`` otherwise."""
    if not isinstance(values, (list, tuple)) or len(values) != count:
        raise ConfigError(f"network.{key} must be a list of {count} numbers, one per traffic class "
                          f"(network.traffic_classes = {count}), got {values!r}")
    try:
        if any(isinstance(v, bool) or kind(v) != float(v) for v in values):
            raise ValueError
        return tuple(kind(v) for v in values)
    except (TypeError, ValueError):
        raise ConfigError(f"network.{key} must be a list of {count} {kind.__name__} numbers, got {values!r}") from None

"""Quantities as people write them (``10GB/s``, ``1.5 ns``, ``4KiB``) read into SI numbers, and SI
numbers written back with a unit (``4.826 µs``).

Decimal prefixes (k, M, G, T) are powers of 1000 and binary ones (Ki, Mi, Gi, Ti) powers of 1024, so
``4kB`` is 4,000 bytes and ``4KiB`` 4,096; ``b`` is a bit and ``B`` a byte (``100Gb/s`` is 12.5e9
bytes per second).  A preset field's dimension is the suffix of its name: ``_s`` seconds, ``_B``
bytes, ``_Bps`` bytes per second.
"""
from __future__ import annotations

import math
import re

from ppt.errors import ConfigError

#: Dimension name -> (what it is, examples for an error message).
DIMENSIONS = {
    "time": ("a time", "1us, 250ns or 2.5e-7 (seconds)"),
    "size": ("a size", "4KiB, 4kB or 4096 (bytes)"),
    "rate": ("a bandwidth", "10GB/s, 100Gb/s or 1e10 (bytes per second)"),
}

_TIME = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ns": 1e-9, "ps": 1e-12}
_PREFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
           "Ki": 2.0 ** 10, "Mi": 2.0 ** 20, "Gi": 2.0 ** 30, "Ti": 2.0 ** 40}
_NUMBER = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(\S*)\s*$")


def _units() -> dict[str, tuple[str, float]]:
    """Every unit this module reads: its text -> (dimension, SI factor)."""
    table = {unit: ("time", factor) for unit, factor in _TIME.items()}
    for prefix, factor in _PREFIX.items():
        table[f"{prefix}B"] = ("size", factor)
        for per_second in ("B/s", "Bps"):
            table[f"{prefix}{per_second}"] = ("rate", factor)
        for per_second in ("b/s", "bps", "bit/s"):
            table[f"{prefix}{per_second}"] = ("rate", factor / 8)
    return table


UNITS = _units()


def dimension_of(key: str) -> str | None:
    """The dimension of a preset field by its name's suffix (``nic_latency_s`` -> time), else None."""
    name = key.rsplit(".", 1)[-1]
    for suffix, dimension in (("_Bps", "rate"), ("_B", "size"), ("_s", "time")):
        if name.endswith(suffix):
            return dimension
    return None


def has_unit(text: str) -> bool:
    """True if ``text`` is a number followed by a unit (``10GB/s``), so it is a quantity to read."""
    match = _NUMBER.match(text)
    return bool(match and match.group(2))


def parse_quantity(text: str, dimension: str, what: str) -> float:
    """``text`` (a number with or without a unit) in SI units of ``dimension`` (time: s, size: B,
    rate: B/s); ConfigError naming ``what`` when it is not a number, its unit is unknown or of
    another dimension."""
    kind, examples = DIMENSIONS[dimension]
    match = _NUMBER.match(str(text))
    if not match:
        raise ConfigError(f"{what}: {text!r} is not {kind}; give e.g. {examples}")
    number, unit = float(match.group(1)), match.group(2)
    if not unit:
        return number
    if unit not in UNITS:
        raise ConfigError(f"{what}: unknown unit {unit!r} in {text!r}; give {kind}, e.g. {examples}")
    found, factor = UNITS[unit]
    if found != dimension:
        raise ConfigError(f"{what} is {kind}, but {text!r} is {DIMENSIONS[found][0]}; give e.g. {examples}")
    value = number * factor
    if dimension == "size" and value != int(value):
        raise ConfigError(f"{what}: {text!r} is not a whole number of bytes")
    return int(value) if dimension == "size" else value


def format_time(seconds: float, micro: str = "µs") -> str:
    """``seconds`` in s, ms, µs (``micro``) or ns, whichever puts 1 to 999 before it, to 4 significant
    digits: ``4.826 µs``.  Hours of simulated time stay in seconds (``12,345 s``)."""
    size = abs(seconds)
    if not math.isfinite(seconds) or size == 0:
        return f"{seconds:g} s"
    if size >= 1e4:
        return f"{seconds:,.0f} s"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, micro), (1e-9, "ns")):
        if size >= scale * 0.99995:              # 999.96 µs is 1 ms to 4 digits
            return f"{seconds / scale:.4g} {unit}"
    return f"{seconds * 1e9:.4g} ns"


def format_rate(bytes_per_s: float) -> str:
    """A bandwidth in B/s, kB/s, MB/s, GB/s or TB/s (decimal prefixes), to 4 significant digits."""
    size = abs(bytes_per_s)
    for scale, unit in ((1e12, "TB/s"), (1e9, "GB/s"), (1e6, "MB/s"), (1e3, "kB/s")):
        if size >= scale * 0.99995:
            return f"{bytes_per_s / scale:.4g} {unit}"
    return f"{bytes_per_s:.4g} B/s"

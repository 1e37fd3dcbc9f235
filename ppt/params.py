"""Declared parameters of a preset section: each component names its keys once, here as :class:`Param`.

A declaration gives a key's type, default (or that it is required), allowed
values or range and a one-line meaning; its SI unit follows from the key's
name (``_s`` seconds, ``_B`` bytes, ``_Bps`` bytes/s; see :mod:`ppt.units`).
The component reads its section through the declarations
(:func:`read_section`), the preset check refuses any key none declares, and
``ppt describe`` prints them, so the three never disagree.
"""
from __future__ import annotations

from dataclasses import dataclass

from ppt.config import field
from ppt.errors import ConfigError
from ppt.units import dimension_of

#: The default of a key a section must give.
REQUIRED = "required"
#: SI unit of each dimension of :func:`ppt.units.dimension_of`.
UNITS = {"time": "s", "size": "B", "rate": "B/s"}


@dataclass(frozen=True)
class Param:
    """One key of a preset section."""

    name: str
    #: What the key sets, one line.
    meaning: str
    #: int, float, str, bool, list or dict (the value is converted or checked); None: read as given, and
    #: checked by the part that reads it (``positive`` and ``nonnegative`` then only describe it).
    kind: type | None = None
    #: The value when the key is absent (:data:`REQUIRED`: the section must give it).
    default: object = REQUIRED
    positive: bool = False
    nonnegative: bool = False
    #: The values allowed, when they are a fixed list (checked by the part that reads the key).
    choices: tuple = ()
    #: The type in words where ``kind`` does not say it ("number or list").
    shape: str = ""

    @property
    def unit(self) -> str:
        """SI unit of the key's value, by its name's suffix ("" for counts, names and shares)."""
        return UNITS.get(dimension_of(self.name), "")

    @property
    def type_name(self) -> str:
        return self.shape or (self.kind.__name__ if self.kind else "any")

    @property
    def allowed(self) -> str:
        """The allowed values or range in words ("" for any value of the type)."""
        if self.choices:
            return ", ".join(self.choices)
        return "> 0" if self.positive else ">= 0" if self.nonnegative else ""

    def read(self, cfg: dict, where: str):
        """The key's value in section ``cfg`` (named ``where`` in errors), checked, or its default;
        null stands for the default when that is None."""
        if isinstance(cfg, dict) and self.name in cfg:       # (not a mapping: field() says so)
            value = cfg[self.name]
            if value is None and self.default is None:
                return None
            if self.kind is bool and not isinstance(value, bool):
                raise ConfigError(f"{where}.{self.name} must be true or false, got {value!r}")
        default = {} if self.default == REQUIRED else {"default": self.default}
        checks = {"positive": self.positive, "nonnegative": self.nonnegative} if self.kind else {}
        return field(cfg, self.name, where, self.kind, **checks, **default)

    def describe(self) -> dict:
        """The declaration as ``ppt describe`` shows it."""
        return {"parameter": self.name, "type": self.type_name, "unit": self.unit, "default": self.default,
                "allowed": self.allowed, "meaning": self.meaning}


def read_section(cfg: dict, params, where: str) -> dict:
    """Every declared key of section ``cfg`` (``where``), checked, by name."""
    return {param.name: param.read(cfg, where) for param in params}


def names(params) -> tuple[str, ...]:
    """The keys ``params`` declare."""
    return tuple(param.name for param in params)

"""The stylized application models ``ppt app`` runs, each registered beside its own code.

A model module calls :func:`register` with an :class:`AppModel` at import time;
:data:`MODULES` lists the modules to import, so ``ppt app --list`` knows every model
without running one.  A model is built from a rank count and its parameters
(defaults overridden by ``--set app.NAME=VALUE``); what it builds has ``ranks`` and
``run(machine, progress=None, seed=0)``, whose result has ``predicted_s`` (seconds)
and ``as_json()`` (a dict with at least ``cores``, ``ranks``, ``predicted_s``,
``compute_s`` and ``comm_s``, times in seconds, per rank on average).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from ppt.errors import ConfigError

#: Modules of ``ppt.apps`` that register a model, in ``ppt app --list`` order.
MODULES: tuple[str, ...] = (
    "snap",
    "stream",
    "hpl",
    "cloverleaf",
    "minimd",
    "imc",
)


@dataclass(frozen=True)
class Param:
    """One model parameter: its default (an int, float or str; the type a value given
    on the command line is read as) and what it means, with its unit."""

    default: int | float | str
    doc: str


@dataclass(frozen=True)
class AppModel:
    """A registered model: ``name`` as typed after ``ppt app``, a one-line ``summary``,
    its ``params`` and ``build(ranks, params) -> simulation`` (see the module docstring);
    ``source`` names the published description the model follows; ``columns`` are the
    model's own columns of the ``ppt app`` table."""

    name: str
    summary: str
    params: Mapping[str, Param]
    build: Callable[[int, dict], Any]
    source: str = ""
    #: Extra ``(key, header)`` columns of the scaling table: keys of the result's ``as_json()``.
    columns: tuple[tuple[str, str], ...] = ()

    def resolve(self, overrides: Mapping[str, str | int | float]) -> dict:
        """The parameters with ``overrides`` applied, each read as its default's type;
        an unknown name or an unreadable value is a :class:`ConfigError`."""
        values = {name: p.default for name, p in self.params.items()}
        for name, raw in overrides.items():
            if name not in self.params:
                known = ", ".join(sorted(self.params)) or "none"
                raise ConfigError(f"app {self.name} has no parameter {name!r} (its parameters: {known})")
            kind = type(self.params[name].default)
            try:
                values[name] = kind(raw) if not isinstance(raw, str) or kind is str else _parse(kind, raw)
            except ValueError:
                raise ConfigError(f"app.{name}={raw!r}: give {kind.__name__} "
                                  f"({self.params[name].doc})") from None
        return values


def _parse(kind, text: str):
    if kind is int:
        return int(float(text)) if text.lower().count("e") == 1 and float(text).is_integer() else int(text)
    return kind(text)


_MODELS: dict[str, AppModel] = {}


def register(model: AppModel) -> AppModel:
    """Add ``model`` (called once by its module at import)."""
    if model.name in _MODELS:
        raise ValueError(f"app model {model.name!r} registered twice")
    _MODELS[model.name] = model
    return model


def models() -> list[AppModel]:
    """Every registered model, in :data:`MODULES` order."""
    for module in MODULES:
        importlib.import_module(f"ppt.apps.{module}")
    return list(_MODELS.values())


def get(name: str) -> AppModel:
    """The model called ``name``; an unknown name is a :class:`ConfigError` listing the known ones."""
    known = {m.name: m for m in models()}
    if name not in known:
        raise ConfigError(f"unknown app {name!r}; known apps: {', '.join(known)} (ppt app --list)")
    return known[name]

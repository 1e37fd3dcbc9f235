"""Reading configuration values with one-line errors that name the field."""
from __future__ import annotations

import difflib
import json
import math
from pathlib import Path

from ppt.errors import ConfigError

_MISSING = object()


def field(cfg: dict, key: str, where: str, kind=None, default=_MISSING, positive=False, nonnegative=False):
    """``cfg[key]`` converted with ``kind``; a ConfigError names ``where.key`` when absent or bad.

    ``kind`` int or float refuses NaN and infinity; dict and list must be given
    as such (no conversion).  ``positive``: the value must be > 0;
    ``nonnegative``: >= 0 (latencies, delays).  A ``default`` is returned as is.
    """
    if not isinstance(cfg, dict):
        raise ConfigError(f"{where} must be a mapping of fields, got {type(cfg).__name__}")
    if key not in cfg:
        if default is _MISSING:
            raise ConfigError(f"{where} is missing the field {key!r}")
        return default
    value = cfg[key]
    if kind in (dict, list):
        if not isinstance(value, kind):
            what = "a mapping of fields" if kind is dict else "a list"
            raise ConfigError(f"{where}.{key} must be {what}, got {value!r}")
    elif kind is not None:
        try:
            if kind in (int, float) and (isinstance(value, bool) or not math.isfinite(float(value))):
                raise ValueError
            if kind is int and float(value) != int(value):
                raise ValueError
            value = kind(value)
        except (TypeError, ValueError, OverflowError):
            finite = " (a finite number)" if kind in (int, float) else ""
            raise ConfigError(f"{where}.{key} must be {kind.__name__}{finite}, got {value!r}") from None
    if positive and not value > 0:
        raise ConfigError(f"{where}.{key} must be positive, got {value!r}")
    if nonnegative and not value >= 0:
        raise ConfigError(f"{where}.{key} must not be negative, got {value!r}")
    return value


def preset_names(folder: Path) -> list[str]:
    """Names of the ``*.json`` presets in ``folder``."""
    return sorted(p.stem for p in folder.glob("*.json"))


def read_preset(folder: Path, name_or_path: str, what: str) -> dict:
    """The JSON object of preset ``name_or_path``: a built-in name in ``folder`` or a ``.json`` file.

    ``what`` ("system", "processor") words the one-line errors.
    """
    path = Path(name_or_path)
    if not (path.suffix == ".json" and path.is_file()):
        path = folder / f"{name_or_path}.json"
        if not path.is_file():
            known = ", ".join(preset_names(folder))
            raise ConfigError(f"unknown {what} {name_or_path!r}; choose one of: {known} (or give a .json {what} file)")
    try:
        cfg = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{what} file {path.name} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(cfg, dict):
        raise ConfigError(f"{what} file {path.name} must hold a JSON object")
    return cfg


def closest(name: str, known, cutoff: float = 0.6) -> list[str]:
    """The names of ``known`` nearest to ``name`` (a misspelling's likely meaning), best first, at most three."""
    return difflib.get_close_matches(name, list(known), n=3, cutoff=cutoff)


def reject_unknown(cfg: dict, where: str, known, elsewhere: dict | None = None) -> None:
    """ConfigError for the first key of ``cfg`` not in ``known``, naming the nearest valid one.

    ``elsewhere`` maps keys of other sections to their dotted names, so a key
    put in the wrong section is pointed to its home (``mpi.eager_threshold_B``).
    """
    if not isinstance(cfg, dict):
        return
    for key in cfg:
        if key in known:
            continue
        close = closest(key, known)
        away = closest(key, elsewhere or (), cutoff=0.8)
        if close:
            hint = f"; did you mean {where}.{close[0]}?"
        elif away:
            hint = f"; did you mean {elsewhere[away[0]]}?"
        else:
            hint = f"; valid keys: {', '.join(sorted(known))}"
        raise ConfigError(f"unknown setting {where}.{key}{hint}")


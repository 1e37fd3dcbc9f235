"""Reading configuration values with one-line errors that name the field."""
from __future__ import annotations

from ppt.errors import ConfigError

_MISSING = object()


def field(cfg: dict, key: str, where: str, kind=None, default=_MISSING, positive=False):
    """``cfg[key]`` converted with ``kind``; a ConfigError names ``where.key`` when absent or bad."""
    if not isinstance(cfg, dict):
        raise ConfigError(f"{where} must be a mapping of fields, got {type(cfg).__name__}")
    if key not in cfg:
        if default is _MISSING:
            raise ConfigError(f"{where} is missing the field {key!r}")
        return default
    value = cfg[key]
    if kind is not None:
        try:
            if kind is int and (isinstance(value, bool) or float(value) != int(value)):
                raise ValueError
            value = kind(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{where}.{key} must be {kind.__name__}, got {value!r}") from None
    if positive and not value > 0:
        raise ConfigError(f"{where}.{key} must be positive, got {value!r}")
    return value

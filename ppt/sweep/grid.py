"""The parameter grid of a sweep: axes from ``--system``, ``--set KEY=V1,V2,...``, ``--ranks`` and
``--loads``, and their points.

A ``--set`` whose value holds one top-level comma-separated list is an axis;
one with a single value (commas inside ``[...]``, ``{...}`` or quotes do not
split) is a fixed override every point gets.  Values are kept as written and
reach each point's command as ``--set KEY=VALUE``, where the preset loader
parses them (JSON when they parse, else strings).

``--system a,b`` and ``--ranks 16,64`` are axes even with one value (their
column says which system and rank count a row is).  A point gets its system
as ``--system S`` (``run``, ``exec``, ``replay``) or as the command's first
argument (``traffic``, ``snap``), and its rank count as ``--ranks N`` (``run``,
``exec``), ``--cores N`` (``snap``) or, for ``replay``, in place of ``{ranks}``
in the trace's path (a trace's rank count is the one it was recorded with).
"""
from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass

from ppt.errors import ConfigError

#: Axis name of ``--loads`` (the traffic command's ``--load``).
LOAD = "load"
#: Axis names of ``--system`` and ``--ranks``.
SYSTEM = "system"
RANKS = "ranks"
#: Commands whose system is their first argument (the others take ``--system``).
POSITIONAL_SYSTEM = ("traffic", "snap")
#: Where ``replay`` takes a ``--ranks`` value: in the trace's path.
RANKS_FIELD = "{ranks}"


@dataclass(frozen=True)
class Axis:
    """One swept parameter: ``name`` (a preset key, or ``load``) and its ``values`` as written."""

    name: str
    values: tuple[str, ...]

    def argv(self, value: str, command: str = "traffic") -> list[str]:
        """The command-line arguments giving this axis ``value`` in a run of ``command``."""
        if self.name == LOAD:
            return ["--load", value]
        if self.name == SYSTEM:
            return [value] if command in POSITIONAL_SYSTEM else ["--system", value]
        if self.name == RANKS:
            return {"run": ["--ranks", value], "exec": ["--ranks", value], "snap": ["--cores", value]}.get(command, [])
        return ["--set", f"{self.name}={value}"]

    def typed(self, value: str):
        """``value`` as a number, boolean or string, as it appears in tables and plots."""
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value


@dataclass(frozen=True)
class Point:
    """One run of a sweep: ``params`` (axis name -> value as written), its command line ``argv`` and its
    ``inputs``: what else decides its result (PPT's version, the preset's hash, the hashes of the
    script, program or trace files; see :func:`ppt.sweep.inputs.inputs_of`)."""

    params: dict
    argv: tuple[str, ...]
    inputs: dict | None = None

    @property
    def key(self) -> str:
        """A name for this run derived from its command line and inputs (the same run, the same key)."""
        text = "\0".join(self.argv) + "\0" + json.dumps(self.inputs, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def label(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.params.items()) or "(single point)"


def split_values(text: str) -> list[str]:
    """``a,b,[1,2]`` -> ``["a", "b", "[1,2]"]``: commas inside brackets, braces or quotes do not split."""
    items, depth, quoted, start = [], 0, False, 0
    for i, ch in enumerate(text):
        if ch == '"' and (i == 0 or text[i - 1] != "\\"):
            quoted = not quoted
        elif not quoted and ch in "[{":
            depth += 1
        elif not quoted and ch in "]}":
            depth -= 1
        elif not quoted and depth == 0 and ch == ",":
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return items


def _check_values(option: str, values: list[str]) -> None:
    """ConfigError when a list has an empty item, a malformed JSON value, or numbers mixed with words."""
    numeric = []
    for value in values:
        if not value.strip():
            raise ConfigError(f"{option}: empty value in the list; separate values with single commas")
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            if value.lstrip()[:1] in '[{"':
                raise ConfigError(f"{option}: value {value!r} does not parse (unbalanced brackets or quotes?)") \
                    from None
            parsed = value
        numeric.append(isinstance(parsed, (int, float)) and not isinstance(parsed, bool))
    if any(numeric) and not all(numeric):
        word = values[numeric.index(False)]
        raise ConfigError(f"{option}: value {word!r} is not a number like the others in the list")


def parse_set(item: str) -> tuple[str, list[str]]:
    """``KEY=V1,V2`` -> ``(KEY, [V1, V2])`` (one value for a fixed override)."""
    key, sep, raw = item.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"--set takes KEY=VALUE or KEY=V1,V2,... (e.g. network.routing=min,ugal), got {item!r}")
    values = split_values(raw)
    _check_values(f"--set {item}", values)
    return key, values


def parse_list(option: str, text: str) -> list[str]:
    """``--system a,b`` or ``--ranks 16,64`` -> the values as written; an empty or repeated item is refused,
    and every ``--ranks`` value must be a whole number of at least 1."""
    values = [value.strip() for value in text.split(",")]
    for value in values:
        if not value:
            raise ConfigError(f"{option} {text}: empty value in the list; separate values with single commas")
        if option == "--ranks" and not (value.isdigit() and int(value) >= 1):
            raise ConfigError(f"{option} {text}: {value!r} is not a rank count (a whole number of at least 1)")
    twice = next((v for i, v in enumerate(values) if v in values[:i]), None)
    if twice is not None:
        raise ConfigError(f"{option} {text}: {twice} is listed twice")
    return values


def parse_loads(text: str) -> list[str]:
    """``--loads 0.1,0.5`` -> the offered loads as written, each a number in (0, 1]."""
    values = split_values(text)
    _check_values(f"--loads {text}", values)
    for value in values:
        if not 0.0 < float(value) <= 1.0:
            raise ConfigError(f"--loads {text}: load {value} is outside (0, 1]")
    return values


class Grid:
    """The axes of a sweep and the fixed overrides every point shares."""

    def __init__(self, sets: list[str], loads: str | None = None, systems: str | None = None,
                 ranks: str | None = None):
        self.axes: list[Axis] = []
        self.fixed: list[str] = []
        if systems is not None:
            self.axes.append(Axis(SYSTEM, tuple(parse_list("--system", systems))))
        for item in sets:
            key, values = parse_set(item)
            if any(axis.name == key for axis in self.axes) or any(f.partition("=")[0] == key for f in self.fixed):
                raise ConfigError(f"--set {key} is given twice; list all its values in one --set {key}=V1,V2,...")
            if len(values) > 1:
                self.axes.append(Axis(key, tuple(values)))
            else:
                self.fixed.append(item)
        if ranks is not None:
            self.axes.append(Axis(RANKS, tuple(parse_list("--ranks", ranks))))
        if loads is not None:
            self.axes.append(Axis(LOAD, tuple(parse_loads(loads))))

    def points(self, command: str, base: list[str]) -> list[Point]:
        """Every combination of the axes' values (the last axis varies fastest), as runs of ``command``.

        The system of a command that takes it first comes first; ``exec`` gets every sweep argument
        before its program (whose own arguments may end with ``--``); the others after theirs."""
        fixed = [arg for item in self.fixed for arg in ("--set", item)]
        if command == "replay" and any(a.name == RANKS for a in self.axes) \
                and not any(RANKS_FIELD in arg for arg in base):
            raise ConfigError(f"--ranks: a trace replays with the ranks it was recorded with; write {RANKS_FIELD} "
                              f"in the trace's path (e.g. traces/cg_n{RANKS_FIELD}) to replay one trace per rank "
                              f"count")
        points = []
        for combo in itertools.product(*(axis.values for axis in self.axes)):
            first, last = [], list(fixed)
            args = list(base)
            for axis, value in zip(self.axes, combo):
                if axis.name == SYSTEM and command in POSITIONAL_SYSTEM:
                    first += axis.argv(value, command)
                else:
                    last += axis.argv(value, command)
                if axis.name == RANKS and command == "replay":
                    args = [arg.replace(RANKS_FIELD, value) for arg in args]
            argv = [command, *first, *last, *args] if command == "exec" else [command, *first, *args, *last]
            points.append(Point({axis.name: value for axis, value in zip(self.axes, combo)}, tuple(argv)))
        return points

"""Golden predictions: outcomes recorded once and held to the last bit afterwards.

The MPI engine had a Python twin that predicted the same to the last bit; the outcomes both engines
gave (``tests/golden.json``, recorded while they agreed) now stand in for the twin.  An outcome is a
prediction, kept as its ``predicted_s`` and the SHA-256 of its whole JSON (times, calls, per-rank
statistics, network counts), or an error's type and text, kept whole.

A deliberate change of the engine's event order may move predictions: rerun the failing tests with
``PPT_GOLDEN=record`` to write the new outcomes, and say in the change which predictions moved and by
how much (the failure message shows the recorded and the new ``predicted_s``).
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

FILE = Path(__file__).with_name("golden.json")


def _load() -> dict:
    return json.loads(FILE.read_text()) if FILE.exists() else {}


def _take_events(data) -> list:
    """The values of every ``events`` key in ``data`` (dicts and lists, depth first), removed from it."""
    found = []
    if isinstance(data, dict):
        if "events" in data:
            found.append(data.pop("events"))
        for value in data.values():
            found += _take_events(value)
    elif isinstance(data, list):
        for value in data:
            found += _take_events(value)
    return found


def entry(outcome: str) -> dict:
    """What is kept of ``outcome``: a prediction's ``predicted_s``, the engine events it counted (kept
    apart, so that a change of the engine's event structure shows apart from the predictions) and the
    SHA-256 of the rest of its JSON; or ``"ErrorType: text"``."""
    if not outcome.startswith("{"):
        return {"error": outcome}
    data = json.loads(outcome)
    events = _take_events(data)
    return {"predicted_s": data.get("predicted_s"), "events": events,
            "sha256": hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()}


_checks: dict[str, int] = {}


def check(outcome: str) -> str:
    """Assert ``outcome`` (see :func:`entry`) is the one recorded for this point of the running test (its
    id and how many outcomes it checked before); returns it.  With ``PPT_GOLDEN=record`` in the
    environment, records it instead."""
    test = os.environ["PYTEST_CURRENT_TEST"].rsplit(" ", 1)[0]
    n = _checks[test] = _checks.get(test, -1) + 1
    key = f"{test}#{n}"
    got = entry(outcome)
    golden = _load()
    if os.environ.get("PPT_GOLDEN") == "record":
        if golden.get(key) != got:
            golden[key] = got
            FILE.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
        return outcome
    assert key in golden, f"no golden outcome for {key!r}: run with PPT_GOLDEN=record"
    assert got == golden[key], f"{key}: recorded {golden[key]}, now {got}"
    return outcome

"""A sweep's results as rows: the point's parameters, then the command's result flattened.

Nested objects become dotted columns (``network.mean_latency_s``); a
top-level ``results`` list of objects (``snap``, ``pingpong``) gives one row
per entry; other lists (per-rank details) stay in the per-point JSON only.
"""
from __future__ import annotations

import csv
import io


def flatten(obj: dict, prefix: str = "") -> dict:
    """Scalars of ``obj`` by dotted name; lists are left out."""
    flat = {}
    for key, value in obj.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(flatten(value, f"{name}."))
        elif not isinstance(value, list):
            flat[name] = value
    return flat


def rows_of(params: dict, result: dict) -> list[dict]:
    """The rows of one point: ``params`` (typed values) first, then its result's columns."""
    common = {**params, **flatten(result)}
    entries = result.get("results")
    if isinstance(entries, list) and entries and all(isinstance(e, dict) for e in entries):
        return [{**common, **flatten(entry)} for entry in entries]
    return [common]


#: Per swept command, the result columns its table (and the metrics its plot) show unless ``--columns``
#: (``--metrics``) says otherwise: what the command predicts, not how the simulation got there.
HEADLINE = {
    "traffic": ("accepted_fraction", "mean_latency_s", "latency_p99_s", "mean_hops", "saturated"),
    "run": ("predicted_s", "network.mean_latency_s", "network.message_latency_p99_s", "network.mean_hops"),
    "exec": ("predicted_s", "network.mean_latency_s", "network.message_latency_p99_s", "network.mean_hops"),
    "replay": ("predicted_s", "trace_s", "network.mean_latency_s", "network.message_latency_p99_s"),
    "snap": ("cores", "predicted_s", "compute_s", "comm_s", "speedup", "efficiency"),
}


def headline(command: str, rows: list[dict]) -> list[str]:
    """The :data:`HEADLINE` columns of ``command`` that ``rows`` have."""
    present = set(columns_of(rows))
    return [c for c in HEADLINE.get(command, ()) if c in present]


def columns_of(rows: list[dict]) -> list[str]:
    """Every column, in order of first appearance."""
    return list(dict.fromkeys(key for row in rows for key in row))


def varying(rows: list[dict], columns: list[str]) -> list[str]:
    """The ``columns`` whose value differs between rows (all of them for a single row)."""
    if len(rows) < 2:
        return columns
    return [c for c in columns if len({repr(row.get(c)) for row in rows}) > 1]


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def to_csv(rows: list[dict]) -> str:
    """CSV text of ``rows`` (floats at full precision, so equal results give equal text)."""
    columns = columns_of(rows)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(row.get(c)) for c in columns])
    return text.getvalue()

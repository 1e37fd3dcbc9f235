"""A sweep's plot: every numeric metric that varies against one column, one line per combination
of the other swept parameters."""
from __future__ import annotations

import math

from ppt.sweep.table import columns_of, varying


#: More varying metrics than this (a run's calls and network statistics per link class), and the table
#: and plot keep the top-level ones (``predicted_s``); the CSV and JSON keep every column.
MAX_METRICS = 24


def metrics(rows: list[dict], params: list[str], x: str) -> list[str]:
    """Numeric columns that are not parameters, ``x`` or provenance (wall time, seed) and differ between
    rows (only the top-level ones when more than :data:`MAX_METRICS` do)."""
    def numeric(column):
        values = [row.get(column) for row in rows]
        return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values if v is not None)
    return compact(varying(rows, [c for c in columns_of(rows)
                                  if c not in params and c != x and not c.startswith("provenance.") and numeric(c)]))


def compact(columns: list[str]) -> list[str]:
    """``columns``, or only its top-level (undotted) ones when there are more than :data:`MAX_METRICS`."""
    if len(columns) <= MAX_METRICS:
        return columns
    return [c for c in columns if "." not in c] or columns[:MAX_METRICS]


def series(rows: list[dict], params: list[str], x: str) -> dict[str, list[dict]]:
    """Rows grouped by the values of the parameters other than ``x`` (label -> rows in sweep order)."""
    others = [p for p in params if p != x]
    groups: dict[str, list[dict]] = {}
    for row in rows:
        label = ", ".join(f"{p}={row[p]}" for p in others) or x
        groups.setdefault(label, []).append(row)
    return groups


def plot_sweep(rows: list[dict], params: list[str], x: str, path: str, title: str) -> None:
    """Write a PNG with one panel per metric against column ``x``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = metrics(rows, params, x)
    cols = min(3, max(1, len(names)))
    nrows = max(1, math.ceil(len(names) / cols))
    fig, axes = plt.subplots(nrows, cols, figsize=(4.6 * cols, 3.4 * nrows), squeeze=False)
    groups = series(rows, params, x)
    for panel, name in zip(axes.flat, names):
        for label, members in groups.items():
            points = [(row[x], row[name]) for row in members if row.get(name) is not None]
            panel.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
        panel.set(xlabel=x, ylabel=name)
        if x == "ranks":                 # rank counts grow by factors: equal steps on a log axis
            panel.set_xscale("log", base=2)
            ticks = sorted({row[x] for row in rows if isinstance(row.get(x), (int, float))})
            panel.set_xticks(ticks, [str(t) for t in ticks])
            panel.minorticks_off()
    for panel in list(axes.flat)[len(names):]:
        panel.set_visible(False)
    if names and len(groups) > 1:
        axes.flat[0].legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)

"""A sweep's plot: every numeric metric that varies against one column, one line per combination
of the other swept parameters."""
from __future__ import annotations

import math

from ppt import plotstyle
from ppt.sweep.table import columns_of, headline, varying


#: More varying metrics than this (a run's calls and network statistics per link class), and the table
#: and plot keep the top-level ones (``predicted_s``); the CSV and JSON keep every column.
MAX_METRICS = 24


def metrics(rows: list[dict], params: list[str], x: str, command: str | None = None) -> list[str]:
    """Numeric columns that are not parameters, ``x`` or provenance (wall time, seed) and differ between
    rows: those of ``command``'s :data:`~ppt.sweep.table.HEADLINE` if any of them do, else all of them
    (only the top-level ones when more than :data:`MAX_METRICS` do)."""
    def numeric(column):
        values = [row.get(column) for row in rows]
        return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values if v is not None)
    candidates = varying(rows, [c for c in columns_of(rows)
                                if c not in params and c != x and not c.startswith("provenance.") and numeric(c)])
    preferred = [c for c in headline(command, rows) if c in candidates] if command else []
    return preferred or compact(candidates)


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


#: How a point a traffic run found saturated is marked: a black ring around it, apart from every series' colour.
SATURATED = {"marker": "o", "color": "black", "markersize": 9, "markerfacecolor": "none", "markeredgecolor": "black",
             "markeredgewidth": 1.0}

#: Plotted first unless --metrics says otherwise: the prediction.
FIRST = "predicted_s"


def chosen(rows: list[dict], params: list[str], x: str, wanted: list[str] | None = None,
           command: str | None = None) -> list[str]:
    """The metrics to draw: ``wanted`` (``--metrics``) as given, else :func:`metrics` of ``command``
    with :data:`FIRST` first."""
    if wanted:
        return list(wanted)
    names = metrics(rows, params, x, command)
    return sorted(names, key=lambda name: name != FIRST)


def unit(name: str, values) -> tuple[float, str]:
    """``(scale, axis label)`` for a column in SI units: seconds as s, ms, µs or ns (by the largest
    value), ``_Bps`` as GB/s, ``_B`` as bytes, kB, MB or GB; a fraction or a count as it is."""
    largest = max((abs(v) for v in values if isinstance(v, (int, float))), default=0.0)
    base = name.rsplit(".", 1)
    label = base[-1] if len(base) == 1 else name
    if name.endswith("_Bps"):
        return 1e-9, f"{label[:-4]} (GB/s)"
    if name.endswith("_s"):
        for scale, text in ((1.0, "s"), (1e3, "ms"), (1e6, "µs"), (1e9, "ns")):
            if largest * scale >= 1.0 or text == "ns":
                return scale, f"{label[:-2]} ({text})"
    if name.endswith(("_B", ".bytes")) or name == "bytes":
        stem = label[:-2] if name.endswith("_B") else label
        for scale, text in ((1e-9, "GB"), (1e-6, "MB"), (1e-3, "kB"), (1.0, "bytes")):
            if largest * scale >= 1.0 or text == "bytes":
                return scale, f"{stem} ({text})"
    if name == "load":
        return 1.0, "offered load (0..1)"
    if name.endswith(("fraction", "utilization", "efficiency")) or name.startswith("offered_load"):
        return 1.0, f"{label} (0..1)"
    return 1.0, label


def _numeric(values) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def plot_sweep(rows: list[dict], params: list[str], x: str, path: str, title: str,
               wanted: list[str] | None = None, command: str | None = None, dpi: int | None = None) -> None:
    """Write a PNG (``dpi`` dots per inch, else the style's) with one panel per metric (``wanted``, else those
    :func:`chosen` picks for ``command``) against column ``x``: lines for a numeric ``x``, points side
    by side for a categorical one (systems, routings), saturated points marked, axes in readable
    units without offsets; against rank counts, times on a log axis (strong scaling spans decades).
    One legend for the whole figure, under the panels."""
    from matplotlib.lines import Line2D
    names = chosen(rows, params, x, wanted, command)
    cols = 1 if len(names) <= 3 else 2
    nrows = max(1, math.ceil(len(names) / cols))
    groups = series(rows, params, x)
    xs = [row.get(x) for row in rows]
    categorical = not _numeric([v for v in xs if v is not None])
    categories = list(dict.fromkeys(str(v) for v in xs))
    x_scale, x_label = (1.0, x) if categorical else unit(x, xs)
    saturated_any = False
    with plotstyle.figure(path, nrows, cols, title=title, dpi=dpi) as (fig, axes):
        for panel, name in zip(axes.flat, names):
            scale, label = unit(name, [row.get(name) for row in rows])
            for index, (group, members) in enumerate(groups.items()):
                points = [row for row in members if isinstance(row.get(name), (int, float))]
                if categorical:         # side by side around each category's position
                    shift = (index - (len(groups) - 1) / 2) * min(0.6 / max(len(groups), 1), 0.2)
                    at = [categories.index(str(row[x])) + shift for row in points]
                else:
                    at = [row[x] * x_scale for row in points]
                values = [row[name] * scale for row in points]
                panel.plot(at, values, label=group, **({"linestyle": "none"} if categorical else {}))
                hot = [(a, v) for a, v, row in zip(at, values, points) if row.get("saturated") is True]
                if hot:
                    saturated_any = True
                    panel.plot([a for a, _ in hot], [v for _, v in hot], linestyle="none", **SATURATED, zorder=3)
            panel.set(xlabel=x_label, ylabel=label)
            if categorical:
                panel.set_xticks(range(len(categories)), categories)
                panel.set_xlim(-0.5, len(categories) - 0.5)
            elif x == "ranks":           # rank counts grow by factors: equal steps on a log axis
                panel.set_xscale("log", base=2)
                if name.endswith("_s") and all(isinstance(row.get(name), (int, float)) and row[name] > 0
                                               for row in rows):
                    panel.set_yscale("log")     # a time that shrinks by factors: equal steps too
                    plotstyle.plain_log(panel.yaxis)
                ticks = sorted({row[x] for row in rows if isinstance(row.get(x), (int, float))})
                panel.set_xticks(ticks, [str(t) for t in ticks])
                panel.minorticks_off()
        for panel in list(axes.flat)[len(names):]:
            panel.set_visible(False)
        handles, labels = axes.flat[0].get_legend_handles_labels() if names and len(groups) > 1 else ([], [])
        if saturated_any:
            handles.append(Line2D([], [], linestyle="none", **SATURATED))
            labels.append("saturated")
        plotstyle.legend(fig, handles, labels)

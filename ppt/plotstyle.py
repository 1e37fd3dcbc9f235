"""The one style of every figure PPT draws: paper-ready at one column width.

A figure is drawn at the width it is printed, one column of a two-column paper, :data:`COLUMN_IN` = 3.5 in
(89 mm), with its panels stacked (at most two side by side), so that its text prints at these sizes (points):

- axis labels and panel titles: 8 pt (:data:`LABEL_PT`);
- tick labels, legend and annotations: 7 pt (:data:`MIN_FONT_PT`, the smallest text of any figure);
- the figure's title: 8 pt.

Colours are the Okabe-Ito palette (Okabe & Ito, "Color Universal Design", 2008), told apart under the common
colour-vision deficiencies; each series also takes its own marker and line style from :data:`MARKERS` and
:data:`LINESTYLES`, so series stay apart printed in grey.

Draw with :func:`figure` (a context manager: the style, the panels, the PNG written and the figure closed),
give all panels one legend with :func:`legend`, and draw grouped bars with :func:`grouped_bars`.
"""
from __future__ import annotations

import textwrap
from contextlib import contextmanager

#: Okabe-Ito, in the order series take them (yellow, faint on white, last).
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442")
#: A marker and a line style per colour of :data:`OKABE_ITO`, in the same order.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", "-.", ":", "-", "--", "-.", ":")
#: Width of one column of a two-column paper, inches: every figure's width.
COLUMN_IN = 3.5
#: Height of one row of panels, inches.
PANEL_IN = 2.2
#: Text sizes in points at :data:`COLUMN_IN`: axis labels and titles, and the smallest text of any figure.
LABEL_PT = 8
MIN_FONT_PT = 7
#: Characters of a figure title's line at :data:`LABEL_PT` across :data:`COLUMN_IN`.
TITLE_CHARS = 54
#: Characters of the longest label of a legend in two columns.
LEGEND_CHARS = 30
#: Relative gap under which :func:`distinct` folds one curve into another.
SAME = 0.02
#: Resolution of a PNG unless its caller (``--dpi``) says otherwise: 700 pixels across.
DPI = 200


def rc() -> dict:
    """The matplotlib settings of the style."""
    from cycler import cycler
    return {
        "axes.prop_cycle": cycler(color=OKABE_ITO) + cycler(marker=MARKERS) + cycler(linestyle=LINESTYLES),
        "font.size": LABEL_PT, "axes.labelsize": LABEL_PT, "axes.titlesize": LABEL_PT,
        "figure.titlesize": LABEL_PT, "xtick.labelsize": MIN_FONT_PT, "ytick.labelsize": MIN_FONT_PT,
        "legend.fontsize": MIN_FONT_PT, "legend.title_fontsize": MIN_FONT_PT, "legend.frameon": False,
        "lines.linewidth": 1.2, "lines.markersize": 4, "patch.linewidth": 0.5,
        "axes.grid": True, "grid.alpha": 0.3, "grid.linewidth": 0.5, "axes.linewidth": 0.6,
        "axes.formatter.useoffset": False, "axes.formatter.limits": (-4, 7),     # 1.2e-6, never +1.2e-6
        "figure.constrained_layout.use": True, "savefig.dpi": DPI,
    }


@contextmanager
def figure(path: str, rows: int = 1, cols: int = 1, *, title: str = "", dpi: int | None = None,
           panel_in: float = PANEL_IN, **subplots):
    """Yield ``(fig, axes)`` (``axes`` a 2-D array of ``rows`` x ``cols`` panels) drawn in the style, one
    column wide and ``panel_in`` inches a row; on leaving, write the PNG ``path`` at ``dpi`` (default
    :data:`DPI`) in 256 colours and close the figure.  ``title`` goes above the panels, each of its lines wrapped to the width."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with matplotlib.rc_context(rc()):
        fig, axes = plt.subplots(rows, cols, figsize=(COLUMN_IN, panel_in * rows), squeeze=False, **subplots)
        try:
            if title:
                fig.suptitle("\n".join(textwrap.fill(line, TITLE_CHARS) for line in title.splitlines()))
            yield fig, axes
            fig.savefig(path, format="png", dpi=dpi or DPI)
        finally:
            plt.close(fig)
    _palette(path)


def _palette(path: str) -> None:
    """Rewrite PNG ``path`` in 256 colours: a third of the bytes, no change to see (flat colours, a few
    shades of anti-aliasing)."""
    from PIL import Image
    with Image.open(path) as image:
        small, dpi = image.convert("RGB").quantize(256), image.info.get("dpi")
    small.save(path, format="png", optimize=True, dpi=dpi)


def legend(fig, handles=None, labels=None, ncol: int | None = None) -> None:
    """One legend for all of ``fig``'s panels, under them: ``handles`` and ``labels``, else every labelled
    series of every panel, each label once; in ``ncol`` columns, else two when the labels fit side by side."""
    if handles is None:
        found = {}
        for ax in fig.axes:
            for handle, label in zip(*ax.get_legend_handles_labels()):
                found.setdefault(label, handle)
        handles, labels = list(found.values()), list(found)
    if handles:
        ncol = ncol or (2 if max(map(len, labels)) <= LEGEND_CHARS else 1)
        fig.legend(handles, labels, loc="outside lower center", ncol=min(ncol, len(handles)))


def plain_log(axis) -> None:
    """Label log ``axis`` (``ax.yaxis``, a colour bar's) in plain numbers, 2 and 4 rather than 2 x 10^0:
    every decade, and its 2, 3 and 5 between."""
    from matplotlib.ticker import FuncFormatter
    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_formatter(FuncFormatter(lambda value, _: f"{value:g}" if f"{value:.0e}"[0] in "235" else ""))


def grouped_bars(ax, categories: list[str], groups: dict[str, list[float]], missing: str = "n/a") -> list:
    """Bars of each group's value per category, the groups side by side within a category, each group in
    its colour of the palette with its hatch (apart in grey); a value of None draws no bar but ``missing``
    at its place.  Categories label the x axis, slanted.  Returns each group's bars."""
    width = 0.8 / len(groups)
    hatches = ("", "//", "..", "xx", "\\\\", "oo", "++", "--")
    drawn = []
    for k, (label, values) in enumerate(groups.items()):
        xs = [i + (k - (len(groups) - 1) / 2) * width for i in range(len(categories))]
        drawn.append(ax.bar(xs, [v or 0 for v in values], width, label=label, color=OKABE_ITO[k % len(OKABE_ITO)],
                            hatch=hatches[k % len(hatches)], edgecolor="white"))
        for x, value in zip(xs, values):
            if value is None:
                ax.text(x, 0, f" {missing}", ha="center", va="bottom", rotation=90, fontsize=MIN_FONT_PT)
    ax.set_xticks(range(len(categories)), categories, rotation=30, ha="right")
    ax.grid(axis="x", visible=False)
    return drawn


def distinct(curves: dict, tolerance: float = SAME) -> dict:
    """The curves of ``curves`` (key -> ``(label, xs, ys)``) that no earlier one would hide: a curve whose ys
    lie within ``tolerance`` (relative) of an earlier curve's at the same xs is left out and named in that
    curve's label, "A and B (identical)" or "A and B (within 1.2%)"."""
    kept = {}
    for key, (label, xs, ys) in curves.items():
        for other, (first, xs0, ys0) in kept.items():
            if list(xs) != list(xs0):
                continue
            gap = max(abs(a - b) / max(abs(a), abs(b)) if a != b else 0.0 for a, b in zip(ys0, ys))
            if gap < tolerance:
                kept[other] = (f"{first} and {label} ({'identical' if gap == 0 else f'within {gap:.1%}'})", xs0, ys0)
                break
        else:
            kept[key] = (label, xs, ys)
    return kept

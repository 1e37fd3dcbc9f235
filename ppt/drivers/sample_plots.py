"""Figures from a sample file (see :mod:`ppt.drivers.sampling`), readable at any scale.

Nothing is drawn per link: utilization is summed per link class, queues per
router group (or, without groups, per block of consecutive routers, at most
``MAX_ROWS`` rows), traffic between groups as one matrix.
"""
from __future__ import annotations

import numpy as np

from ppt import plotstyle
from ppt.interconnects.networks.latency import bucket_bounds_s

#: Rows of the occupancy heatmap at most.
MAX_ROWS = 256


def periods_s(arrays: dict) -> np.ndarray:
    """Length of every sampled period, s."""
    t = arrays["t_s"]
    return np.diff(np.concatenate(([0.0], t)))


def class_bytes(meta: dict, arrays: dict) -> np.ndarray:
    """Bytes sent per (sample, link class)."""
    if meta["level"] == "router":
        return arrays["router_class_bytes"].sum(axis=1)
    cls = arrays["port_class"].ravel()
    used = cls >= 0
    out = np.zeros((len(arrays["t_s"]), len(meta["classes"])))
    for k in range(len(meta["classes"])):
        out[:, k] = arrays["port_bytes"][:, used & (cls == k)].sum(axis=1)
    return out


def class_utilization(meta: dict, arrays: dict) -> np.ndarray:
    """Mean utilization (0..1) of each link class's ports per sample, ``(samples, classes)``."""
    capacity = np.array(meta["class_ports"]) * np.array(meta["class_bandwidth_Bps"])
    with np.errstate(invalid="ignore", divide="ignore"):
        util = class_bytes(meta, arrays) / (periods_s(arrays)[:, None] * capacity[None, :])
    return np.nan_to_num(util)


def router_queued(meta: dict, arrays: dict) -> np.ndarray:
    """Bytes queued per (sample, router) at each sample time."""
    if meta["level"] == "router":
        return arrays["router_queued_B"]
    q = arrays["port_queued_B"].sum(axis=2)
    return q.reshape(len(arrays["t_s"]), meta["routers"], meta["radix"]).sum(axis=2)


def occupancy_rows(meta: dict, arrays: dict) -> tuple[np.ndarray, str]:
    """Mean bytes queued per router, per (row, sample); rows are groups or router blocks."""
    queued = router_queued(meta, arrays)
    routers = meta["routers"]
    if "router_group" in arrays:
        rows, label = arrays["router_group"], "router group"
    else:
        per_row = -(-routers // MAX_ROWS)
        rows = np.arange(routers) // per_row
        label = "router" if per_row == 1 else f"routers (blocks of {per_row})"
    n = int(rows.max()) + 1
    sums = np.zeros((n, queued.shape[0]))
    np.add.at(sums, rows, queued.T)
    return sums / np.bincount(rows, minlength=n)[:, None], label


def latency_cdf(hist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(upper bucket edges in s, cumulative fraction) of the non-empty buckets of a histogram."""
    nz = np.nonzero(hist)[0]
    edges = np.array([bucket_bounds_s(int(k))[1] for k in nz])
    return edges, np.cumsum(hist[nz]) / hist.sum()


def describe(meta: dict) -> str:
    """What ran, for a title: system, then pattern, routing and load (traffic) or program and ranks."""
    work = meta.get("workload") or {}
    parts = [meta.get("system") or meta["kind"]]
    if "pattern" in work:
        parts.append(f"{str(work['pattern']).upper()} traffic")
    if "routing" in work:
        parts.append(f"{str(work['routing']).upper()} routing")
    if "load" in work:
        parts.append(f"load {work['load']:g}")
    if "program" in work:
        parts.append(f"{work['program']}" + (f", {work['ranks']} ranks" if work.get("ranks") else ""))
    return ", ".join(parts)


def group_utilization(arrays: dict) -> np.ndarray | None:
    """Mean utilization (0..1) of the router links from group i to group j over the sampled time (NaN
    where no link joins them); None for a file without the groups' link bandwidth."""
    if "group_capacity_Bps" not in arrays:
        return None
    capacity = arrays["group_capacity_Bps"] * float(arrays["t_s"][-1])
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(capacity > 0, arrays["group_bytes"] / capacity, np.nan)


def shared_scales(files: list[tuple[dict, dict]]) -> dict:
    """Colour and axis ranges common to several sample files, so their figures compare at a glance:
    ``occupancy_B`` (low and high end of the mean queues, bytes), ``group_MB`` (largest group-to-group traffic, for
    files without link bandwidths), ``latency_us`` (latency axis) and ``time_us`` (time axis)."""
    queued = [occupancy_rows(meta, arrays)[0] for meta, arrays in files]
    high = max((float(q.max()) for q in queued), default=0.0)
    # the low end of the scale: the 5th percentile, not the emptiest cell (a run's first, filling, sample)
    low = min((float(np.percentile(q[q > 0], 5)) for q in queued if (q > 0).any()), default=high)
    group = [arrays["group_bytes"] / 1e6 for _, arrays in files if "group_bytes" in arrays]
    edges = [latency_cdf(arrays[name])[0] * 1e6 for _, arrays in files
             for name in ("packet_latency", "message_latency") if arrays[name].sum()]
    return {"occupancy_B": (max(low, high / 1e4), high) if high > 0 else None,
            "group_MB": (min((g[g > 0].min() for g in group if (g > 0).any()), default=None),
                         max((g.max() for g in group), default=None)),
            "latency_us": (min(e.min() for e in edges), max(e.max() for e in edges)) if edges else None,
            "time_us": max(float(arrays["t_s"][-1]) * 1e6 for _, arrays in files)}


def draw_all(meta: dict, arrays: dict, prefix: str, scales: dict | None = None, dpi: int | None = None) -> list[str]:
    """Write every figure the file supports as ``{prefix}-{name}.png`` at ``dpi`` dots per inch (else the
    style's); returns the paths.

    ``scales`` (from :func:`shared_scales`) gives figures of several files the same colour scales and
    axes; utilization, of links and between groups, is always on a fixed 0..1 scale."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm, Normalize
    from matplotlib.ticker import MaxNLocator
    scales = scales or shared_scales([(meta, arrays)])
    title = f"{describe(meta)};\nsampled every {meta['period_s'] * 1e6:g} µs"
    t_us = arrays["t_s"] * 1e6
    t_end = scales["time_us"] or t_us[-1]
    written = []

    def figure(name, panel_in=plotstyle.PANEL_IN):
        written.append(f"{prefix}-{name}.png")
        return plotstyle.figure(written[-1], title=title, dpi=dpi, panel_in=panel_in)

    with figure("utilization") as (fig, axes):
        ax = axes[0, 0]
        util = class_utilization(meta, arrays)
        for k, name in enumerate(meta["classes"]):
            if meta["class_ports"][k]:
                label = f"{name} ({meta['class_ports'][k]:,} ports), mean {util[:, k].mean():.2f}"
                ax.plot(t_us, util[:, k], markevery=max(1, len(t_us) // 20), mfc="none",  # open: a class under
                        label=label)                                                     # another still shows
        ax.set(xlabel="simulated time (µs)", ylabel="mean link utilization (0..1)", title="utilization per link class",
               xlim=(0, t_end), ylim=(0, 1))
        plotstyle.legend(fig)

    with figure("occupancy", panel_in=2.8) as (fig, axes):
        ax = axes[0, 0]
        rows, label = occupancy_rows(meta, arrays)
        low, high = scales["occupancy_B"] or (0.0, 1.0)
        scale, unit = next((s, u) for s, u in ((1e6, "MB"), (1e3, "kB"), (1.0, "bytes")) if high >= s or s == 1.0)
        low, high = low / scale, high / scale
        logarithmic = high > 30 * low         # queues of a saturated run beside an unsaturated one's
        viridis = plt.get_cmap("viridis")
        image = ax.imshow(rows / scale, aspect="auto", origin="lower", interpolation="nearest",
                          cmap=viridis.with_extremes(bad=viridis(0.0), under=viridis(0.0)),
                          extent=(0, t_us[-1], -0.5, rows.shape[0] - 0.5),
                          norm=LogNorm(low, high) if logarithmic else Normalize(0.0, high))
        bar = fig.colorbar(image, ax=ax)
        bar.set_label(f"mean bytes queued per router\n({unit}" + (", log scale)" if logarithmic else ")"))
        if logarithmic:                       # 2, 5, 10, 20 rather than 2 x 10^0
            plotstyle.plain_log(bar.ax.yaxis)
        else:
            bar.locator = MaxNLocator(6)
            bar.update_ticks()
        ax.set(xlabel="simulated time (µs)", ylabel=label, title="router occupancy", xlim=(0, t_end))
        ax.grid(False)

    if "group_bytes" in arrays:
        with figure("groups", panel_in=3.2) as (fig, axes):
            ax = axes[0, 0]
            cmap = plt.get_cmap("magma").with_extremes(bad="lightgrey")
            used = group_utilization(arrays)
            if used is not None:
                image = ax.imshow(used, origin="lower", interpolation="nearest", cmap=cmap, vmin=0.0, vmax=1.0)
                bar = fig.colorbar(image, ax=ax, ticks=np.linspace(0.0, 1.0, 6))
                bar.set_label("mean utilization of the links\nfrom group to group (0..1; grey: no link)")
            else:                # a file from before the links' bandwidth was stored: bytes
                mb = arrays["group_bytes"] / 1e6
                low, high = scales["group_MB"]
                norm = None      # a log scale where in-group traffic would drown the rest
                if low and high and high > 10 * low:
                    norm = LogNorm(vmin=low, vmax=high)
                image = ax.imshow(np.where(mb > 0, mb, np.nan), origin="lower", interpolation="nearest", cmap=cmap,
                                  norm=norm)
                fig.colorbar(image, ax=ax).set_label("bytes over router links (MB; grey: none)")
            ax.xaxis.set_major_locator(MaxNLocator(8, integer=True))
            ax.yaxis.set_major_locator(MaxNLocator(8, integer=True))
            ax.set(xlabel="destination group", ylabel="source group", title="traffic between router groups")
            ax.grid(False)

    with figure("latency") as (fig, axes):
        ax = axes[0, 0]
        for name in ("packet_latency", "message_latency"):
            hist = arrays[name]
            if hist.sum():
                x, y = latency_cdf(hist)
                ax.step(x * 1e6, y, where="post", marker="", label=f"{name.replace('_', ' ')} ({int(hist.sum()):,})")
        ax.set(xlabel="latency (µs)", ylabel="fraction at or below", xscale="log", ylim=(0, 1.02),
               title="latency distribution")
        if scales["latency_us"]:
            low, high = scales["latency_us"]
            ax.set_xlim(low / 1.5, high * 1.5)
        plotstyle.legend(fig)
    return written

"""Figures from a sample file (see :mod:`ppt.interconnects.sampling`), readable at any scale.

Nothing is drawn per link: utilization is summed per link class, queues per
router group (or, without groups, per block of consecutive routers, at most
``MAX_ROWS`` rows), traffic between groups as one matrix.
"""
from __future__ import annotations

import numpy as np

from ppt.interconnects.latency import bucket_bounds_s

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


def draw_all(meta: dict, arrays: dict, prefix: str) -> list[str]:
    """Write every figure the file supports as ``{prefix}-{name}.png``; returns the paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    title = f"{meta['system'] or meta['kind']}: sampled every {meta['period_s'] * 1e6:g} us"
    t_us = arrays["t_s"] * 1e6
    written = []

    def save(fig, name):
        path = f"{prefix}-{name}.png"
        fig.suptitle(title)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    fig, ax = plt.subplots(figsize=(7, 4))
    util = class_utilization(meta, arrays)
    for k, name in enumerate(meta["classes"]):
        if meta["class_ports"][k]:
            ax.plot(t_us, util[:, k] * 100, marker=".", label=f"{name} ({meta['class_ports'][k]:,} ports)")
    ax.set(xlabel="simulated time (us)", ylabel="mean link utilization (%)", title="utilization per link class")
    ax.legend(fontsize=8)
    save(fig, "utilization")

    fig, ax = plt.subplots(figsize=(8, 5))
    rows, label = occupancy_rows(meta, arrays)
    image = ax.imshow(rows / 1e3, aspect="auto", origin="lower", interpolation="nearest", cmap="viridis",
                      extent=(0, t_us[-1], -0.5, rows.shape[0] - 0.5))
    fig.colorbar(image, ax=ax, label="mean bytes queued per router (kB)")
    ax.set(xlabel="simulated time (us)", ylabel=label, title="router occupancy")
    save(fig, "occupancy")

    if "group_bytes" in arrays:
        fig, ax = plt.subplots(figsize=(6, 5))
        mb = arrays["group_bytes"] / 1e6
        positive = mb[mb > 0]
        norm = None            # a log scale where in-group traffic would drown the rest
        if positive.size and positive.max() > 10 * positive.min():
            from matplotlib.colors import LogNorm
            norm = LogNorm(vmin=positive.min(), vmax=positive.max())
        cmap = plt.get_cmap("magma").with_extremes(bad="lightgrey")
        image = ax.imshow(np.where(mb > 0, mb, np.nan), origin="lower", interpolation="nearest", cmap=cmap,
                          norm=norm)
        fig.colorbar(image, ax=ax, label="bytes over router links (MB; grey: none)")
        ax.set(xlabel="destination group", ylabel="source group", title="traffic between router groups")
        save(fig, "groups")

    fig, ax = plt.subplots(figsize=(7, 4))
    for name in ("packet_latency", "message_latency"):
        hist = arrays[name]
        if hist.sum():
            x, y = latency_cdf(hist)
            ax.step(x * 1e6, y, where="post", label=f"{name.replace('_', ' ')} ({int(hist.sum()):,})")
    ax.set(xlabel="latency (us)", ylabel="fraction at or below", xscale="log", title="latency distribution")
    ax.legend(fontsize=8)
    save(fig, "latency")
    return written

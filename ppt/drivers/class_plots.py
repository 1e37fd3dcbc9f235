"""The per-traffic-class figure of a result (``--json`` of ``ppt run``, ``replay``, ``exec`` or a job list
with ``network.traffic_classes`` > 1): each class's delivered throughput (GB/s) and its packets' mean and
p50/p99/p99.9 latency (µs), from the result's ``network.classes``."""
from __future__ import annotations

from ppt.errors import PPTError

#: The latency statistics drawn per class: (key of a class's entry, legend label).
LATENCIES = (("mean_latency_s", "mean"), ("latency_p50_s", "p50"), ("latency_p99_s", "p99"),
             ("latency_p999_s", "p99.9"))
#: Colour-blind-safe colours (Okabe-Ito), as the guide's figures use.
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7")


def class_table(result: dict, name: str) -> list[dict]:
    """The per-class statistics of ``result`` (read from file ``name``); PPTError if it has none."""
    network = result.get("network") if isinstance(result, dict) else None
    classes = network.get("classes") if isinstance(network, dict) else None
    if not classes:
        raise PPTError(f"{name}: has no per-class statistics (network.classes): only a packet network run with "
                       f"network.traffic_classes > 1 writes them")
    return classes


def title(result: dict) -> str:
    """The system and command of the result, from its provenance (empty if it has none)."""
    provenance = result.get("provenance", {})
    system = provenance.get("system", "")
    command = " ".join(provenance.get("command", "").split()[:2])
    return f"{system}: {command}" if system and command else system or command


def draw_classes(classes: list[dict], heading: str, path: str, dpi: int) -> None:
    """Write the figure of ``classes`` (a result's ``network.classes``) to ``path``: throughput per class
    on the left, latency statistics per class on the right."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = [f"class {c['class']}" for c in classes]
    positions = range(len(classes))
    fig, (left, right) = plt.subplots(1, 2, figsize=(7.2, 3.0), constrained_layout=True)
    bars = left.bar(positions, [c["throughput_Bps"] / 1e9 for c in classes], 0.6, color=COLOURS[0])
    left.bar_label(bars, [f"{c['throughput_Bps'] / 1e9:.3g}" if c["packets"] else "" for c in classes],
                   fontsize=7)                          # a small class's value shows beside a large one
    left.set_ylabel("delivered throughput (GB/s)")
    width = 0.8 / len(LATENCIES)
    for k, (key, label) in enumerate(LATENCIES):
        xs = [i + (k - (len(LATENCIES) - 1) / 2) * width for i in positions]
        right.bar(xs, [c[key] * 1e6 for c in classes], width, label=label, color=COLOURS[k])
    right.set_ylabel("packet latency (µs)")
    right.legend(fontsize=8, frameon=False)
    for ax in (left, right):
        ax.set_xticks(list(positions), names, fontsize=8)
        ax.grid(axis="y", alpha=0.3)
        for i, c in enumerate(classes):
            if not c["packets"]:
                ax.text(i, 0, "no packets", ha="center", va="bottom", fontsize=7, rotation=90)
    if heading:
        fig.suptitle(heading, fontsize=9)
    try:
        fig.savefig(path, dpi=dpi)
    finally:
        plt.close(fig)

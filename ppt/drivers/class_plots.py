"""The per-traffic-class figure of a result (``--json`` of ``ppt run``, ``replay``, ``exec`` or a job list
with ``network.traffic_classes`` > 1): each class's delivered throughput (GB/s) and its packets' mean and
p50/p99/p99.9 latency (µs), from the result's ``network.classes``."""
from __future__ import annotations

from ppt import plotstyle
from ppt.errors import PPTError

#: The latency statistics drawn per class: (key of a class's entry, legend label).
LATENCIES = (("mean_latency_s", "mean"), ("latency_p50_s", "p50"), ("latency_p99_s", "p99"),
             ("latency_p999_s", "p99.9"))


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
    above, latency statistics per class below."""
    names = [f"class {c['class']}" for c in classes]

    def per_class(value):                                  # a class without packets: no bar, said so
        return [value(c) if c["packets"] else None for c in classes]
    with plotstyle.figure(path, 2, title=heading, dpi=dpi) as (fig, (left, right)):
        bars, = plotstyle.grouped_bars(left[0], names, {"delivered": per_class(lambda c: c["throughput_Bps"] / 1e9)},
                                       missing="no packets")
        left[0].bar_label(bars, [f"{c['throughput_Bps'] / 1e9:.3g}" if c["packets"] else "" for c in classes],
                          fontsize=plotstyle.MIN_FONT_PT)  # a small class's value shows beside a large one
        left[0].set_ylabel("delivered throughput (GB/s)")
        left[0].margins(y=0.12)                            # room for the tallest bar's label
        plotstyle.grouped_bars(right[0], names, {label: per_class(lambda c, key=key: c[key] * 1e6)
                                                 for key, label in LATENCIES}, missing="no packets")
        right[0].set_ylabel("packet latency (µs)")
        plotstyle.legend(fig, *right[0].get_legend_handles_labels(), ncol=4)

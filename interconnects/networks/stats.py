"""Network statistics: the report merged from every simulation rank's packet counters and link summary.

Latencies are summed as integer attoseconds (in the core) so totals do not
depend on the order packets are counted in: serial and parallel runs print
identical means.
"""
from __future__ import annotations

#: Attoseconds per second.
ATTO = 10 ** 18


def merge_network_stats(parts: list[dict], links: list[dict]) -> dict:
    """Totals over simulation ranks: ``parts`` packet counters, ``links`` per-rank link summaries."""
    total = {k: sum(p[k] for p in parts) for k in parts[0] if k != "latency_max_s"}
    n = total["delivered"]
    return {"packets": n, "packets_injected": total["injected"], "responses": total["responses"],
            "messages": total["messages_delivered"], "bytes": total["bytes_delivered"],
            "mean_latency_s": total["latency_sum_as"] / ATTO / n if n else 0.0,
            "max_latency_s": max(p["latency_max_s"] for p in parts),
            "mean_hops": total["hops_sum"] / n if n else 0.0,
            "max_hops": max(p["hops_max"] for p in parts),
            "links_used": sum(link["count"] for link in links),
            "link_bytes": sum(link["bytes"] for link in links),
            "max_queue_B": max(link["max_queue_B"] for link in links)}


def class_report(parts: list[list[tuple]], span_s: float) -> list[dict]:
    """Per traffic class, totals over simulation ranks: ``parts[rank][class]`` is ``(counters, latencies)``
    as ``PacketCore.class_counters`` gives them; ``span_s`` the time they were counted over, s.

    Each class's ``packets``, wire ``bytes`` and ``throughput_Bps`` delivered (bytes/s over the span), ``share`` (its fraction of
    all classes' delivered bytes), ``mean_latency_s`` and latency percentiles (creation at the source
    NIC to arrival).  Integer sums and merged histograms: serial and parallel runs agree exactly.
    """
    from ppt.interconnects.networks.latency import Latencies
    report = []
    for k in range(len(parts[0])):
        counts = [rank[k][0] for rank in parts]
        n = sum(c["delivered"] for c in counts)
        nbytes = sum(c["bytes_delivered"] for c in counts)
        latencies = Latencies.merge([rank[k][1] for rank in parts])
        report.append({"class": k, "packets": n, "bytes": nbytes, "throughput_Bps": nbytes / span_s if span_s else 0.0,
                       "mean_latency_s": sum(c["latency_sum_ps"] for c in counts) * 1e-12 / n if n else 0.0,
                       **latencies.summary("latency"), "max_latency_s": latencies.percentile_s(1.0)})
    total = sum(entry["bytes"] for entry in report)
    for entry in report:
        entry["share"] = entry["bytes"] / total if total else 0.0
    return report

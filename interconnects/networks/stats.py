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

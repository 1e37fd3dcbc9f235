"""Network statistics: per-packet latency and hops, per-link bytes and busy time.

Latencies are summed as integer attoseconds so totals do not depend on the
order packets are counted in (serial and parallel runs print identical means).
"""
from __future__ import annotations


#: Attoseconds per second.
ATTO = 10 ** 18


class NetworkStats:
    """Counters of one simulation rank; :meth:`merge` combines ranks into the report."""

    __slots__ = ("injected", "delivered", "latency_sum_as", "latency_max_s", "hops_sum", "hops_max",
                 "bytes_delivered", "messages_sent", "messages_delivered", "responses")

    def __init__(self):
        self.injected = self.delivered = self.hops_sum = self.hops_max = 0
        self.latency_sum_as = 0
        self.latency_max_s = 0.0
        self.bytes_delivered = self.messages_sent = self.messages_delivered = self.responses = 0

    def record(self, latency_s: float, hops: int, size_B: int) -> None:
        self.delivered += 1
        self.latency_sum_as += round(latency_s * ATTO)
        if latency_s > self.latency_max_s:
            self.latency_max_s = latency_s
        self.hops_sum += hops
        if hops > self.hops_max:
            self.hops_max = hops
        self.bytes_delivered += size_B

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in self.__slots__}

    @staticmethod
    def merge(parts: list[dict], links: list[dict]) -> dict:
        """Totals over simulation ranks: ``parts`` from :meth:`as_dict`, ``links`` per-rank link summaries."""
        total = {k: sum(p[k] for p in parts) for k in parts[0]}
        n = total["delivered"]
        busiest = [link["busiest"] for link in links if link["busiest"] is not None]
        return {"packets": n, "packets_injected": total["injected"], "responses": total["responses"],
                "messages": total["messages_delivered"], "bytes": total["bytes_delivered"],
                "mean_latency_s": total["latency_sum_as"] / ATTO / n if n else 0.0,
                "max_latency_s": max(p["latency_max_s"] for p in parts),
                "mean_hops": total["hops_sum"] / n if n else 0.0,
                "max_hops": max(p["hops_max"] for p in parts),
                "links_used": sum(link["count"] for link in links),
                "link_bytes": sum(link["bytes"] for link in links),
                "max_queue_B": max(link["max_queue_B"] for link in links),
                "busiest_link": max(busiest, key=lambda b: (b["busy_s"], -b["router"], -b["port"]), default=None)}

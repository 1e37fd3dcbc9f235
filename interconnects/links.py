"""Naming a router port as a link: its class and the two ends, for reports of busy links."""
from __future__ import annotations


def port_link(topology, router: int, port: int) -> dict:
    """The link leaving ``port`` of ``router``: its class name (``LinkClass.name``, e.g. local,
    global, green, a torus dimension, terminal) and its far end, a router's port or a node."""
    peer = int(topology.port_peer[router, port])
    far = int(topology.port_peer_port[router, port])
    end = {"to_router": peer, "to_port": far} if peer >= 0 else {"to_node": far}
    return {"router": int(router), "port": int(port),
            "class": topology.link_classes[int(topology.port_class[router, port])].name, **end}


def busiest(summaries: list[dict]) -> dict | None:
    """The busiest link of per-rank link summaries (most busy seconds; lowest router and port on ties)."""
    links = [s["busiest"] for s in summaries if s["busiest"] is not None]
    return max(links, key=lambda b: (b["busy_s"], -b["router"], -b["port"]), default=None)

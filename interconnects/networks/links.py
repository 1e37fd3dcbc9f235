"""Links in reports: a router port named as a link (its class and both ends), and utilization per
link class, of the busiest links and (multi-plane networks) per plane, from the bytes every router port sent.

A port's bytes are what it sent, one direction of a full-duplex link; a
terminal port is the router-to-node direction (a node's injection is its NIC,
not a router port).  The core counts a packet's bytes when it starts on the
link, so over a short span a saturated link can read up to one packet's
time above a utilization of 1.
"""
from __future__ import annotations

import math

import numpy as np

#: Busiest links a report lists.
TOP_LINKS = 5


def port_link(topology, router: int, port: int) -> dict:
    """The link leaving ``port`` of ``router``: its class name (``LinkClass.name``, e.g. local,
    global, green, a torus dimension, terminal) and its far end, a router's port or a node."""
    peer = int(topology.port_peer[router, port])
    far = int(topology.port_peer_port[router, port])
    end = {"to_router": peer, "to_port": far} if peer >= 0 else {"to_node": far}
    return {"router": int(router), "port": int(port),
            "class": topology.link_classes[int(topology.port_class[router, port])].name, **end}


def local_load(topology, port_bytes: np.ndarray, routers: range, top: int = TOP_LINKS) -> dict:
    """One simulation rank's share of a link report, from ``port_bytes`` (bytes each port of
    ``routers`` sent, indexed router * radix + port): per link class its links and their bytes, and
    the ``top`` links most used (bytes over bandwidth)."""
    radix = topology.radix
    lo, hi = routers.start * radix, routers.stop * radix
    cls = np.asarray(topology.port_class).ravel()[lo:hi]
    sent = np.asarray(port_bytes)[lo:hi]
    bandwidth = np.array([c.bandwidth_Bps for c in topology.link_classes])
    classes = {}
    for k, link_class in enumerate(topology.link_classes):
        mine = cls == k
        if mine.any():
            classes[link_class.name] = {"links": int(mine.sum()), "bytes": int(sent[mine].sum()),
                                        "bandwidth_Bps": link_class.bandwidth_Bps}
    busy_s = np.where(cls >= 0, sent / bandwidth[np.maximum(cls, 0)], 0.0)
    order = np.lexsort((np.arange(busy_s.size), -busy_s))[:top]      # busiest first, lowest port on ties
    links = [{**port_link(topology, (lo + i) // radix, (lo + i) % radix), "bytes": int(sent[i]),
              "busy_s": float(busy_s[i])} for i in order if sent[i] > 0]
    load = {"classes": classes, "busiest": links}
    planes = topology.planes
    if planes > 1:      # router r * planes + k is in plane k (interconnects/topologies/planes.py)
        plane = (np.arange(lo, hi) // radix) % planes
        load["planes"] = [{name: int(sent[(plane == k) & (cls == c)].sum())
                           for c, name in enumerate(c.name for c in topology.link_classes)} for k in range(planes)]
    return load


def link_report(parts: list[dict], span_s: float, top: int = TOP_LINKS) -> dict:
    """``link_classes`` (per class: links, bytes, and utilization, the busy fraction of ``span_s``
    seconds averaged over its links) and the ``top`` ``busiest_links`` with their utilization,
    from every simulation rank's :func:`local_load`."""
    classes: dict[str, dict] = {}
    for part in parts:
        for name, share in part["classes"].items():
            total = classes.setdefault(name, {"links": 0, "bytes": 0, "bandwidth_Bps": share["bandwidth_Bps"]})
            total["links"] += share["links"]
            total["bytes"] += share["bytes"]
    span_s = span_s or math.inf                                   # nothing ran: no utilization
    report = {name: {"links": c["links"], "bytes": c["bytes"],
                     "utilization": c["bytes"] / (c["links"] * c["bandwidth_Bps"] * span_s)}
              for name, c in classes.items()}
    links = sorted((link for part in parts for link in part["busiest"]),
                   key=lambda link: (-link["busy_s"], link["router"], link["port"]))[:top]
    report = {"link_classes": report,
              "busiest_links": [{**link, "utilization": link["busy_s"] / span_s} for link in links]}
    if "planes" in parts[0]:
        planes = len(parts[0]["planes"])
        report["planes"] = [_plane_total([part["planes"][k] for part in parts], classes, span_s, planes)
                            for k in range(planes)]
    return report


def _plane_total(shares: list[dict], classes: dict, span_s: float, planes: int) -> dict:
    """One plane's ``bytes`` sent by its router ports (terminal ones too) and ``utilization``, their
    busy fraction of ``span_s`` averaged over its links, from every simulation rank's bytes per class
    (integers: the sum is the same however the routers were split).  The planes are identical, so
    a plane has 1/planes of every class's links."""
    sent = {name: sum(share[name] for share in shares) for name in classes}
    links = sum(c["links"] for c in classes.values()) / planes
    busy_s = sum(sent[name] / c["bandwidth_Bps"] for name, c in classes.items())
    return {"bytes": sum(sent.values()), "utilization": busy_s / (links * span_s) if links else 0.0}

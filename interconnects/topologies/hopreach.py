"""Which routers reach which within one or two surviving hops, as packed bitsets.

Row ``r`` of a reach table is a ``numpy.packbits`` row (big-endian bits, ``ceil(N / 8)``
bytes for ``N`` routers): bit ``v`` is set when router ``v`` is within the hops of router
``r`` over links that survive (``port_peer >= 0``), ``r`` itself included.  Links are full
duplex, so the tables are symmetric: ``v`` is in row ``r`` exactly when ``r`` is in row ``v``.
Memory is ``N^2 / 8`` bytes (14 KB for the 338-router Slim Fly, 0.9 MB for 2,738 routers);
:func:`within_two` ORs the rows of each router's neighbours, ``O(N^2 k / 8)`` byte operations
for network degree ``k``.
"""
from __future__ import annotations

import numpy as np

#: Bytes of scratch memory a step of :func:`within_two`, :func:`missing` or :func:`share_any` may use.
SCRATCH_B = 1 << 24


def within_one(topology) -> np.ndarray:
    """``(N, ceil(N/8))`` uint8 bitsets: each router and its surviving neighbours."""
    n = topology.num_routers
    bits = np.zeros((n, -(-n // 8)), dtype=np.uint8)
    router, port = np.nonzero(topology.port_peer >= 0)
    peer = np.concatenate([topology.port_peer[router, port], np.arange(n)])
    router = np.concatenate([router, np.arange(n)])
    np.bitwise_or.at(bits, (router, peer // 8), (0x80 >> (peer % 8)).astype(np.uint8))
    return bits


def within_two(topology, one: np.ndarray | None = None) -> np.ndarray:
    """``(N, ceil(N/8))`` uint8 bitsets: the routers at most two surviving hops from each router
    (``one``: :func:`within_one` if already at hand)."""
    one = within_one(topology) if one is None else one
    padded = np.vstack([one, np.zeros_like(one[:1])])           # row N: no router (an unused port)
    peers = np.where(topology.port_peer >= 0, topology.port_peer, len(one))
    two = np.empty_like(one)
    chunk = max(1, SCRATCH_B // peers.shape[1] // one.shape[1])
    for first in range(0, len(one), chunk):
        rows = slice(first, first + chunk)
        two[rows] = np.bitwise_or.reduce(padded[peers[rows]], axis=1) | one[rows]
    return two


def missing(bits: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``(k, 2)`` pairs ``(r, v)``, ``r`` in ``rows`` and ``v`` any router, whose bit is clear, in
    (r, v) order."""
    n, rows = bits.shape[0], np.asarray(rows)
    chunk, found = max(1, SCRATCH_B // n), []
    for first in range(0, len(rows), chunk):
        part = rows[first:first + chunk]
        r, v = np.nonzero(np.unpackbits(bits[part], axis=1, count=n) == 0)
        found.append(np.column_stack([part[r], v]))
    return np.concatenate(found).astype(np.int64) if found else np.zeros((0, 2), dtype=np.int64)


def share_any(bits: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """For each pair ``(x, y)``: whether rows ``x`` and ``y`` have a set bit in common."""
    out = np.zeros(len(pairs), dtype=bool)
    chunk = max(1, SCRATCH_B // bits.shape[1])
    for first in range(0, len(pairs), chunk):
        x, y = pairs[first:first + chunk].T
        out[first:first + chunk] = (bits[x] & bits[y]).any(axis=1)
    return out

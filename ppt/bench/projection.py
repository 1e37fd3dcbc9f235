"""Speed-up of a parallel run on K simulation ranks of a cluster, projected from a measured run.

The model (docs/parallel.md)::

    T(K) = T0 + W * I(K) / K + N * (c + a + o * (K - 1) + X(K) / (K * b))

``W``: the serial window loop's time, s; ``N``: windows; ``I(K)``: the largest block's work over the
mean; ``X(K)``: bytes crossing between blocks per window (all ranks); ``c``: one rank's Python cost per
window, s; ``a``: one message's latency (a window's messages to every peer are in flight together), s;
``o``: one peer's message pair in software (posting a receive and a send, Python and MPI), s; ``b``:
bytes/s a rank moves; ``T0``: start-up, s.  Assumed: the work per event does not depend on K (no cache
gains), the traffic is spread evenly over the links so the crossing bytes follow the cut share, and every
rank exchanges a message with every other rank in every window (:class:`ppt.engine.exchange.Exchanger`).

``python -m ppt.bench.projection`` prints the table of :data:`WORKLOADS` at 16, 64 and 128 ranks.
"""
from __future__ import annotations

from dataclasses import dataclass

#: One message's latency on an HPC interconnect (InfiniBand EDR/HDR, Aries), s.
MESSAGE_LATENCY_S = 3e-6
#: One peer's receive and send posted and completed, s: 3.5 us measured on the 2-core development host
#: (mpi4py over MPICH 5.0, a rank messaging itself, each pair with its own wait), less the wait shared by a
#: window's pairs.
PEER_OVERHEAD_S = 2.5e-6
#: Bytes/s one rank moves through the interconnect (a 100 Gb/s link, a quarter of it for each rank of a
#: four-rank-per-node layout), B/s.
RANK_BANDWIDTH_BPS = 12.5e9 / 4
#: Simulation ranks of the projection table.
RANKS = (16, 64, 128)


@dataclass(frozen=True)
class Workload:
    """A measured run: serial loop ``loop_s``, ``windows``, crossing ``bytes_per_window`` at ``cut_share``
    (the share of links cut where the bytes were measured), one rank's Python ``window_cost_s`` and
    ``startup_s``; ``imbalance`` and ``cut_share_at`` give the partition's largest block over the mean and
    its cut share at K ranks."""

    name: str
    loop_s: float
    windows: int
    bytes_per_window: float
    cut_share: float
    window_cost_s: float
    startup_s: float
    imbalance: dict
    cut_share_at: dict


def parallel_s(w: Workload, ranks: int, latency_s: float = MESSAGE_LATENCY_S, peer_s: float = PEER_OVERHEAD_S,
               bandwidth_Bps: float = RANK_BANDWIDTH_BPS) -> float:
    """Projected wall time, s, on ``ranks`` simulation ranks."""
    crossing_B = w.bytes_per_window * w.cut_share_at[ranks] / w.cut_share
    per_window = w.window_cost_s + latency_s + peer_s * (ranks - 1) + crossing_B / (ranks * bandwidth_Bps)
    return w.startup_s + w.loop_s * w.imbalance[ranks] / ranks + w.windows * per_window


def speedup(w: Workload, ranks: int, **network) -> float:
    """Projected serial time over parallel time on ``ranks`` ranks."""
    return (w.startup_s + w.loop_s) / parallel_s(w, ranks, **network)


#: The workloads of the table, from measured runs (docs/parallel.md says where each figure comes from).
WORKLOADS = (
    # slimfly-1m, UR 0.1, min routing, 100 us: the one-rank run (28 min 50 s, 24 s of it set-up), 2,000 windows of 50 ns,
    # slimfly-3k's 272 kB crossing per window at load 0.1 times 332 (the node ratio) at its 68 % cut, whole
    # subgraph columns per block (67 % cut, at most 1.18 the mean work); start-up not counted.
    Workload("slimfly-1m UR 0.1, 100 us, loop only", loop_s=1706.0, windows=2000, bytes_per_window=90e6,
             cut_share=0.68, window_cost_s=100e-6, startup_s=0.0,
             imbalance={16: 1.18, 64: 1.18, 128: 1.18}, cut_share_at={16: 0.67, 64: 0.67, 128: 0.67}),
    Workload("the same with 60 s of start-up per rank", loop_s=1706.0, windows=2000, bytes_per_window=90e6,
             cut_share=0.68, window_cost_s=100e-6, startup_s=60.0,
             imbalance={16: 1.18, 64: 1.18, 128: 1.18}, cut_share_at={16: 0.67, 64: 0.67, 128: 0.67}),
    # SNAP study 1 at 24,576 cores (which the SNAP model refuses): the 384-core point's loop (10.3 s), its
    # 17,417 windows and 6 kB per window, each scaled by 64 (work and messages grow with the ranks; the
    # simulated time, so the windows, stays), 75 us of Python per window, blocks of whole routers
    # (1,024 routers' worth of nodes: at most 1.15 the mean work, the 384-core point's per-window figure).
    Workload("SNAP 24,576 cores (work x64 of 384)", loop_s=660.0, windows=17417, bytes_per_window=6e3 * 64,
             cut_share=0.5, window_cost_s=75e-6, startup_s=5.0,
             imbalance={16: 1.15, 64: 1.15, 128: 1.15}, cut_share_at={16: 0.9, 64: 0.95, 128: 0.97}),
)


def table() -> list[dict]:
    """One row per workload: its projected speed-up at each of :data:`RANKS`."""
    return [{"workload": w.name, **{f"K={k}": round(speedup(w, k), 1) for k in RANKS}} for w in WORKLOADS]


if __name__ == "__main__":
    for row in table():
        print(f"{row['workload']:<42}" + "".join(f"{row[f'K={k}']:>8}" for k in RANKS))

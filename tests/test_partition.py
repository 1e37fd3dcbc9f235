"""Partitions of the packet network for parallel runs: even work, whole groups where they fit, and the
window length of the cut."""
from __future__ import annotations

import numpy as np
import pytest

from ppt.hardware.systems import load_system
from ppt.interconnects.networks import partition
from ppt.machine import Machine


def _topology(system: str):
    return Machine(load_system(system)).topology


def test_dragonfly_blocks_keep_groups_whole_and_cut_only_global_links():
    topo = _topology("dragonfly-3k")            # 19 groups of 18 routers; local 10 ns, global 100 ns
    groups = topo.router_groups()
    for size in (2, 3, 4):
        starts = partition.router_starts(topo.num_routers, size, groups)
        assert all(start % 18 == 0 for start in starts)
        assert partition.imbalance(np.ones(topo.num_routers), starts) <= partition.MAX_IMBALANCE
        assert partition.cut_latency_s(topo, starts) == pytest.approx(100e-9)
    even = partition.even_starts(topo.num_routers, 2)      # 171 routers: group 9 is split
    assert partition.cut_latency_s(topo, even) == pytest.approx(10e-9)


def test_cut_share_counts_the_links_between_blocks():
    topo = _topology("dragonfly-3k")
    starts = partition.router_starts(topo.num_routers, 2, topo.router_groups())
    # 9 groups against 10: 9 * 10 group pairs, 9 global links per pair, both directions, of all links
    linked = int((topo.port_peer >= 0).sum())
    assert partition.cut_share(topo, starts) == pytest.approx(2 * 9 * 10 * 9 / linked)


def test_weights_share_a_small_job_out_instead_of_leaving_it_on_one_rank():
    weights = np.zeros(1440)
    weights[:4] = 96                             # 384 ranks on the first 4 routers of one 96-router group
    groups = np.arange(1440) // 96
    assert partition.router_starts(1440, 2, groups, weights=weights) == [0, 2, 1440]
    assert partition.router_starts(1440, 4, groups, weights=weights) == [0, 1, 2, 3, 1440]


def test_work_on_fewer_routers_than_ranks_still_spreads_one_router_a_rank():
    weights = np.zeros(264)
    weights[:2] = 4.0                            # 16 ranks on 2 routers of group 0, three simulation ranks
    assert partition.router_starts(264, 3, np.arange(264) // 8, weights=weights) == [0, 1, 2, 264]


def test_blocks_that_cannot_differ_fall_back_to_even_blocks_of_whole_plane_sets():
    assert partition.router_starts(4, 4, planes=2) == partition.even_starts(4, 4, planes=2)
    assert partition.router_starts(10, 1) == [0, 10]
    assert all(start % 2 == 0 for start in partition.router_starts(12, 3, planes=2))

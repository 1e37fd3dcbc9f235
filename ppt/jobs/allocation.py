"""Giving jobs their nodes: allocation policies over a topology's nodes.

``contiguous``: jobs take consecutive blocks of node ids in list order (job 0
the first nodes); ``random``: blocks of one random permutation of all nodes
(numpy generator seeded by ``seed``); ``round-robin-groups``: blocks of the
nodes ordered group by group in turn (the first node of every group, then
the second, ...; groups from :meth:`Topology.router_groups`), so every job
spreads over the groups; anything else is a file with one line of node ids
per job (whitespace separated, ``#`` comments).  A job's nodes are listed
ascending, except from a file, where their order is kept; no node serves
two jobs.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ppt.errors import ConfigError

POLICIES = ("contiguous", "random", "round-robin-groups")


def allocate(topology, counts: list[int], policy: str = "contiguous", seed: int = 0) -> list[list[int]]:
    """Node ids of every job, job ``j`` taking ``counts[j]`` nodes of ``topology``."""
    num_nodes = int(topology.num_nodes)
    if sum(counts) > num_nodes:
        raise ConfigError(f"the jobs need {sum(counts)} nodes but the system has {num_nodes}")
    if policy not in POLICIES:
        return _from_file(policy, counts, num_nodes)
    order = _order(topology, policy, seed)
    starts = np.concatenate(([0], np.cumsum(counts)))
    return [sorted(int(n) for n in order[a:b]) for a, b in zip(starts[:-1], starts[1:])]


def _order(topology, policy: str, seed: int) -> np.ndarray:
    """All nodes in the order the policy hands them out."""
    num_nodes = int(topology.num_nodes)
    if policy == "contiguous":
        return np.arange(num_nodes)
    if policy == "random":
        return np.random.default_rng(seed).permutation(num_nodes)
    groups = topology.router_groups()
    if groups is None:
        raise ConfigError(f"allocation round-robin-groups needs a topology with groups; {topology.kind} has none "
                          f"(use contiguous or random)")
    group = np.asarray(groups)[topology.node_router]
    by_group = np.argsort(group, kind="stable")
    sorted_group = group[by_group]
    rank_in_group = np.arange(num_nodes) - np.searchsorted(sorted_group, sorted_group)
    return by_group[np.lexsort((sorted_group, rank_in_group))]


def _from_file(path: str, counts: list[int], num_nodes: int) -> list[list[int]]:
    file = Path(path)
    if not file.is_file():
        raise ConfigError(f"allocation {path!r} is neither one of {', '.join(POLICIES)} nor a file")
    lines = [line.split("#", 1)[0].split() for line in file.read_text().splitlines()]
    try:
        nodes = [[int(w) for w in line] for line in lines if line]
    except ValueError:
        raise ConfigError(f"allocation file {file.name} must hold integer node ids, one line per job") from None
    if len(nodes) != len(counts):
        raise ConfigError(f"allocation file {file.name} has {len(nodes)} node lists for {len(counts)} jobs")
    seen = set()
    for job, (listed, count) in enumerate(zip(nodes, counts)):
        if len(listed) != count:
            raise ConfigError(f"allocation file {file.name} line {job + 1} lists {len(listed)} nodes; "
                              f"job {job} needs {count}")
        for node in listed:
            if not 0 <= node < num_nodes:
                raise ConfigError(f"allocation file {file.name} names node {node}, outside 0..{num_nodes - 1}")
            if node in seen:
                raise ConfigError(f"allocation file {file.name} gives node {node} to two jobs")
            seen.add(node)
    return nodes

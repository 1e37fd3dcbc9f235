"""Placing ranks on compute nodes: linear, round-robin, random (seeded) or from a file."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ppt.errors import ConfigError

MAPPINGS = ("linear", "round-robin", "random")


def map_ranks(num_ranks: int, ranks_per_node: int, num_nodes: int, mapping: str = "linear",
              seed: int = 0) -> list[int]:
    """Node of every rank.

    ``linear``: ranks fill nodes 0, 1, ... in blocks of ``ranks_per_node``;
    ``round-robin``: rank r on node r mod (nodes used); ``random``: the needed
    nodes drawn at random from the whole machine and ranks shuffled over their
    slots (numpy generator seeded by ``seed``); a sequence of node ids, one
    per rank; anything else is a file with one node id per rank (whitespace
    separated, ``#`` comments).
    """
    if num_ranks < 1:
        raise ConfigError(f"an MPI job needs at least one rank, got {num_ranks}")
    if ranks_per_node < 1:
        raise ConfigError(f"ranks per node must be at least 1, got {ranks_per_node}")
    nodes_used = -(-num_ranks // ranks_per_node)
    if not isinstance(mapping, str):
        return _checked([int(n) for n in mapping], "the mapping", num_ranks, ranks_per_node, num_nodes)
    if mapping not in MAPPINGS:
        return _from_file(mapping, num_ranks, ranks_per_node, num_nodes)
    if nodes_used > num_nodes:
        raise ConfigError(f"{num_ranks} ranks at {ranks_per_node} per node need {nodes_used} nodes, but the "
                          f"system has {num_nodes}; use fewer ranks or more ranks per node")
    if mapping == "linear":
        return [r // ranks_per_node for r in range(num_ranks)]
    if mapping == "round-robin":
        return [r % nodes_used for r in range(num_ranks)]
    rng = np.random.default_rng(seed)
    nodes = rng.choice(num_nodes, size=nodes_used, replace=False)
    slots = rng.permutation(num_ranks)
    return [int(nodes[s // ranks_per_node]) for s in slots]


def _from_file(path: str, num_ranks: int, ranks_per_node: int, num_nodes: int) -> list[int]:
    file = Path(path)
    if not file.is_file():
        raise ConfigError(f"mapping {path!r} is neither one of {', '.join(MAPPINGS)} nor a file")
    words = [w for line in file.read_text().splitlines() for w in line.split("#", 1)[0].split()]
    try:
        nodes = [int(w) for w in words]
    except ValueError:
        raise ConfigError(f"mapping file {file.name} must hold integer node ids, one per rank") from None
    return _checked(nodes, f"mapping file {file.name}", num_ranks, ranks_per_node, num_nodes)


def _checked(nodes: list[int], label: str, num_ranks: int, ranks_per_node: int, num_nodes: int) -> list[int]:
    if len(nodes) != num_ranks:
        raise ConfigError(f"{label} lists {len(nodes)} nodes for {num_ranks} ranks")
    bad = [n for n in nodes if not 0 <= n < num_nodes]
    if bad:
        raise ConfigError(f"{label} names node {bad[0]}, outside 0..{num_nodes - 1}")
    counts = np.bincount(nodes)
    if counts.max() > ranks_per_node:
        raise ConfigError(f"{label} puts {counts.max()} ranks on node {int(counts.argmax())}, "
                          f"more than {ranks_per_node} ranks per node")
    return nodes

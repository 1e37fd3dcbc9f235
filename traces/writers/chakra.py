"""Writing Chakra execution traces, and a synthetic data-parallel step.

:func:`write_set` writes one ``<prefix>.<rank>.et`` per rank (:func:`ppt.traces.chakra_et.encode_stream`:
a length-prefixed ``GlobalMetadata``, then one ``Node`` per node, encoded as protobuf encodes them),
so what it writes is a genuine Chakra ET that ASTRA-sim reads too.  The node makers (:func:`compute`,
:func:`collective`, :func:`send`, :func:`recv`, :func:`process_group_init`) set the fields and
attributes :mod:`ppt.traces.readers.chakra` reads.

:func:`dp_step` makes one data-parallel training step on every rank: ``layers`` forward passes
in a chain, then the backward passes from the last layer down, each layer's gradient all-reduced
(``gradient_B`` bytes, on the world's process group) as soon as its backward pass ends, so the
all-reduce of layer l can overlap the backward passes of layers l-1 ... 1; an optimizer step
(``optimizer_s``) waits for every all-reduce.  Node ids follow the issue order: forward passes,
then per layer from the last its backward pass and its all-reduce, then the optimizer.

Units: seconds and bytes (written as Chakra's microseconds, rounded to the nearest).
"""
from __future__ import annotations

import json
import os

from ppt.errors import ConfigError
from ppt.traces.chakra_et import COLLECTIVE_TYPES, NODE_TYPES, GlobalMetadata, Node, encode_stream
from ppt.traces.readers.chakra import MICROSECOND_S, PROCESS_GROUP_INIT

#: The ``version`` written in every file's global metadata.
SCHEMA_VERSION = "0.0.4"
#: The process group name of the world in a written trace.
WORLD_PG = "0"


def _node(node_id: int, name: str, kind: str, deps=(), **attrs) -> Node:
    """A Node of type ``kind`` (a NodeType name) depending (data) on ``deps``, with ``attrs`` (bool, str
    or int values)."""
    return Node(id=node_id, name=name, type=NODE_TYPES.index(kind), data_deps=list(deps), attr=list(attrs.items()))


def compute(node_id: int, name: str, seconds: float, deps=()):
    """A device COMP_NODE of ``seconds``."""
    node = _node(node_id, name, "COMP_NODE", deps, is_cpu_op=False)
    node.duration_micros = round(seconds / MICROSECOND_S)
    return node


def collective(node_id: int, name: str, comm_type: str, nbytes: int, deps=(), pg_name: str | None = None):
    """A COMM_COLL_NODE of type ``comm_type`` (a CollectiveCommType name) over ``nbytes`` on group ``pg_name``."""
    if comm_type not in COLLECTIVE_TYPES:
        raise ConfigError(f"{comm_type!r} is not a Chakra collective type ({', '.join(COLLECTIVE_TYPES)})")
    extra = {} if pg_name is None else {"pg_name": pg_name}
    return _node(node_id, name, "COMM_COLL_NODE", deps, is_cpu_op=False,
                 comm_type=COLLECTIVE_TYPES.index(comm_type), comm_size=nbytes, **extra)


def send(node_id: int, name: str, src: int, dst: int, nbytes: int, tag: int = 0, deps=()):
    """A COMM_SEND_NODE of ``nbytes`` from rank ``src`` to rank ``dst``."""
    return _node(node_id, name, "COMM_SEND_NODE", deps, is_cpu_op=False, comm_src=src, comm_dst=dst,
                 comm_size=nbytes, comm_tag=tag)


def recv(node_id: int, name: str, src: int, dst: int, nbytes: int, tag: int = 0, deps=()):
    """A COMM_RECV_NODE of ``nbytes`` at rank ``dst`` from rank ``src``."""
    return _node(node_id, name, "COMM_RECV_NODE", deps, is_cpu_op=False, comm_src=src, comm_dst=dst,
                 comm_size=nbytes, comm_tag=tag)


def process_group_init(node_id: int, groups: dict):
    """The METADATA_NODE declaring ``groups`` (``{pg_name: [global ranks]}``) as PyTorch traces do."""
    node = _node(node_id, f"## {PROCESS_GROUP_INIT} ##", "METADATA_NODE")
    listed = [{"pg_name": pg, "pg_desc": pg, "backend_config": "", "pg_size": len(ranks), "ranks": list(ranks)}
              for pg, ranks in groups.items()]
    node.inputs_values = str([json.dumps(listed)])
    return node


def write_set(prefix, ranks_nodes) -> list:
    """Write ``<prefix>.<rank>.et`` for each rank's list of nodes in ``ranks_nodes``; returns the paths."""
    os.makedirs(os.path.dirname(os.path.abspath(os.fspath(prefix))), exist_ok=True)
    paths = []
    for rank, nodes in enumerate(ranks_nodes):
        path = f"{os.fspath(prefix)}.{rank}.et"
        with open(path, "wb") as f:
            f.write(encode_stream(GlobalMetadata(version=SCHEMA_VERSION), nodes))
        paths.append(path)
    return paths


def dp_step_nodes(ranks: int, layers: int, forward_s: float, backward_s: float, gradient_B: int,
                  optimizer_s: float = 0.0) -> list:
    """One rank's nodes of the data-parallel step of the module docstring (the same on every rank)."""
    if ranks < 1 or layers < 1 or gradient_B < 0 or min(forward_s, backward_s, optimizer_s) < 0.0:
        raise ConfigError(f"a data-parallel step needs ranks and layers >= 1 and times and bytes >= 0, not "
                          f"{ranks} ranks, {layers} layers, {forward_s}/{backward_s}/{optimizer_s} s, {gradient_B} B")
    nodes = [process_group_init(0, {WORLD_PG: range(ranks)})]
    for layer in range(1, layers + 1):
        nodes.append(compute(layer, f"forward.{layer}", forward_s, [layer - 1] if layer > 1 else []))
    previous, reduced = layers, []
    for layer in range(layers, 0, -1):
        backward, allreduce = len(nodes), len(nodes) + 1
        nodes.append(compute(backward, f"backward.{layer}", backward_s, [previous]))
        nodes.append(collective(allreduce, f"allreduce.grad.{layer}", "ALL_REDUCE", gradient_B, [backward], WORLD_PG))
        previous = backward
        reduced.append(allreduce)
    nodes.append(compute(len(nodes), "optimizer.step", optimizer_s, reduced))
    return nodes


def dp_step(prefix, ranks: int, layers: int, forward_s: float, backward_s: float, gradient_B: int,
            optimizer_s: float = 0.0) -> list:
    """Write the data-parallel step on ``ranks`` ranks as ``<prefix>.<rank>.et``; returns the paths."""
    nodes = dp_step_nodes(ranks, layers, forward_s, backward_s, gradient_B, optimizer_s)
    return write_set(prefix, [nodes] * ranks)

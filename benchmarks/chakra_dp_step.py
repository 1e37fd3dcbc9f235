"""Predicted time of one data-parallel training step, read from Chakra execution traces, against nodes.

For each node count the step of :func:`ppt.traces.writers.chakra.dp_step` (``--layers`` layers, forward
and backward compute per layer, each layer's gradient all-reduced after its backward pass) is
written as genuine Chakra ET files, read back through the Chakra reader (:mod:`ppt.traces.readers.chakra`)
and replayed on the system preset, ``--gpus-per-node`` GPUs (Chakra ranks) per node, once per
all-reduce algorithm and each way the reader can run it:

* ``blocking``: one op stream per rank, collectives blocking (the reader's default);
* ``overlapped``: a compute stream and a communication stream per rank (``overlap=True``), so each
  all-reduce runs as soon as its backward pass ended and the previous all-reduce finished, beside
  the backward passes still to come.  Both streams of a GPU share its node, so a node holds twice
  as many op-stream ranks as GPUs (more than the preset's cores, which only sleeping ranks use).

Columns: both predicted steps and the communication each exposes (step - compute; the compute
is the same on every rank).  Run: ``python benchmarks/chakra_dp_step.py [--system stampede]
[--network packet] [--algorithms ring recursive_doubling] [--nodes 2 4 ... 256] [--gpus-per-node 1]``,
e.g. ``--system dgx-a100 --gpus-per-node 8 --algorithms nccl_ring nccl_tree``.  Units in the
table: ms.
"""
from __future__ import annotations

import argparse
import tempfile
import time

from ppt.hardware.systems import load_system
from ppt.machine import Machine
from ppt.mpi import MPIJob
from ppt.mpi.settings import MPISettings
from ppt.traces.readers.chakra import ChakraTrace
from ppt.traces.writers.chakra import dp_step
from ppt.traces.replay import replay

NODES = (2, 4, 8, 16, 32, 64, 128, 256)
MS = 1e3


def predict(prefix: str, machine: Machine, gpus_per_node: int, algorithm: str, overlap: bool) -> float:
    """Predicted seconds of the step written at ``prefix``, ``gpus_per_node`` Chakra ranks per node,
    all-reduce ``algorithm``."""
    trace = ChakraTrace(prefix, overlap=overlap)
    job = MPIJob(machine.network(), trace.num_ranks, (1 + overlap) * gpus_per_node, node_model=machine.node_model,
                 algorithms={"allreduce": algorithm}, settings=MPISettings.from_preset(machine.preset))
    return replay(trace, job, compute_clock="wall")["predicted_s"]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--system", default="stampede", help="system preset (default stampede, a fat tree)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override a preset value, as ppt's --set (e.g. topology.num_nodes=256)")
    parser.add_argument("--network", default="packet", choices=("analytic", "flow", "packet"))
    parser.add_argument("--algorithms", nargs="+", default=["ring", "recursive_doubling"],
                        help="all-reduce algorithms to compare (default: ring recursive_doubling)")
    parser.add_argument("--nodes", type=int, nargs="+", default=list(NODES))
    parser.add_argument("--gpus-per-node", type=int, default=1, help="Chakra ranks per node (default 1)")
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--forward-ms", type=float, default=2.0, help="forward compute per layer, ms")
    parser.add_argument("--backward-ms", type=float, default=4.0, help="backward compute per layer, ms")
    parser.add_argument("--gradient-MiB", type=float, default=16.0, help="gradient bytes per layer, MiB")
    args = parser.parse_args(argv)
    forward_s, backward_s = args.forward_ms / MS, args.backward_ms / MS
    compute_s = args.layers * (forward_s + backward_s)
    machine = Machine(load_system(args.system, args.overrides), network_kind=args.network)
    print(f"{args.system} ({args.network} network), {args.gpus_per_node} GPU per node, {args.layers} layers, forward "
          f"{args.forward_ms} ms + backward {args.backward_ms} ms per layer, {args.gradient_MiB} MiB gradient "
          f"per layer; compute {compute_s * MS:.3f} ms per step")
    print("| nodes | all-reduce | blocking step (ms) | exposed (ms) | overlapped step (ms) | exposed (ms) | wall (s) |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        for nodes in args.nodes:
            prefix = f"{folder}/dp{nodes}/step"
            dp_step(prefix, nodes * args.gpus_per_node, args.layers, forward_s, backward_s,
                    int(args.gradient_MiB * 2 ** 20))
            for algorithm in args.algorithms:
                began = time.perf_counter()
                blocking_s, overlapped_s = (predict(prefix, machine, args.gpus_per_node, algorithm, overlap)
                                            for overlap in (False, True))
                print(f"| {nodes} | {algorithm} | {blocking_s * MS:.3f} | {(blocking_s - compute_s) * MS:.3f} | "
                      f"{overlapped_s * MS:.3f} | {(overlapped_s - compute_s) * MS:.3f} | "
                      f"{time.perf_counter() - began:.1f} |", flush=True)


if __name__ == "__main__":
    main()

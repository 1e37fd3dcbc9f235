"""Predicted time of one data-parallel training step, read from Chakra execution traces, against nodes.

For each node count the step of :func:`ppt.traces.chakra_write.dp_step` (``--layers`` layers, forward
and backward compute per layer, each layer's gradient all-reduced after its backward pass) is
written as genuine Chakra ET files, read back through the Chakra reader (:mod:`ppt.traces.chakra`)
and replayed on the system preset, one rank per node, once per all-reduce algorithm.

Columns: the predicted step, the compute in it (the same on every rank), the communication it
exposes (step - compute), and ``overlapped``: the step the same all-reduces would give issued
nonblocking, each starting when its backward pass ended and the previous all-reduce finished
(Chakra's dependencies), each as long as the blocking replay measured (step - compute) / layers,
compute undisturbed: an estimate, as the op-stream form has no nonblocking collectives and replays
them blocking (docs/chakra.md).

Run: ``python benchmarks/chakra_dp_step.py [--system stampede] [--network analytic]
[--algorithms ring recursive_doubling] [--nodes 2 4 ... 256]``.  Units in the table: ms.
"""
from __future__ import annotations

import argparse
import tempfile
import time

from ppt.hardware.systems import load_system
from ppt.machine import Machine
from ppt.mpi import MPIJob
from ppt.traces.chakra_write import dp_step
from ppt.traces.formats import open_trace
from ppt.traces.replay import replay

NODES = (2, 4, 8, 16, 32, 64, 128, 256)
MS = 1e3


def overlapped_step(layers: int, forward_s: float, backward_s: float, allreduce_s: float) -> float:
    """The step with each layer's all-reduce (``allreduce_s``) issued nonblocking after its backward pass,
    all-reduces one after another in issue order, s."""
    backward_end = done = layers * forward_s
    for _ in range(layers):
        backward_end += backward_s
        done = max(backward_end, done) + allreduce_s
    return done


def predict(prefix: str, machine: Machine, nodes: int, algorithm: str) -> float:
    """Predicted seconds of the step written at ``prefix`` on ``nodes`` nodes with ``algorithm``."""
    job = MPIJob.on_machine(machine, nodes, ranks_per_node=1, algorithms={"allreduce": algorithm})
    return replay(open_trace(prefix), job, compute_clock="wall")["predicted_s"]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--system", default="stampede", help="system preset (default stampede, a fat tree)")
    parser.add_argument("--network", default="analytic", choices=("analytic", "flow", "packet"))
    parser.add_argument("--algorithms", nargs="+", default=["ring", "recursive_doubling"],
                        help="all-reduce algorithms to compare (default: ring recursive_doubling)")
    parser.add_argument("--nodes", type=int, nargs="+", default=list(NODES))
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--forward-ms", type=float, default=2.0, help="forward compute per layer, ms")
    parser.add_argument("--backward-ms", type=float, default=4.0, help="backward compute per layer, ms")
    parser.add_argument("--gradient-MiB", type=float, default=16.0, help="gradient bytes per layer, MiB")
    args = parser.parse_args(argv)
    forward_s, backward_s = args.forward_ms / MS, args.backward_ms / MS
    gradient_B = int(args.gradient_MiB * 2 ** 20)
    compute_s = args.layers * (forward_s + backward_s)
    machine = Machine(load_system(args.system), network_kind=args.network)
    print(f"{args.system} ({args.network} network), 1 rank per node, {args.layers} layers, forward "
          f"{args.forward_ms} ms + backward {args.backward_ms} ms per layer, {args.gradient_MiB} MiB gradient "
          f"per layer")
    print(f"| nodes | all-reduce | step (ms) | compute (ms) | exposed comm (ms) | overlapped (ms) | wall (s) |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        for nodes in args.nodes:
            prefix = f"{folder}/dp{nodes}/step"
            dp_step(prefix, nodes, args.layers, forward_s, backward_s, gradient_B)
            for algorithm in args.algorithms:
                began = time.perf_counter()
                step_s = predict(prefix, machine, nodes, algorithm)
                wall_s = time.perf_counter() - began
                exposed_s = step_s - compute_s
                overlap_s = overlapped_step(args.layers, forward_s, backward_s, exposed_s / args.layers)
                print(f"| {nodes} | {algorithm} | {step_s * MS:.3f} | {compute_s * MS:.3f} | {exposed_s * MS:.3f} | "
                      f"{overlap_s * MS:.3f} | {wall_s:.1f} |", flush=True)


if __name__ == "__main__":
    main()

"""Flow network against packet network: predicted times and run times on the same workloads.

    python benchmarks/flow_vs_packet.py [--systems bgq-midplane,dragonfly-booksim,stampede]
        [--ranks 64,256,1024] [--workloads pingpong,allreduce,alltoall] [--timeout-s 120]
        [--local-fairness]

Prints one markdown row per (system, workload, ranks, bytes): the packet and flow predictions (s),
flow/packet - 1, and each run's CPU time with the ratio packet/flow.  Every run is serial, in its own
process, and stopped after --timeout-s; a workload whose packet run was stopped is not run at more
ranks.  CPU time (not wall time) is reported because it does not depend on what else the machine runs;
for these serial runs the two agree on an idle machine.
"""
from __future__ import annotations

import argparse
import multiprocessing
import sys
import time

from ppt.apps.microbench import collective_timing, pingpong
from ppt.hardware.systems import load_system
from ppt.interconnects.networks.flownet import FlowNetwork
from ppt.machine import Machine

PINGPONG_SIZES = [8, 1 << 10, 1 << 16, 1 << 20, 1 << 22]
COLLECTIVE_SIZES = [1 << 10, 1 << 20]
KINDS = ("packet", "flow")


def _case(system, kind, workload, ranks, nbytes, reply) -> None:
    """Run one workload (in a child process) and send back (predicted s, CPU s)."""
    machine = Machine(load_system(system), network_kind=kind)
    began = time.process_time()
    if workload == "pingpong":
        predicted = pingpong(machine, [nbytes], repetitions=1)[0]["latency_s"]
    else:
        predicted = collective_timing(machine, workload, ranks, [nbytes], repetitions=1, ranks_per_node=1)[0]["time_s"]
    reply.send((predicted, time.process_time() - began))


def run_case(timeout_s, *case):
    """(predicted s, CPU s) of one run, or None if it was stopped after ``timeout_s``."""
    context = multiprocessing.get_context("fork")
    receive, reply = context.Pipe(duplex=False)
    child = context.Process(target=_case, args=(*case, reply))
    child.start()
    result = receive.recv() if receive.poll(timeout_s) else None
    if result is None:
        child.terminate()
    child.join()
    return result


def cases(systems, ranks, workloads):
    for system in systems:
        nodes = Machine(load_system(system), network_kind="flow").topology.num_nodes
        for workload in workloads:
            if workload == "pingpong":
                yield from ((system, workload, 2, size) for size in PINGPONG_SIZES)
                continue
            for count in ranks:
                if count > nodes:
                    print(f"| {system} | {workload} | {count} | | {system} has {nodes} nodes: not run (one rank per "
                          f"node) | | | | | |")
                    continue
                yield from ((system, workload, count, size) for size in COLLECTIVE_SIZES)


def _cell(result, index, fmt):
    return format(result[index], fmt) if result else ""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", default="bgq-midplane,dragonfly-booksim,stampede")
    parser.add_argument("--ranks", default="64,256,1024")
    parser.add_argument("--workloads", default="pingpong,allreduce,alltoall")
    parser.add_argument("--timeout-s", type=float, default=120.0)
    parser.add_argument("--local-fairness", action="store_true",
                        help="flows share each port among its input ports first (FlowNetwork.local_fairness)")
    args = parser.parse_args(argv)
    FlowNetwork.local_fairness = args.local_fairness        # the runs' child processes inherit it
    print("| system | workload | ranks | bytes | packet (s) | flow (s) | flow/packet - 1 | CPU packet (s) | "
          "CPU flow (s) | CPU ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    stopped = set()
    for system, workload, count, size in cases(args.systems.split(","), [int(r) for r in args.ranks.split(",")],
                                               args.workloads.split(",")):
        if (system, workload, size) in stopped:
            print(f"| {system} | {workload} | {count} | {size} | not run | | | | | |", flush=True)
            continue
        packet, flow = (run_case(args.timeout_s, system, kind, workload, count, size) for kind in KINDS)
        if packet is None:
            stopped.add((system, workload, size))
        deviation = f"{flow[0] / packet[0] - 1:+.1%}" if packet and flow else ""
        ratio = f"{packet[1] / flow[1]:.3g}" if packet and flow else ""
        print(f"| {system} | {workload} | {count} | {size} | {_cell(packet, 0, '.4g') or f'stopped at {args.timeout_s:g} s'} | "
              f"{_cell(flow, 0, '.4g') or f'stopped at {args.timeout_s:g} s'} | {deviation} | {_cell(packet, 1, '.3g')} | {_cell(flow, 1, '.3g')} | "
              f"{ratio} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

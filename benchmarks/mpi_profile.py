"""Where the MPI layer's time goes: a workload of ``ppt bench mpi`` under cProfile, by part of the layer.

Every function's own time (cProfile's tottime) is summed into the part of the simulator it belongs to
(:data:`PARTS`, the first matching pattern wins), and each part's share of the profiled time is turned
into microseconds per message of an unprofiled run of the same workload measured just before.  Built-in
calls (dict.get, list.append, ...) stay a part of their own.  Then the structure per message: engine
events, greenlet switches, request and status objects, MPI calls and Python function calls.  Run:
``python benchmarks/mpi_profile.py allreduce [--top 25]`` (workloads: alltoall, allreduce, halo, replay).
"""
from __future__ import annotations

import argparse
import cProfile
import pstats

from ppt.bench.mpi import run_once, workloads
from ppt.mpi.p2p import Request, Status

#: cProfile's name of a greenlet switch.
SWITCH = "switch' of 'greenlet"

#: Parts of the simulator, each as (file substring, function substring) patterns of pstats' keys.
PARTS = (
    ("greenlet switches", (("engine/process.py", ""), ("", SWITCH), ("mpi/p2p.py", "block"))),
    ("engine event loop", (("engine/core.py", ""), ("engine/entity.py", ""), ("", "_heapq"),
                           ("networks/analytic.py", "_call"))),
    ("MPI call wrapper, argument checks", (("mpi/calls.py", ""), ("mpi/comm.py", "_check_"),
                                           ("mpi/comm.py", "world_of"), ("mpi/comm.py", "_size"))),
    ("matching (arrival, match, queues)", (("mpi/p2p.py", "_match"), ("mpi/p2p.py", "_find_unexpected"),
                                           ("mpi/p2p.py", "arrive"), ("mpi/p2p.py", "_incoming"),
                                           ("mpi/job.py", "__call__"))),
    ("requests (make, finish, wait, retire)", (("mpi/p2p.py", "__init__"), ("mpi/p2p.py", "finish"),
                                               ("mpi/p2p.py", "take"), ("mpi/p2p.py", "wait"),
                                               ("mpi/p2p.py", "_post"), ("mpi/p2p.py", "pay"),
                                               ("mpi/api.py", "_complete"), ("mpi/api.py", "wait"))),
    ("isend/irecv entry", (("mpi/p2p.py", "isend"), ("mpi/p2p.py", "irecv"), ("mpi/comm.py", ""))),
    ("network send and delivery", (("interconnects/", ""), ("_packetcore", ""))),
    ("collective algorithms and their runner", (("mpi/collectives.py", ""), ("mpi/algorithms.py", ""),
                                                ("mpi/schedule.py", ""), ("mpi/runner.py", ""))),
    ("trace replay", (("traces/", ""),)),
    ("the workload's own code", (("bench/mpi.py", ""),)),
    ("built-in calls", (("~", ""),)),
)


def part_of(key) -> str:
    """The part of :data:`PARTS` a pstats key ``(file, line, function)`` belongs to ("other" if none)."""
    where, _, function = key
    for part, patterns in PARTS:
        if any(f in where and g in function for f, g in patterns):
            return part
    return "other"


def calls(stats, wanted) -> int:
    """Calls of the functions whose pstats key ``wanted(key)`` accepts."""
    return sum(entry[1] for key, entry in stats.stats.items() if wanted(key))


def defined_by(function):
    """Whether a pstats key is ``function``'s."""
    code = function.__code__
    return lambda key: key[:2] == (code.co_filename, code.co_firstlineno)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workload", choices=[w.name for w in workloads()])
    parser.add_argument("--scale", type=float, default=1.0, help="ppt bench mpi's --scale (default 1)")
    parser.add_argument("--top", type=int, default=0, help="also print the top N functions by tottime")
    args = parser.parse_args()
    workload = next(w for w in workloads(args.scale) if w.name == args.workload)
    plain = run_once(workload)
    profile = cProfile.Profile()
    row = profile.runcall(run_once, workload)
    stats = pstats.Stats(profile)
    parts: dict[str, float] = {}
    for key, (_, _, own_s, _, _) in stats.stats.items():
        parts[part_of(key)] = parts.get(part_of(key), 0.0) + own_s
    total_s = sum(parts.values())
    us = plain["wall_s"] / plain["messages"] * 1e6
    print(f"{workload.name}, {workload.ranks:,} ranks: {plain['messages']:,} messages in {plain['wall_s']:.3f} s "
          f"unprofiled ({us:.2f} us/message), {total_s:.3f} s profiled")
    for part, own_s in sorted(parts.items(), key=lambda item: -item[1]):
        print(f"  {part:40s} {100 * own_s / total_s:5.1f} %  {us * own_s / total_s:5.2f} us/message")
    messages = row["messages"]
    print(f"per message: {row['events'] / messages:.2f} engine events, "
          f"{calls(stats, lambda key: SWITCH in key[2]) / messages:.2f} greenlet switches, "
          f"{calls(stats, defined_by(Request.__init__)) / messages:.2f} requests, "
          f"{calls(stats, defined_by(Status.__init__)) / messages:.2f} statuses, "
          f"{row['calls'] / messages:.2f} MPI calls, {calls(stats, lambda key: True) / messages:.0f} Python "
          f"function calls")
    if args.top:
        stats.sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()

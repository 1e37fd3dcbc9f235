"""Network speed: packet-hops/s of the compiled core vs a bare compiled event loop, in the same run.

A packet-hop is one router traversal.  The baseline is the core's own event
queue with no model (``core/bench.c``): as many events as the network run
executed, at the network run's mean queue depth (heap operations cost more
on a deeper queue).  Under ``mpiexec -n K`` the parallel run is measured
too and compared with a serial run on rank 0.
"""
from __future__ import annotations

import time

from ppt.engine.parallel import world
from ppt.drivers.traffic import run_traffic


def bare_loop_events_per_s(depth: int, events: int, repeats: int = 3) -> float:
    """Best events/s of the bare compiled loop holding ``depth`` pending events, over ``repeats`` runs."""
    from ppt.interconnects.core import lib
    best = 0.0
    for seed in range(repeats):
        began = time.perf_counter()
        lib.ppt_bare_loop(max(1, depth), events, seed + 1)
        best = max(best, events / (time.perf_counter() - began))
    return best


def measure_network(machine, load: float, warmup_s: float, time_s: float, log=print) -> dict | None:
    comm = world()
    result = {"system": machine.name, "offered_load": load, "warmup_s": warmup_s, "time_s": time_s}
    if comm is not None:
        log(f"traffic on {comm.size} simulation ranks ...")
        par = run_traffic(machine, "ur", load, warmup_s=warmup_s, time_s=time_s, comm=comm)
        comm.barrier()
        if comm.rank != 0:
            return None
        result.update(parallel_ranks=comm.size, parallel_run_s=par["run_s"])
    log("traffic, serial ...")
    serial = run_traffic(machine, "ur", load, warmup_s=warmup_s, time_s=time_s, comm=None)
    hops_per_s = serial["router_traversals"] / serial["run_s"]
    depth, events = int(serial["queue_depth"]), serial["core_events"]
    log(f"bare compiled loop, {events:,} events at {depth:,} pending ...")
    baseline = bare_loop_events_per_s(depth, events)
    result.update(router_traversals=serial["router_traversals"], events=serial["events"], run_s=serial["run_s"],
                  hops_per_s=hops_per_s, events_per_s=serial["events"] / serial["run_s"],
                  baseline_events_per_s=baseline, ratio=hops_per_s / baseline, queue_depth=depth,
                  events_per_hop=events / max(1, serial["router_traversals"]),
                  accepted_fraction=serial["accepted_fraction"])
    if comm is not None:
        result["parallel_speedup"] = serial["run_s"] / result["parallel_run_s"]
        result["parallel_matches_serial"] = (par["packets"], par["router_traversals"]) == \
            (serial["packets"], serial["router_traversals"])
    return result

"""Network speed: packet-hops/s of the packet core vs the bare heapq loop, in the same run.

A packet-hop is one router traversal.  Two baselines are measured right
after the network run: the default bare-loop PHOLD of ``ppt bench engine``
(1,000 LPs) and a bare-loop PHOLD with as many pending events as the
network run's mean event-queue length (heap operations cost more on a
deeper queue).  Under ``mpiexec -n K`` the parallel run is measured too and
compared with a serial run on rank 0.
"""
from __future__ import annotations

from ppt.apps.phold import PholdParams, run_baseline
from ppt.engine.parallel import world
from ppt.interconnects.traffic import run_traffic


class _QueueDepth:
    """A progress hook that samples the event-queue length."""

    def __init__(self):
        self.samples = []

    def __call__(self, sim):
        self.samples.append(len(sim.heap))

    @property
    def mean(self) -> int:
        return int(sum(self.samples) / len(self.samples)) if self.samples else 1000


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
    depth = _QueueDepth()
    serial = run_traffic(machine, "ur", load, warmup_s=warmup_s, time_s=time_s, progress=depth, comm=None)
    hops_per_s = serial["router_traversals"] / serial["run_s"]
    log("bare heapq loop, 1,000 LPs ...")
    events, seconds = run_baseline(PholdParams(num_lps=1000, end_s=300.0))
    baseline = events / seconds
    log(f"bare heapq loop, {depth.mean:,} LPs (the network run's queue depth) ...")
    events, seconds = run_baseline(PholdParams(num_lps=depth.mean, end_s=max(300_000 / depth.mean, 3.0)))
    deep_baseline = events / seconds
    result.update(router_traversals=serial["router_traversals"], events=serial["events"], run_s=serial["run_s"],
                  packet_hops_per_s=hops_per_s, events_per_s=serial["events"] / serial["run_s"],
                  baseline_events_per_s=baseline, ratio=hops_per_s / baseline, queue_depth=depth.mean,
                  deep_baseline_events_per_s=deep_baseline, deep_ratio=hops_per_s / deep_baseline,
                  accepted_fraction=serial["accepted_fraction"])
    if comm is not None:
        result["parallel_speedup"] = serial["run_s"] / result["parallel_run_s"]
        result["parallel_matches_serial"] = (par["packets"], par["router_traversals"]) == \
            (serial["packets"], serial["router_traversals"])
    return result

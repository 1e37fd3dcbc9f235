"""Engine speed: PHOLD events/s on the engine vs a bare heapq loop, in the same run."""
from __future__ import annotations

from ppt.apps.phold import PholdParams, run_baseline, run_phold


def measure_engine(p: PholdParams, log=print) -> dict | None:
    """Events/s of the engine and of the bare loop on the same PHOLD, measured now.

    Under mpiexec with K > 1 ranks the engine's parallel run is measured too,
    and rank 0 also runs the serial engine for the speedup; returns None on
    ranks other than 0.
    """
    from ppt.engine.parallel import world
    comm = world()
    result = {"lps": p.num_lps, "end_s": p.end_s}
    if comm is not None:
        log(f"PHOLD on {comm.size} simulation ranks ...")
        par = run_phold(p, comm=comm)
        comm.barrier()
        if comm.rank != 0:
            return None
        result.update(parallel_ranks=comm.size, parallel_events=par["events"],
                      parallel_events_per_s=par["events"] / par["run_s"])
    log("PHOLD, event-only entities ...")
    serial = run_phold(p, comm=None)
    log("PHOLD, bare heapq loop ...")
    base_events, base_s = run_baseline(p)
    log("PHOLD, greenlet processes ...")
    proc = run_phold(p, processes=True, comm=None)
    events_per_s = serial["events"] / serial["run_s"]
    baseline = base_events / base_s
    result.update(events=serial["events"], events_per_s=events_per_s,
                  baseline_events_per_s=baseline, ratio=events_per_s / baseline,
                  process_events_per_s=proc["events"] / proc["run_s"],
                  process_ratio=proc["events"] / proc["run_s"] / baseline,
                  state_hash=serial["state_hash"])
    if comm is not None:
        result["parallel_speedup"] = result["parallel_events_per_s"] / events_per_s
        result["parallel_state_hash_matches"] = par["state_hash"] == serial["state_hash"]
    return result

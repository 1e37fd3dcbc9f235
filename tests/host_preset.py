"""A ``host`` preset as ``ppt calibrate`` writes it, from synthetic measurements (no real MPI needed)."""
import json

from ppt.hardware import calibrate, hostpreset

INFO = {"cores": 2, "processor_name": "Test CPU", "clock_hz": 3e9, "hostname": "h", "load_average_1min": 0.1,
        "caches": [{"name": "L1", "size_B": 32768, "shared_by": 1}, {"name": "L3", "size_B": 1 << 25, "shared_by": 2}]}
COPY = {"core_copy_bandwidth_Bps": 2e10, "node_copy_bandwidth_Bps": 3e10, "array_B": 1 << 25, "repeats": 3}


def synthetic(a, L, bandwidth, eager, sizes):
    """One-way times of the model of ppt.hardware.hostpreset with these parameters."""
    fit = {"latency_s": a, "shm_latency_s": L, "bandwidth_Bps": bandwidth, "eager_threshold_B": eager}
    return [hostpreset.model_time_s(fit, n) for n in sizes]


def write_host_preset(folder, a=1.5e-6, L=0.5e-6, bandwidth=8e9, eager=8192, calls=()):
    """Write ``host.json`` and ``host.processor.json`` into ``folder`` for a host of these parameters and call
    kinds ``calls`` (rows of ``ppt.hardware.hostcalls.with_object_costs``)."""
    sizes = calibrate.QUICK_SIZES_B
    times = synthetic(a, L, bandwidth, eager, sizes)
    pingpong = {"mpiexec": "mpiexec", "mpi_library": "MPI", "results": [
        {"bytes": n, "min_s": t, "median_s": t * 1.1, "rounds": 3, "round_trips": 10} for n, t in zip(sizes, times)],
        "calls": list(calls)}
    fit = hostpreset.fit_pingpong(sizes, times)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "host.json").write_text(json.dumps(hostpreset.build(INFO, pingpong, COPY, fit, "host.processor.json")))
    (folder / "host.processor.json").write_text(json.dumps(hostpreset.processor(INFO, COPY, fit, "today")))

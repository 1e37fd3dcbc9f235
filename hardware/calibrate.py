"""Measuring this host for ``ppt calibrate``: real MPI ping-pong, memory copy bandwidth, cores, processor.

Every function returns plain dicts of SI numbers (seconds, bytes, bytes/s);
:mod:`ppt.hardware.hostpreset` turns them into a system preset.

* :func:`pingpong` launches :mod:`pingpong_worker <ppt.hardware.pingpong_worker>`
  under ``mpiexec -n 2`` (the mpiexec beside the running Python, else the one on
  ``PATH``) with a deadline, and keeps for every size the **minimum** one-way
  time over its rounds (what the library and the host can do: load from other
  processes only ever adds time) and the **median** (what a run typically sees).
  The same job times mpi4py's call kinds (:mod:`ppt.hardware.hostcalls`).
* :func:`memory_copy` times ``numpy.copyto`` of an array larger than the last
  cache level, STREAM Copy style (bytes read + bytes written per second), on
  one core and on every core at once (one process per core); it keeps the
  **best** repeat, as STREAM does.
* :func:`host_info` reads the usable core count (``os.sched_getaffinity``),
  the processor's name and clock (``/proc/cpuinfo``), its caches
  (``/sys/devices/system/cpu/cpu0/cache``) and the load average before the
  measurements (other processes running on the cores slow a ping-pong whose
  two ranks must both be running: a load above the core count means the
  times include waits for the scheduler).
"""
from __future__ import annotations

import json
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path

from ppt.errors import PPTError
from ppt.hardware import hostcalls, mpirun
from ppt.hardware.mpirun import find_mpiexec

WORKER = Path(__file__).with_name("pingpong_worker.py")

#: Ping-pong sizes, bytes: dense around the usual eager limits (4-64 KiB) so the switch is found, and
#: four sizes from 1 MiB up so a large-message regime has a segment of its own (ppt.hardware.segments).
SIZES_B = (0, 8, 64, 256, 1024, 2048, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 65536,
           131072, 262144, 524288, 1048576, 2097152, 4194304, 8388608)
QUICK_SIZES_B = (8, 256, 1024, 4096, 8192, 16384, 65536, 262144, 1048576, 2097152, 4194304)


class Plan:
    """How long to measure: rounds of the ping-pong and seconds per timed batch, copy repeats."""

    def __init__(self, quick: bool):
        self.quick = quick
        self.sizes = QUICK_SIZES_B if quick else SIZES_B
        #: Many short batches rather than a few long ones: on a shared host the minimum then comes from
        #: a batch that ran while no other process wanted the cores.
        self.rounds = 8 if quick else 30
        self.batch_s = 0.004 if quick else 0.01
        #: No new round after this many seconds: a busy host stretches every batch.
        self.rounds_s = 1.0 if quick else 15.0
        self.copy_repeats = 2 if quick else 10
        self.copy_B = (32 if quick else 96) << 20
        self.deadline_s = 30.0 if quick else 120.0


def pingpong(plan: Plan, mpiexec: str | None = None) -> dict:
    """One-way time per size of a real 2-rank ping-pong on this host (see the module docstring)."""
    mpiexec = mpiexec or find_mpiexec()
    cmd = [mpiexec, "-n", "2", sys.executable, str(WORKER), ",".join(map(str, plan.sizes)),
           str(plan.rounds), str(plan.batch_s), str(plan.rounds_s)]
    out, _ = mpirun.run(cmd, plan.deadline_s, "mpiexec ping-pong")
    try:
        raw = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise PPTError("mpiexec ping-pong printed no result (was mpi4py built against this MPI?)") from None
    rows = []
    for n, times, trips in zip(raw["sizes"], raw["one_way_s"], raw["round_trips"]):
        rows.append({"bytes": n, "min_s": min(times), "median_s": statistics.median(times),
                     "rounds": len(times), "round_trips": trips})
    calls = [{"kind": kind, "min_s": min(times), "median_s": statistics.median(times), "rounds": len(times),
              "repeats": raw["call_repeats"][kind]} for kind, times in raw["calls"].items()]
    return {"mpiexec": Path(mpiexec).name, "mpi_library": raw.get("mpi_library", ""),
            "ranks": 2, "statistic": "minimum over rounds (median also kept)", "results": rows,
            "calls": hostcalls.with_object_costs(calls)}


def _copy_rate(nbytes: int, repeats: int, start=None) -> float:
    """Best STREAM-Copy bandwidth (read + write bytes per second) of ``numpy.copyto`` over ``repeats``."""
    import numpy as np
    src = np.ones(nbytes // 8, dtype=np.float64)
    dst = np.zeros_like(src)
    np.copyto(dst, src)                     # touch every page before timing
    if start is not None:                   # all processes start their copies together
        start.wait()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - t0)
    return 2 * src.nbytes / best


def _copy_worker(nbytes, repeats, start, results):
    results.put(_copy_rate(nbytes, repeats, start))


def memory_copy(plan: Plan, cores: int) -> dict:
    """STREAM-Copy bandwidth of one core and of ``cores`` cores copying at once (bytes/s, best repeat)."""
    one = _copy_rate(plan.copy_B, plan.copy_repeats)
    node = one
    if cores > 1:
        ctx = multiprocessing.get_context("fork")
        start, results = ctx.Barrier(cores), ctx.Queue()
        procs = [ctx.Process(target=_copy_worker, args=(plan.copy_B, plan.copy_repeats, start, results))
                 for _ in range(cores)]
        for p in procs:
            p.start()
        try:
            rates = [results.get(timeout=plan.deadline_s) for _ in procs]
        except Exception:
            rates = []
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():
                p.kill()
        if len(rates) == cores:
            node = max(one, sum(rates))
    return {"array_B": plan.copy_B, "repeats": plan.copy_repeats, "statistic": "best repeat",
            "core_copy_bandwidth_Bps": one, "node_copy_bandwidth_Bps": node, "processes": cores}


def host_info() -> dict:
    """Cores this process may run on, the processor's name, clock and caches (what Linux tells)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    name, clock_hz, flags = "unknown processor", None, []
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key == "model name" and name == "unknown processor":
                name = value.strip()
            elif key == "cpu MHz" and clock_hz is None:
                clock_hz = float(value) * 1e6
            elif key == "flags" and not flags:
                flags = value.split()
    except (OSError, ValueError):
        pass
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = None
    return {"cores": cores, "processor_name": name, "clock_hz": clock_hz, "caches": _caches(cores),
            "load_average_1min": load,
            "hostname": os.uname().nodename, "flags": [f for f in flags if f.startswith("avx")]}


def _caches(cores: int) -> list[dict]:
    """Data/unified caches of cpu0 from sysfs: level, bytes, cores sharing one instance (capped at ``cores``)."""
    caches = []
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            kind = (index / "type").read_text().strip()
            if kind == "Instruction":
                continue
            level = int((index / "level").read_text())
            size_B = _size((index / "size").read_text().strip())
            shared = _count_cpus((index / "shared_cpu_list").read_text().strip())
        except (OSError, ValueError):
            continue
        caches.append({"name": f"L{level}", "size_B": size_B, "shared_by": max(1, min(shared, cores))})
    return sorted(caches, key=lambda c: c["name"])


def _size(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def _count_cpus(text: str) -> int:
    count = 0
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        count += int(hi) - int(lo) + 1 if hi else 1
    return count

"""The ``host`` system preset: model parameters fitted to :mod:`ppt.hardware.calibrate`'s measurements.

What PPT predicts for a ping-pong between two ranks of one node
---------------------------------------------------------------
A same-node message is a copy through the node's memory
(:mod:`ppt.interconnects.networks.nodememory`): ``shm_latency_s`` plus its bytes at
half the processor's ``memory.copy_bandwidth_Bps`` (a copy reads and writes
each byte).  The MPI layer (:mod:`ppt.mpi.surface.core.requests`) adds ``send_overhead_s`` on
the sender and ``recv_overhead_s`` on the receiver, and sends messages above
``eager_threshold_B`` by rendezvous: a request-to-send and a clear-to-send of
``CONTROL_B`` = 64 bytes each go through the same copy path before the data.
Writing ``L`` for ``shm_latency_s``, ``o`` for the sum of both overheads and
``beta`` for ``2 / copy_bandwidth_Bps`` (seconds per byte), the one-way time
of an ``n``-byte ping-pong is therefore::

    eager       t(n) = a + beta * n                        a = o + L
    rendezvous  t(n) = a + 2 L + beta * (n + 128)

The fit
-------
:func:`fit_pingpong` first describes the measured curve as SimGrid calibrates
SMPI, by segments of sizes with a line each, the boundaries found from the
data (:mod:`ppt.hardware.segments`): typically eager, rendezvous, and large
messages that a shared-memory transport pipelines (the sender fills the next
chunk while the receiver empties the last), which move faster per byte.  The
engine has one copy bandwidth for all sizes, so a last segment that is such a
regime -- the third segment or a later one, with a bandwidth at least
:data:`LARGE_GAIN` times the segment's before it and no step up between them
(no new handshake) -- is reported, with the preset's error on it, but left
out of the preset's fit.  With fewer segments (a noisy curve, or no such
regime) every size is fitted.

It then finds ``a``, ``L`` (as a share ``f = L / a`` in [0, 1], so
that neither overhead is negative), ``beta`` and the eager threshold ``E``
that minimise the sum of squared *relative* errors of this model over the
other sizes (each size counts alike, 8 bytes as much as 1 MiB).  ``E``
ranges over the measured sizes (a message of at most ``E`` bytes is eager),
``f`` over a grid of 101 steps, and for each pair ``a`` and ``beta`` are a
weighted linear least-squares solution.  The minimum one-way times are fitted:
interference from other processes only adds time, and the model describes the
host without it.

Which measurement sets which parameter
--------------------------------------
* ``mpi.eager_threshold_B`` = ``E``: the largest measured size still on the
  eager line; beyond it the host pays the extra handshake the model's
  rendezvous pays.
* ``network.shm_latency_s`` = ``L``: the rendezvous step ``2 L`` is the only
  thing that tells the copy latency from the software overheads (the eager
  latency ``a`` holds both); when the step is larger than ``2 a`` the share
  ``f`` stops at 1 (all of ``a`` is copy latency, no overhead).
* ``mpi.send_overhead_s`` = ``mpi.recv_overhead_s`` = ``(a - L) / 2``: a
  ping-pong sees only their sum, so it is split evenly (LogGP's symmetric
  ``o``; a modelling choice).  It includes mpi4py's call overhead, which real
  mpi4py programs pay too.
* ``mpi.call_overhead_s``: what each buffer call timed (``Sendrecv``, the
  collectives, ``Barrier``) costs beyond what the fitted preset predicts for
  it (:func:`ppt.hardware.hostcalls.with_call_costs`), charged per call.
* ``mpi.object_overhead_s``: what each lowercase call kind timed costs
  beyond its buffer twin (mpi4py's pickling layer), per call
  (:func:`ppt.hardware.hostcalls.object_overheads`).
* the processor's ``memory.copy_bandwidth_Bps`` = ``2 / beta``, so that
  same-node messages move at the ping-pong's fitted bandwidth ``1 / beta``.
  This is the MPI library's copy rate, usually below the STREAM Copy figure
  (a shared-memory transport copies twice, through a buffer between the
  processes), so STREAM's numbers go to the compute model's
  ``memory.bandwidth_Bps`` (all cores copying) and
  ``memory.core_bandwidth_Bps`` (one core) instead.
* the network between the preset's nodes is fitted to the same ping-pong
  (see :func:`build`): on the real host every message is a same-node copy, so
  a rank placed on "another node" of the model must not see a different cost.
* the processor's cores, name and clock come from Linux (``node.cores`` is the
  number of cores this process may run on); its cache sizes and sharing from
  sysfs.  Cache latencies, issue widths and the memory latency are not
  measured: they are typical values of current x86-64 cores, and matter only
  to tasklist models (``ppt run``), not to ``ppt exec``, which times the real
  program's computation.
"""
from __future__ import annotations

import datetime as _dt
import math

import numpy as np

from ppt.hardware import hostcalls, segments
from ppt.mpi.constants import CONTROL_B
from ppt.params import Param

#: The keys of a preset's ``calibration`` section: how :func:`build` measured the host (the model reads none).
CALIBRATION_PARAMS = (
    Param("date", "day of the measurement, ISO 8601", str),
    Param("command", "the ppt calibrate command line that measured", str),
    Param("version", "the ppt version that measured", str),
    Param("host", "the host: hostname, processor name, cores, clock and load", dict),
    Param("method", "how the ping-pong and the memory copy were measured", str),
    Param("pingpong", "the measured one-way times by message size", list),
    Param("calls", "per call kind: the measured time of mpi4py's buffer call and its lowercase twin", list),
    Param("memory_copy", "the measured memory copy bandwidths", dict),
    Param("fit", "the latency and bandwidth fitted to the ping-pong", dict))


#: Bandwidth of a last segment over the one before it from which it is a large-message regime the
#: preset cannot describe (see the module docstring).
LARGE_GAIN = 1.1
#: Step up, at a segment's first size, of its line over the previous segment's that still counts as
#: no step (noise), as a fraction of the time.
STEP_TOLERANCE = 0.05
#: Nodes of the host preset: one per real node (1), plus spares so a job of more ranks than cores runs.
NODES = 4
#: Cache latencies (cycles) when Linux gives only sizes: typical of current x86-64 cores.
CACHE_LATENCY_CYCLES = {"L1": 4, "L2": 14, "L3": 47, "L4": 80}
MEMORY_LATENCY_S = 1.0e-7


def fit_pingpong(sizes, times_s, max_B: int | None = None) -> dict:
    """Segments of the curve and ``a``, ``L``, ``beta`` and ``E`` (see the module docstring) fitted to
    one-way times ``times_s`` (s) of the sizes up to ``max_B`` bytes (default: up to a large-message
    regime found in the data, else all)."""
    found = segments.fit_segments(sizes, times_s)
    if max_B is None:
        max_B = preset_range_B(found["segments"])
    fit = _fit_protocols(sizes, times_s, max_B)
    fit["segments"] = [dict(segment, preset_rms_relative_error=_rms_error(fit, sizes, times_s, segment),
                            in_preset=segment["to_B"] <= max_B) for segment in found["segments"]]
    fit["segments_rms_relative_error"] = found["rms_relative_error"]
    return fit


def preset_range_B(found: list[dict]) -> int:
    """The largest size the preset's model is fitted to: the end of the segment before a last segment that
    is a large-message regime (see the module docstring), else the last size."""
    if len(found) >= 3:
        last, before = found[-1], found[-2]
        faster = before["bandwidth_Bps"] and last["bandwidth_Bps"] and \
            last["bandwidth_Bps"] >= LARGE_GAIN * before["bandwidth_Bps"]
        start = last["from_B"]
        no_step = segments.line_time_s(last, start) <= (1 + STEP_TOLERANCE) * segments.line_time_s(before, start)
        if faster and no_step:
            return before["to_B"]
    return found[-1]["to_B"]


def _rms_error(fit: dict, sizes, times_s, segment: dict) -> float:
    """Rms relative error of the preset's model over the sizes of ``segment``."""
    errors = [model_time_s(fit, n) / t - 1.0 for n, t in zip(sizes, times_s)
              if segment["from_B"] <= n <= segment["to_B"]]
    return math.sqrt(sum(e * e for e in errors) / len(errors))


def _fit_protocols(sizes, times_s, max_B: int) -> dict:
    """``a``, ``L``, ``beta`` and ``E`` (see the module docstring) fitted to the sizes up to ``max_B``."""
    n = np.asarray(sizes, dtype=float)
    t = np.asarray(times_s, dtype=float)
    keep = n <= max_B
    n, t = n[keep], t[keep]
    if len(n) < 3 or not np.all(t > 0):
        raise ValueError("the fit needs at least three sizes with positive times")
    order = np.argsort(n)
    n, t = n[order], t[order]
    w = 1.0 / t
    best = None
    for k in range(len(n)):                              # sizes[:k+1] eager
        rdv = np.arange(len(n)) > k
        for f in np.linspace(0.0, 1.0, 101) if rdv.any() else (0.0,):
            # t = a * (1 + 2 f [rdv]) + beta * (n + 128 [rdv]): linear in (a, beta)
            A = np.column_stack([1.0 + 2.0 * f * rdv, n + 2 * CONTROL_B * rdv])
            coef, *_ = np.linalg.lstsq(A * w[:, None], t * w, rcond=None)
            a, beta = coef
            if not (a > 0 and beta > 0):
                continue
            err = float(np.sum(((A @ coef) - t) ** 2 * w ** 2))
            if best is None or err < best[0]:
                best = (err, int(n[k]), float(f), float(a), float(beta))
    if best is None:
        raise ValueError("no positive latency and bandwidth fit these times")
    err, eager_B, f, a, beta = best
    return {"eager_threshold_B": eager_B, "latency_s": a, "shm_latency_s": f * a,
            "overhead_s": (1.0 - f) * a, "bandwidth_Bps": 1.0 / beta, "sizes_up_to_B": int(max_B),
            "rms_relative_error": math.sqrt(err / len(n))}


def model_time_s(fit: dict, nbytes: int) -> float:
    """The fitted model's one-way ping-pong time of ``nbytes`` on one node, s."""
    t = fit["latency_s"] + nbytes / fit["bandwidth_Bps"]
    if nbytes > fit["eager_threshold_B"]:
        t += 2 * fit["shm_latency_s"] + 2 * CONTROL_B / fit["bandwidth_Bps"]
    return t


def processor(info: dict, copy: dict, fit: dict, date: str) -> dict:
    """The host's processor preset (``hardware/processors`` layout)."""
    cores = info["cores"]
    caches, previous = [], 0
    for c in info["caches"] or [{"name": "L1", "size_B": 32768, "shared_by": 1}]:
        cycles = max(CACHE_LATENCY_CYCLES.get(c["name"], 4), previous)
        previous = cycles
        caches.append({"name": c["name"], "size_B": c["size_B"], "latency_cycles": cycles,
                       "shared_by": math.gcd(c["shared_by"], cores) or 1})
    clock_hz = info["clock_hz"] or 2.5e9
    lanes = 8 if "avx512f" in info.get("flags", ()) else 4 if "avx2" in info.get("flags", ()) else 2
    return {
        "name": "host",
        "description": f"{info['processor_name']}: the {cores} cores of this host, measured by ppt calibrate on {date}",
        "sockets": 1,
        "cores_per_socket": cores,
        "clock_hz": clock_hz,
        "issue": {"width": 4, "int_ops_per_cycle": 4, "fp_ops_per_cycle": 2, "vector_ops_per_cycle": 2,
                  "mem_ops_per_cycle": 3, "vector_lanes": lanes, "divide_cycles": 14},
        "line_B": 64,
        "caches": caches,
        "memory": {"latency_s": max(MEMORY_LATENCY_S, previous / clock_hz),
                   "bandwidth_Bps": copy["node_copy_bandwidth_Bps"],
                   "core_bandwidth_Bps": copy["core_copy_bandwidth_Bps"],
                   "copy_bandwidth_Bps": 2.0 * fit["bandwidth_Bps"]},
        "sources": {
            "cores_per_socket": "os.sched_getaffinity: the cores this process may run on, counted as one socket",
            "clock_hz": "/proc/cpuinfo 'cpu MHz' of the first core" if info["clock_hz"] else "not readable; 2.5 GHz assumed",
            "caches": "sizes and sharing from /sys/devices/system/cpu/cpu0/cache; latencies are typical x86-64 values, not measured",
            "issue": "not measured: typical of current x86-64 cores (4-wide); vector_lanes from the AVX flags",
            "memory.latency_s": "not measured: 100 ns, typical of DDR4/DDR5 servers",
            "memory.bandwidth_Bps": "STREAM-Copy style numpy.copyto on every core at once (read + write bytes/s, best repeat)",
            "memory.core_bandwidth_Bps": "the same copy on one core",
            "memory.copy_bandwidth_Bps": "twice the MPI ping-pong bandwidth fitted by ppt calibrate, so same-node "
                                         "messages move at the measured MPI rate (not STREAM's)",
        },
        "notes": ["Generated by 'ppt calibrate'; rerun it to refresh. Only the measured fields describe this host."],
    }


def network_fields(fit: dict) -> tuple[dict, dict]:
    """Topology and network sections of a one-switch fat tree whose node-to-node ping-pong is the fit's.

    A message between two nodes costs both MPI overheads, the NIC, two links
    and the switch.  The two links carry the fitted copy latency ``L`` (half
    each) and the NICs the fitted bandwidth; links 64 times faster than the
    NIC, packets without header and of 1 KiB keep store-and-forward to a
    fraction of a packet, so a message between nodes costs what a same-node
    copy does (within 1 % on the packet and analytic networks; the flow
    network adds about one packet's time, 0.2 us at 6 GB/s).
    """
    bandwidth = fit["bandwidth_Bps"]
    topology = {"kind": "fattree", "ports": NODES, "levels": 1, "num_nodes": NODES,
                "link_bandwidth_Bps": bandwidth * 64, "link_latency_s": fit["shm_latency_s"] / 2,
                "router_delay_s": 0.0}
    network = {"routing": "mlid", "packet": {"header_B": 0, "max_payload_B": 1024},
               "nic_bandwidth_Bps": bandwidth, "nic_latency_s": 0.0, "shm_latency_s": fit["shm_latency_s"]}
    return topology, network


def build(info: dict, pingpong: dict, copy: dict, fit: dict, processor_file: str,
          date: str | None = None, command: str = "ppt calibrate", version: str = "") -> dict:
    """The host system preset; ``processor_file`` is the processor preset's path relative to the system file."""
    date = date or _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    topology, network = network_fields(fit)
    half_o = fit["overhead_s"] / 2
    rows = [dict(r, model_s=model_time_s(fit, r["bytes"])) for r in pingpong["results"]]
    return {
        "name": "host",
        "description": f"This host ({info['hostname']}): {info['processor_name']}, {info['cores']} cores; "
                       f"MPI and memory calibrated by ppt calibrate on {date[:10]}",
        "sources": [
            f"Measured on this host by '{command}' (ppt {version}) on {date}; the numbers are in 'calibration'.",
            "mpi.eager_threshold_B, mpi.send_overhead_s, mpi.recv_overhead_s, network.shm_latency_s and the "
            "processor's memory.copy_bandwidth_Bps: fitted to the minimum one-way times of a real 2-rank mpi4py "
            "ping-pong (ppt.hardware.hostpreset explains the fit); the overheads are split evenly.",
            "mpi.object_overhead_s: per lowercase call kind, its minimum time less its uppercase buffer twin's "
            "in the same job, a one-way message's split evenly between its send and its receive "
            "(ppt.hardware.hostcalls).",
            "mpi.call_overhead_s: per buffer call, its minimum time less what this preset's model predicts for "
            "the same call on 2 ranks (ppt.hardware.hostcalls, ppt.hardware.callmodel).",
            f"topology: a one-switch fat tree of {NODES} nodes whose links, NICs and packets are set so a message "
            "between nodes costs what the fit gives for a same-node copy (on the real host every message is one); "
            "node 0 is the host, the others let a job of more ranks than cores be placed.",
            f"node.cores: the {info['cores']} cores this process may run on (os.sched_getaffinity).",
        ],
        "topology": topology,
        "network": network,
        "mpi": {"eager_threshold_B": fit["eager_threshold_B"], "send_overhead_s": half_o, "recv_overhead_s": half_o,
                "object_overhead_s": hostcalls.object_overheads(pingpong.get("calls", []))},
        "node": {"processor": processor_file, "cores": info["cores"]},
        "calibration": {
            "date": date,
            "command": command,
            "version": version,
            "host": {k: info.get(k) for k in ("hostname", "processor_name", "cores", "clock_hz", "load_average_1min")},
            "method": ("MPI: mpi4py Send/Recv ping-pong of numpy byte buffers between 2 ranks of "
                       f"'{pingpong['mpiexec']} -n 2' ({pingpong['mpi_library']}), sizes visited in rounds, "
                       "one-way time = half a round trip, minimum and median over rounds; call kinds (in the same "
                       "rounds): mpi4py buffer calls of 8 bytes and their lowercase twins of a float, whose "
                       "difference is the object layer's cost (ppt.hardware.hostcalls); memory: numpy.copyto "
                       f"of {copy['array_B']} bytes, best of {copy['repeats']} repeats, read + write bytes per "
                       "second, on one core and on every core at once"),
            "pingpong": rows,
            "calls": pingpong.get("calls", []),
            "memory_copy": copy,
            "fit": fit,
        },
    }

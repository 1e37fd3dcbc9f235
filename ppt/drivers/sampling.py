"""Sampling the packet network over time: per-port and per-NIC time series in a ``.npz`` file.

Every ``period_s`` of simulated time the sampler records, for the period
just ended, the bytes each router port sent and each NIC injected and
ejected, and, at its end, the bytes queued for each (port, VC).  With
``level="router"`` the port figures are summed per (router, link class) and
the queues and NIC bytes per router, which keeps million-node runs small.

The sampler drives the run: it runs the engine up to each sample time (the
core never runs past it, see ``Simulation.run``; a program or a replay on the
compiled MPI engine, serial or parallel, stops there the same way,
``ppt.mpi.engine.windows.SampledRun``), reads the
core's cumulative counters and keeps the differences.  Event order does not depend
on where a run is cut, so sampling changes no result; when it is off
nothing is read and nothing is run differently.

Why ``.npz``: numpy (already a dependency) reads it with ``numpy.load``, each
column is a plain n-dimensional array, and a zip can be written member by
member.  Columns are streamed to temporary files next to the output as the
run goes and packed (deflated) into the ``.npz`` at the end, so memory
holds one sample at a time; the file appears only when complete.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from ppt.errors import ConfigError, PPTError
from ppt.interconnects.networks.latency import Latencies
from ppt.interconnects.core import ffi, lib

#: Version of the sample file layout; ``ppt plot`` refuses other versions.
VERSION = 1
LEVELS = ("port", "router")
#: Samples at most (a period this short against the run's length is a mistake, not a request).
MAX_SAMPLES = 1_000_000


class ColumnWriter:
    """Arrays appended row by row to temporary files, packed into one ``.npz`` by :meth:`close`."""

    def __init__(self, path: str):
        self.path = Path(path)
        self.tmp = Path(tempfile.mkdtemp(prefix=".ppt-samples-", dir=self.path.parent or Path(".")))
        self.columns: dict[str, tuple[np.dtype, tuple, int]] = {}

    def append(self, name: str, row: np.ndarray) -> None:
        dtype, shape, rows = self.columns.get(name, (row.dtype, row.shape, 0))
        if (dtype, shape) != (row.dtype, row.shape):
            raise AssertionError(f"column {name}: row of {row.dtype}{row.shape}, expected {dtype}{shape}")
        with open(self.tmp / name, "ab") as out:
            out.write(np.ascontiguousarray(row).tobytes())
        self.columns[name] = (dtype, shape, rows + 1)

    def close(self, extra: dict[str, np.ndarray]) -> None:
        """Write the ``.npz``: every column (rows stacked) and the ``extra`` arrays."""
        partial = self.path.with_name(self.path.name + ".partial")
        try:
            with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as zf:
                for name, (dtype, shape, rows) in self.columns.items():
                    with zf.open(f"{name}.npy", "w", force_zip64=True) as member:
                        header = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False,
                                  "shape": (rows, *shape)}
                        np.lib.format.write_array_header_2_0(member, header)
                        with open(self.tmp / name, "rb") as column:
                            shutil.copyfileobj(column, member, 1 << 22)
                for name, array in extra.items():
                    with zf.open(f"{name}.npy", "w", force_zip64=True) as member:
                        np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)
            os.replace(partial, self.path)
        finally:
            partial.unlink(missing_ok=True)
            self.abort()

    def abort(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


class Sampler:
    """Samples a :class:`~ppt.interconnects.networks.packetnet.PacketNetwork` every ``period_s`` into ``path``."""

    def __init__(self, path: str, period_s: float, level: str = "port", system: str = ""):
        if not (0.0 < period_s < math.inf):
            raise ConfigError(f"--sample-every must be a positive number of seconds, got {period_s}")
        if level not in LEVELS:
            raise ConfigError(f"--sample-level {level!r}: choose one of {', '.join(LEVELS)}")
        self.path, self.period_s, self.level, self.system = path, period_s, level, system
        self.count = 0
        self.last_s = 0.0           # end of the last sampled period, s
        self.end_s = 0.0            # the time the run has reached, s
        self.net = self.sim = self.writer = None
        #: What ran, for the figures' titles (e.g. ``{"pattern": "wc", "routing": "ugal", "load": 0.5}``).
        self.workload: dict = {}

    def attach(self, net, sim) -> None:
        """Start sampling ``net`` (built in ``sim``); the first sample is due at ``period_s``."""
        from ppt.interconnects.networks.packetnet import PacketNetwork
        if not isinstance(net, PacketNetwork):
            raise ConfigError("sampling (--sample-every) needs the packet network; drop --network or use "
                              "--network packet")
        smallest = min(c.latency_s for c in net.topo.link_classes) or min(
            net.packetizer.size(0) / c.bandwidth_Bps for c in net.topo.link_classes)
        if self.period_s < smallest:
            raise ConfigError(f"--sample-every {self.period_s:g} s is below the network's smallest event spacing "
                              f"({smallest:g} s, its shortest link); sample less often")
        self.abort()            # a run started again from the start (on the other MPI engine) samples afresh
        self.count, self.last_s, self.end_s = 0, 0.0, 0.0
        self.net, self.sim = net, sim
        topo = net.topo
        self.ports = topo.num_routers * topo.radix
        self.port_class = np.asarray(topo.port_class, dtype=np.int8).ravel()
        self.num_classes = len(topo.link_classes)
        self.router_of_port = np.repeat(np.arange(topo.num_routers), topo.radix)
        self.last_port_B = np.zeros(self.ports, dtype=np.int64)
        self.last_injected_B = np.zeros(topo.num_nodes, dtype=np.int64)
        self.last_ejected_B = np.zeros(topo.num_nodes, dtype=np.int64)
        if sim.rank == 0:
            self.writer = ColumnWriter(self.path)

    # -- reading the core ------------------------------------------------------
    def _cumulative(self, t_s: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Cumulative port bytes, queues at ``t_s`` and NIC bytes of every rank, summed on rank 0."""
        core = self.net.core.c
        port_B = self.net.core.port_bytes()
        queued = np.zeros(self.ports * self.net.num_vcs, dtype=np.int64)
        injected = np.zeros(self.net.num_nodes, dtype=np.int64)
        ejected = np.zeros(self.net.num_nodes, dtype=np.int64)
        lib.ppt_net_port_queued(core, t_s, _ptr(queued))
        lib.ppt_net_nic_bytes(core, _ptr(injected), _ptr(ejected))
        parts = self.sim.gather((port_B, queued, injected, ejected))
        if parts is None:
            return None
        return tuple(sum(p[i] for p in parts) for i in range(4))

    def sample(self, t_s: float) -> None:
        """Record the period ending at ``t_s`` (every rank calls it; rank 0 writes)."""
        self.last_s = t_s
        self.count += 1
        got = self._cumulative(t_s)
        if got is None:
            return
        port_B, queued, injected, ejected = got
        sent = port_B - self.last_port_B
        inj, ej = injected - self.last_injected_B, ejected - self.last_ejected_B
        self.last_port_B, self.last_injected_B, self.last_ejected_B = port_B, injected, ejected
        w = self.writer
        w.append("t_s", np.array(t_s))
        if self.level == "port":
            w.append("port_bytes", sent)
            w.append("port_queued_B", queued.reshape(self.ports, self.net.num_vcs))
            w.append("nic_injected_B", inj)
            w.append("nic_ejected_B", ej)
        else:
            topo = self.net.topo
            routers = topo.num_routers
            used = self.port_class >= 0
            key = self.router_of_port[used] * self.num_classes + self.port_class[used]
            by_class = np.bincount(key, weights=sent[used], minlength=routers * self.num_classes)
            w.append("router_class_bytes", by_class.astype(np.int64).reshape(routers, self.num_classes))
            per_port = queued.reshape(self.ports, self.net.num_vcs).sum(axis=1)
            w.append("router_queued_B", np.bincount(self.router_of_port, weights=per_port,
                                                    minlength=routers).astype(np.int64))
            w.append("router_injected_B", np.bincount(topo.node_router, weights=inj, minlength=routers)
                     .astype(np.int64))
            w.append("router_ejected_B", np.bincount(topo.node_router, weights=ej, minlength=routers)
                     .astype(np.int64))

    # -- driving the run -----------------------------------------------------------
    def run(self, until_s: float | None = None) -> None:
        """Run the simulation to ``until_s`` (None: until no events remain), sampling on the way."""
        sim = self.sim
        end = math.inf if until_s is None else until_s
        while True:
            due = (self.count + 1) * self.period_s
            if abs(due - end) <= 1e-9 * self.period_s:
                due = end                   # the same instant, up to rounding: one sample, not two
            if self.count >= MAX_SAMPLES:
                raise ConfigError(f"--sample-every {self.period_s:g} s would take more than {MAX_SAMPLES:,} "
                                  f"samples; sample less often")
            sim.run(until_s=min(due, end))
            self.end_s = min(due, end)
            if due <= end:
                self.sample(due)
            if due >= end or self._finished():
                return

    def _finished(self) -> bool:
        nxt = self.sim.peek()
        if self.sim.size > 1:
            from mpi4py import MPI
            nxt = self.sim.comm.allreduce(nxt, op=MPI.MIN)
        return nxt == math.inf

    def close(self) -> dict | None:
        """Write the file (rank 0): samples, the network's layout and the latency histograms.

        A run that stopped between two sample times gets a last, shorter period.
        Returns ``{"samples", "sample_file", "sample_bytes"}`` on rank 0, None elsewhere."""
        if self.end_s > self.last_s:
            self.sample(self.end_s)
        net, topo = self.net, self.net.topo
        hists = self.sim.gather((net.core.packet_latencies().wire(), net.core.message_latencies().wire()))
        if hists is None:
            return None
        classes = topo.link_classes
        used = np.asarray(topo.port_class) >= 0
        meta = {"version": VERSION, "system": self.system, "level": self.level, "period_s": self.period_s,
                "routers": int(topo.num_routers), "radix": int(topo.radix), "nodes": int(topo.num_nodes),
                "vcs": int(net.num_vcs), "kind": topo.kind, "workload": self.workload,
                "classes": [c.name for c in classes],
                "class_bandwidth_Bps": [c.bandwidth_Bps for c in classes],
                "class_ports": [int(np.count_nonzero(np.asarray(topo.port_class)[used] == k))
                                for k in range(len(classes))]}
        extra = {"meta": np.array(json.dumps(meta, sort_keys=True)),
                 "port_class": np.asarray(topo.port_class, dtype=np.int8),
                 "packet_latency": Latencies.merge([h[0] for h in hists]).counts,
                 "message_latency": Latencies.merge([h[1] for h in hists]).counts}
        groups = topo.router_groups()
        if groups is not None:
            extra["router_group"] = groups
            extra["group_bytes"] = group_matrix(topo, groups, self.last_port_B)
            bandwidth = np.array([c.bandwidth_Bps for c in classes] + [0.0])      # class -1: no link
            extra["group_capacity_Bps"] = group_matrix(topo, groups, bandwidth[np.asarray(topo.port_class)].ravel(),
                                                       np.float64)
        self.writer.close(extra)
        return {"samples": self.count, "sample_file": str(self.path),
                "sample_bytes": os.path.getsize(self.path)}

    def abort(self) -> None:
        if self.writer is not None:
            self.writer.abort()


def group_matrix(topo, groups: np.ndarray, port_bytes: np.ndarray, dtype=np.int64) -> np.ndarray:
    """Bytes sent over router-to-router links from group i to group j, ``(G, G)`` (or, given each port's
    bandwidth, the links' bandwidth from group i to group j)."""
    peer = np.asarray(topo.port_peer).ravel()
    link = peer >= 0
    src = np.repeat(groups, topo.radix)[link]
    dst = groups[peer[link]]
    g = int(groups.max()) + 1
    return np.bincount(src * g + dst, weights=port_bytes[link], minlength=g * g).astype(dtype).reshape(g, g)


def read_samples(path: str) -> tuple[dict, dict]:
    """``(meta, arrays)`` of a sample file; PPTError if it is not one of this version."""
    try:
        data = np.load(path, allow_pickle=False)
        arrays = {k: data[k] for k in data.files}
        meta = json.loads(str(arrays.pop("meta")))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, json.JSONDecodeError) as exc:
        raise PPTError(f"{path}: not a PPT sample file ({exc.__class__.__name__}); make one with "
                       f"--sample-every S --samples FILE.npz") from None
    if meta.get("version") != VERSION:
        raise PPTError(f"{path}: sample file version {meta.get('version')!r}, this PPT reads version {VERSION}; "
                       f"re-run the simulation with this version")
    return meta, arrays


def _ptr(array: np.ndarray):
    return ffi.cast("int64_t *", ffi.from_buffer(array))

"""Node (processor) models: turn a :class:`~ppt.hardware.tasklist.Tasklist` into seconds.

A :class:`NodeModel` describes one compute node: ``sockets x cores_per_socket``
identical cores at ``clock_hz``, each with per-cycle issue limits, a cache
hierarchy and a share of the node's main memory.  MPI ranks run one per core;
:meth:`NodeModel.time_compute` gives the time one core needs for a tasklist
while ``cores_active`` cores of the node do similar work at the same time
(:meth:`NodeModel.core_view` binds that number for a rank).

The model (all times in seconds, ``f`` = clock in Hz)
------------------------------------------------------
Three bounds are computed and the largest wins::

    T = max(T_issue, T_latency, T_bandwidth)

**Issue bound.**  With ``I`` integer ops, ``F`` scalar FP ops, ``V`` vector
instructions (an operation on ``w`` 64-bit elements needs
``ceil(w / vector_lanes)``), ``A`` load/store instructions and ``D`` divides::

    T_issue = ( max(I / int_ops_per_cycle, F / fp_ops_per_cycle,
                    V / vector_ops_per_cycle, A / mem_ops_per_cycle,
                    (I + F + V + A) / issue_width)
                + D * divide_cycles ) / f

A fused multiply-add counts in ``V`` as one instruction on a processor with FMA units
(``fma``) and as two (a multiply and an add) on one without, so a core's peak is
``vector_ops_per_cycle x vector_lanes x (2 if fma else 1)`` flops per cycle
(:attr:`NodeModel.peak_flops_per_s` for the node).  Each op class is limited by its own execution ports and all of them together by
the issue width; independent instructions are assumed (no dependency stalls).
Divides occupy the non-pipelined divider and are added serially.

**Cache/memory latency bound.**  Each access entry is split over the hierarchy:
fraction ``s_k`` of its accesses is served by cache level ``k`` and ``s_mem`` by
main memory (from the local hit rates ``h_k``: ``s_k = h_k * prod_{j<k}(1-h_j)``;
from a reuse profile: an access with reuse distance ``d`` is served by the first
level whose effective capacity exceeds ``d`` -- a fully associative LRU cache).
An access of ``b`` bytes moves ``max(1, b/line_B)`` lines.  L1 hits cost nothing
beyond issue (their latency is hidden by pipelining).  Every line served from
level ``k >= 2`` or memory costs that level's latency, and a core keeps
``M`` line transfers in flight::

    T_latency = ( sum_k X_k * latency_cycles_k / f + X_mem * memory_latency_s ) / M
    M = core_bandwidth_Bps * memory_latency_s / line_B      (Little's law)

where ``X_k`` is the number of lines served by level ``k``.  ``M`` is chosen so
that a single core streaming from memory reaches exactly its measured sustained
bandwidth ``core_bandwidth_Bps``; the same concurrency hides cache latencies.
Bytes declared with ``MEM_BYTES`` count as lines served by memory.

**Memory bandwidth bound.**  The node's sustained bandwidth is shared evenly by
the ``cores_active`` cores running at the same time::

    T_bandwidth = dram_bytes * cores_active / memory_bandwidth_Bps
    dram_bytes  = X_mem * line_B + MEM_BYTES

Assumptions: computation overlaps memory traffic completely (a roofline-style
``max``), so the model is optimistic for codes with long dependency chains;
stores are treated like loads (write-allocate fills, no separate write-back
traffic); ranks are spread evenly over the sockets and shared caches.  A shared
cache level of ``size_B`` shared by ``shared_by`` cores offers each active core
``size_B / sharers`` bytes for reuse-profile accesses, ``sharers`` being the
active cores per cache instance; effective capacities are made non-decreasing
down the hierarchy (inclusive caches).  Explicit hit rates are used as given.
"""
from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass
from numbers import Integral

from ppt.config import field
from ppt.errors import ConfigError
from ppt.hardware.tasklist import Tasklist


@dataclass(frozen=True)
class CacheLevel:
    """One cache level: ``size_B`` bytes per instance, ``latency_cycles`` load-to-use,
    one instance shared by ``shared_by`` cores."""

    name: str
    size_B: float
    latency_cycles: float
    shared_by: int


@dataclass(frozen=True)
class TimeBreakdown:
    """The three bounds of the model (seconds) and the main-memory traffic (bytes)."""

    issue_s: float
    latency_s: float
    bandwidth_s: float
    dram_bytes: float

    @property
    def total_s(self) -> float:
        """Predicted time: the largest bound."""
        return max(self.issue_s, self.latency_s, self.bandwidth_s)

    @property
    def bound(self) -> str:
        """Which bound limits: ``"issue"``, ``"latency"`` or ``"bandwidth"``."""
        bounds = {"issue": self.issue_s, "latency": self.latency_s, "bandwidth": self.bandwidth_s}
        return max(bounds, key=bounds.get)


class NodeModel:
    """A compute node: identical cores, a cache hierarchy and shared main memory (SI units)."""

    __slots__ = ("name", "description", "sockets", "cores_per_socket", "clock_hz", "issue_width",
                 "int_ops_per_cycle", "fp_ops_per_cycle", "vector_ops_per_cycle", "mem_ops_per_cycle",
                 "vector_lanes", "divide_cycles", "line_B", "caches", "memory_latency_s",
                 "memory_bandwidth_Bps", "core_bandwidth_Bps", "copy_bandwidth_Bps", "fma", "dgemm_efficiency")

    def __init__(self, name: str, *, sockets: int, cores_per_socket: int, clock_hz: float,
                 issue_width: float, int_ops_per_cycle: float, fp_ops_per_cycle: float,
                 vector_ops_per_cycle: float, mem_ops_per_cycle: float, vector_lanes: int,
                 divide_cycles: float, line_B: float, caches, memory_latency_s: float,
                 memory_bandwidth_Bps: float, core_bandwidth_Bps: float, copy_bandwidth_Bps: float | None = None,
                 description: str = "", fma: bool = False, dgemm_efficiency: float = 1.0):
        self.name = name
        self.description = description
        self.sockets = sockets
        self.cores_per_socket = cores_per_socket
        self.clock_hz = clock_hz
        self.issue_width = issue_width
        self.int_ops_per_cycle = int_ops_per_cycle
        self.fp_ops_per_cycle = fp_ops_per_cycle
        self.vector_ops_per_cycle = vector_ops_per_cycle
        self.mem_ops_per_cycle = mem_ops_per_cycle
        self.vector_lanes = vector_lanes
        self.divide_cycles = divide_cycles
        self.line_B = line_B
        self.caches = tuple(caches)
        self.memory_latency_s = memory_latency_s
        self.memory_bandwidth_Bps = memory_bandwidth_Bps
        self.core_bandwidth_Bps = core_bandwidth_Bps
        #: The node's STREAM Copy bandwidth (bytes read + bytes written per second), which same-node
        #: message copies share (:mod:`ppt.interconnects.networks.nodememory`); None if the preset gives none.
        self.copy_bandwidth_Bps = copy_bandwidth_Bps
        #: Whether a fused multiply-add is one vector instruction (else a multiply and an add).
        self.fma = fma
        #: The fraction of the FMA peak a tuned DGEMM sustains on the whole node (measured; 1 when no
        #: measurement is cited): the packing, loop edges and lower clock under load that its counts omit.
        self.dgemm_efficiency = dgemm_efficiency
        self._check()

    def _check(self):
        where = f"processor {self.name!r}"
        for attr in ("sockets", "cores_per_socket", "vector_lanes"):
            value = getattr(self, attr)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{where}: {attr} must be a positive integer, got {value!r}")
        for attr in ("clock_hz", "issue_width", "int_ops_per_cycle", "fp_ops_per_cycle",
                     "vector_ops_per_cycle", "mem_ops_per_cycle", "divide_cycles", "line_B",
                     "memory_latency_s", "memory_bandwidth_Bps", "core_bandwidth_Bps", "copy_bandwidth_Bps"):
            value = getattr(self, attr)
            if attr == "copy_bandwidth_Bps" and value is None:
                continue                                   # optional: only same-node messages need it
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
                raise ConfigError(f"{where}: {attr} must be a positive number, got {value!r}")
        if not isinstance(self.fma, bool):
            raise ConfigError(f"{where}: fma must be true or false, got {self.fma!r}")
        if isinstance(self.dgemm_efficiency, bool) or not 0 < self.dgemm_efficiency <= 1:
            raise ConfigError(f"{where}: dgemm_efficiency must be a fraction in (0, 1], got {self.dgemm_efficiency!r}")
        if not self.caches:
            raise ConfigError(f"{where}: needs at least one cache level (L1)")
        previous_s = 0.0
        for level in self.caches:
            if not (level.size_B > 0 and level.latency_cycles > 0):
                raise ConfigError(f"{where}: cache {level.name} needs a positive size_B and latency_cycles")
            if not (1 <= level.shared_by <= self.cores and self.cores % level.shared_by == 0):
                raise ConfigError(f"{where}: cache {level.name} shared_by={level.shared_by} must divide "
                                  f"the node's {self.cores} cores")
            latency_s = level.latency_cycles / self.clock_hz
            if latency_s < previous_s:
                raise ConfigError(f"{where}: cache {level.name} is faster than the level above it; "
                                  f"latencies must not decrease down the hierarchy")
            previous_s = latency_s
        if self.memory_latency_s < previous_s:
            raise ConfigError(f"{where}: memory latency {self.memory_latency_s} s is below the last cache's latency")

    @classmethod
    def from_config(cls, cfg: dict, where: str = "processor") -> "NodeModel":
        """Build from a preset dict (the ``hardware/processors/*.json`` layout;
        ``sources``, ``references`` and ``notes`` are documentation and not read)."""
        name = field(cfg, "name", where, str)
        where = f"processor {name!r}"
        issue = field(cfg, "issue", where, dict)
        memory = field(cfg, "memory", where, dict)
        raw_caches = field(cfg, "caches", where, list)
        caches = []
        for i, raw in enumerate(raw_caches):
            cache_where = f"{where}.caches[{i}]"
            caches.append(CacheLevel(field(raw, "name", cache_where, str),
                                     field(raw, "size_B", cache_where, float, positive=True),
                                     field(raw, "latency_cycles", cache_where, float, positive=True),
                                     field(raw, "shared_by", cache_where, int, positive=True)))
        issue_where, memory_where = f"{where}.issue", f"{where}.memory"
        return cls(
            name,
            description=field(cfg, "description", where, str, default=""),
            sockets=field(cfg, "sockets", where, int, positive=True),
            cores_per_socket=field(cfg, "cores_per_socket", where, int, positive=True),
            clock_hz=field(cfg, "clock_hz", where, float, positive=True),
            issue_width=field(issue, "width", issue_where, float, positive=True),
            int_ops_per_cycle=field(issue, "int_ops_per_cycle", issue_where, float, positive=True),
            fp_ops_per_cycle=field(issue, "fp_ops_per_cycle", issue_where, float, positive=True),
            vector_ops_per_cycle=field(issue, "vector_ops_per_cycle", issue_where, float, positive=True),
            mem_ops_per_cycle=field(issue, "mem_ops_per_cycle", issue_where, float, positive=True),
            vector_lanes=field(issue, "vector_lanes", issue_where, int, positive=True),
            divide_cycles=field(issue, "divide_cycles", issue_where, float, positive=True),
            line_B=field(cfg, "line_B", where, float, positive=True),
            caches=caches,
            memory_latency_s=field(memory, "latency_s", memory_where, float, positive=True),
            memory_bandwidth_Bps=field(memory, "bandwidth_Bps", memory_where, float, positive=True),
            core_bandwidth_Bps=field(memory, "core_bandwidth_Bps", memory_where, float, positive=True),
            copy_bandwidth_Bps=field(memory, "copy_bandwidth_Bps", memory_where, float, default=None, positive=True),
            fma=field(issue, "fma", issue_where, default=False),
            dgemm_efficiency=field(cfg, "dgemm_efficiency", where, float, default=1.0, positive=True),
        )

    @property
    def cores(self) -> int:
        """Cores per node."""
        return self.sockets * self.cores_per_socket

    @property
    def peak_flops_per_s(self) -> float:
        """The node's theoretical peak (flops per second): every core's vector units issuing FMAs
        (or multiplies and adds) on full vectors every cycle."""
        return self.cores * self.clock_hz * self.vector_ops_per_cycle * self.vector_lanes * (2 if self.fma else 1)

    @property
    def lines_in_flight(self) -> float:
        """Line transfers one core keeps in flight (Little's law on its memory bandwidth)."""
        return self.core_bandwidth_Bps * self.memory_latency_s / self.line_B

    def core_view(self, cores_active: int) -> "CoreView":
        """The node as seen by one rank while ``cores_active`` cores compute."""
        return CoreView(self, cores_active)

    def time_compute(self, tasklist, cores_active: int = 1) -> float:
        """Seconds one core needs for ``tasklist`` (a Tasklist or LANL-style list)
        while ``cores_active`` cores of this node work at the same time."""
        return self.breakdown(tasklist, cores_active).total_s

    def breakdown(self, tasklist, cores_active: int = 1) -> TimeBreakdown:
        """The issue, latency and bandwidth bounds for ``tasklist`` (see module doc)."""
        self._check_active(cores_active)
        work = Tasklist.from_list(tasklist)
        lanes = self.vector_lanes
        vector_instr = sum(count * -(-width // lanes) for count, width in work.vector_ops)
        vector_instr += sum(count * -(-width // lanes) for count, width in work.fma_ops) * (1 if self.fma else 2)
        mem_instr = sum(access.count for access in work.accesses)
        issue_cycles = max(work.int_ops / self.int_ops_per_cycle,
                           work.float_ops / self.fp_ops_per_cycle,
                           vector_instr / self.vector_ops_per_cycle,
                           mem_instr / self.mem_ops_per_cycle,
                           (work.int_ops + work.float_ops + vector_instr + mem_instr) / self.issue_width)
        issue_cycles += work.divides * self.divide_cycles

        level_latency_s = [level.latency_cycles / self.clock_hz for level in self.caches[1:]]
        level_latency_s.append(self.memory_latency_s)
        capacities = self._capacities(cores_active)
        lines = [0.0] * len(level_latency_s)        # lines served by L2, L3, ..., memory
        for access in work.accesses:
            served = self._served(access, capacities)
            per_access = max(1.0, access.bytes_per_access / self.line_B) * access.count
            for k, fraction in enumerate(served[1:]):
                lines[k] += per_access * fraction
        lines[-1] += work.stream_bytes / self.line_B
        latency_s = sum(n * t for n, t in zip(lines, level_latency_s)) / self.lines_in_flight
        dram_bytes = lines[-1] * self.line_B
        bandwidth_s = dram_bytes * cores_active / self.memory_bandwidth_Bps
        return TimeBreakdown(issue_cycles / self.clock_hz, latency_s, bandwidth_s, dram_bytes)

    def _check_active(self, cores_active) -> None:
        if (isinstance(cores_active, bool) or not isinstance(cores_active, Integral)
                or not 1 <= cores_active <= self.cores):
            raise ConfigError(f"cores_active must be an integer from 1 to {self.cores} for processor "
                              f"{self.name!r}, got {cores_active!r}")

    def _capacities(self, cores_active: int) -> list[float]:
        """Bytes each active core can reuse in every cache level, non-decreasing downwards."""
        capacities, largest = [], 0.0
        for level in self.caches:
            instances = self.cores // level.shared_by
            sharers = min(level.shared_by, -(-cores_active // instances))
            largest = max(largest, level.size_B / sharers)
            capacities.append(largest)
        return capacities

    def _served(self, access, capacities) -> list[float]:
        """Fractions of ``access`` served by L1, L2, ..., main memory (they sum to 1)."""
        levels = len(self.caches)
        served = [0.0] * (levels + 1)
        if access.hit_rates is not None:
            reaching = 1.0
            for k, rate in enumerate(access.hit_rates[:levels]):
                served[k] = reaching * rate
                reaching -= served[k]
            served[levels] = reaching
        else:
            for distance, probability in access.reuse_profile:
                served[bisect_right(capacities, distance)] += probability
        return served


class CoreView:
    """One core of a node while ``cores_active`` cores share its memory bandwidth."""

    __slots__ = ("node", "cores_active")

    def __init__(self, node: NodeModel, cores_active: int):
        node._check_active(cores_active)
        self.node = node
        self.cores_active = cores_active

    def time_compute(self, tasklist, threads: int = 1) -> float:
        """Seconds this core needs for ``tasklist``, or for its share when ``threads`` threads (this core's
        and others') split it evenly."""
        if threads > 1:
            tasklist = Tasklist.from_list(tasklist).scaled(1.0 / threads)
        return self.node.breakdown(tasklist, self.cores_active).total_s

    def breakdown(self, tasklist) -> TimeBreakdown:
        """The model's bounds for ``tasklist`` on this core."""
        return self.node.breakdown(tasklist, self.cores_active)

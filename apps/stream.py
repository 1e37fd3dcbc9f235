"""STREAM: sustainable memory bandwidth of four vector kernels, as McCalpin defines them.

The kernels and the bytes STREAM counts per element (J. D. McCalpin, "Memory Bandwidth and
Machine Balance in Current High Performance Computers", IEEE TCCA Newsletter, Dec. 1995;
https://www.cs.virginia.edu/stream/ref.html): each array element read counts 8 bytes and
each element written 8 bytes, whatever the hardware moves besides.

=======  ==============  =============  =================
kernel   statement       bytes counted  flops per element
=======  ==============  =============  =================
Copy     c = a           16             0
Scale    b = q c         16             1
Add      c = a + b       24             1
Triad    a = b + q c     24             2
=======  ==============  =============  =================

The model runs STREAM's MPI form: the three arrays of ``array_elements`` doubles each are
split evenly over the ranks; every trial times each kernel between two barriers, and the
rate of a kernel is the bytes counted over all ranks divided by its best time over trials
2..ntimes (STREAM drops the first), in MB/s (10^6 bytes per second).

A kernel on a rank is one tasklist (:func:`kernel_tasklist`): its vector operations and,
as main-memory traffic (``MEM_BYTES``), what DRAM moves.  With ``write_allocate`` (plain
stores, the default build) every element stored is first read into the cache and later
written back: 8 bytes more per element stored than STREAM counts; without it
(non-temporal stores) DRAM moves what STREAM counts.  The node model then bounds the
kernel by one core's bandwidth and by its share of the node's (:mod:`ppt.hardware.node`),
so the rate grows with the ranks on a node until they saturate its memory.
"""
from __future__ import annotations

from dataclasses import dataclass

from ppt.apps.registry import AppModel, Param, register
from ppt.apps.result import AppResult
from ppt.errors import ConfigError
from ppt.hardware.tasklist import MemAccess, Tasklist

WORD_B = 8
#: kernel: (arrays read, arrays written, flops per element), in STREAM's order.
KERNELS = {"copy": (1, 1, 0), "scale": (1, 1, 1), "add": (2, 1, 1), "triad": (2, 1, 2)}
#: Elements a load or store instruction moves (256-bit vectors); only the issue bound sees it.
VECTOR_ELEMENTS = 4


def counted_bytes(kernel: str, elements: float) -> float:
    """Bytes STREAM counts for ``kernel`` over ``elements`` elements (16 or 24 per element)."""
    reads, writes, _ = KERNELS[kernel]
    return WORD_B * (reads + writes) * elements


def kernel_tasklist(kernel: str, elements: int, write_allocate: bool = True) -> Tasklist:
    """One rank's work for ``kernel`` over its ``elements`` elements (see the module doc)."""
    reads, writes, flops = KERNELS[kernel]
    fills_B = WORD_B * writes * elements if write_allocate else 0     # stored lines read in first
    return Tasklist(vector_ops=((flops, elements),) if flops and elements else (),
                    accesses=(MemAccess((reads + writes) * elements / VECTOR_ELEMENTS, WORD_B * VECTOR_ELEMENTS,
                                        hit_rates=(1.0,)),),
                    stream_bytes=counted_bytes(kernel, elements) + fills_B)


@dataclass(frozen=True)
class StreamSim:
    """STREAM on ``ranks`` ranks: ``array_elements`` doubles per array (all ranks together),
    ``ntimes`` trials, ``write_allocate`` plain (True) or non-temporal (False) stores."""

    ranks: int
    array_elements: int
    ntimes: int = 10
    write_allocate: bool = True

    def __post_init__(self):
        if self.ranks < 1:
            raise ConfigError(f"STREAM needs at least one rank, got {self.ranks}")
        if self.array_elements < self.ranks:
            raise ConfigError(f"array_elements={self.array_elements} gives some of the {self.ranks} ranks no "
                              f"element; give at least one element per rank")
        if self.ntimes < 2:
            raise ConfigError(f"ntimes={self.ntimes}: STREAM drops the first trial, so give at least 2")

    def local_elements(self, rank: int) -> int:
        """Elements of each array on ``rank`` (the remainder goes to the first ranks)."""
        share, extra = divmod(self.array_elements, self.ranks)
        return share + (rank < extra)

    def run(self, machine, progress=None, seed: int = 0) -> AppResult:
        from ppt.mpi import MPIJob
        per_node = min(machine.cores_per_node, self.ranks)
        job = MPIJob.on_machine(machine, self.ranks, per_node, seed=seed).run(stream_main, self, progress=progress)
        best = job.returns[0]
        extra = {f"{kernel}_MBps": counted_bytes(kernel, self.array_elements) / best[kernel] / 1e6
                 for kernel in KERNELS}
        extra.update({f"{kernel}_s": best[kernel] for kernel in KERNELS})
        return AppResult.of_job(job, extra)


def stream_main(mpi, sim: StreamSim):
    """Rank program; rank 0 returns each kernel's best time over trials 2..ntimes (s), the
    slowest rank's time between the barriers around the kernel."""
    comm = mpi.COMM_WORLD
    elements = sim.local_elements(comm.rank)
    work = {kernel: kernel_tasklist(kernel, elements, sim.write_allocate) for kernel in KERNELS}
    best = {kernel: float("inf") for kernel in KERNELS}
    for trial in range(sim.ntimes):
        for kernel in KERNELS:
            comm.barrier()
            start = mpi.wtime()
            mpi.compute(work[kernel])
            comm.barrier()
            if trial > 0:
                best[kernel] = min(best[kernel], mpi.wtime() - start)
    return best if comm.rank == 0 else None


def _build(ranks: int, params: dict) -> StreamSim:
    if params["write_allocate"] not in (0, 1):
        raise ConfigError(f"app.write_allocate must be 0 or 1, got {params['write_allocate']}")
    return StreamSim(ranks, params["array_elements"], params["ntimes"], bool(params["write_allocate"]))


register(AppModel(
    "stream", "STREAM copy, scale, add, triad: memory bandwidth in MB/s",
    {"array_elements": Param(80_000_000, "doubles per array, all ranks together (STREAM_ARRAY_SIZE; "
                                         "STREAM's rule: each array at least 4x the last-level caches)"),
     "ntimes": Param(10, "trials; the best of trials 2..ntimes is reported (STREAM's NTIMES)"),
     "write_allocate": Param(1, "1: plain stores read each line first and write it back; "
                                "0: non-temporal stores")},
    _build, source="J. D. McCalpin, STREAM (https://www.cs.virginia.edu/stream/ref.html)",
    columns=(("copy_MBps", "Copy MB/s"), ("scale_MBps", "Scale MB/s"), ("add_MBps", "Add MB/s"),
             ("triad_MBps", "Triad MB/s"))))

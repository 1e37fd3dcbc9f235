"""Functions and constants of mpi4py's ``MPI`` module itself, as methods of a rank's MPI object.

Each function takes the rank's :class:`ppt.mpi.surface.api.MPI` as ``self``.  Times
are simulated seconds; ``Get_processor_name`` names the rank's simulated
node as Cray systems name theirs (``nid00012``); ``Finalize`` is per rank.
"""
from __future__ import annotations

from ppt.mpi.errors import AfterFinalize
from ppt.mpi.surface.buffers.arguments import address_of
from ppt.mpi.surface.core.calls import mpi_call
from ppt.mpi.surface.core.fast import FINALIZED
from ppt.mpi.surface.core.nulls import NULLS

#: The MPI standard version the simulated MPI's calls follow (MPI_Get_version).
VERSION, SUBVERSION = 3, 1
#: Resolution of MPI.Wtime(), s: the simulated clock is a float of seconds (MPICH reports 1e-9 too).
WTICK_S = 1e-9
#: Thread support levels, MPICH's values; the simulated ranks are single threads, so any level is granted.
THREAD_SINGLE, THREAD_FUNNELED, THREAD_SERIALIZED, THREAD_MULTIPLE = 0, 1, 2, 3


def Wtick(self) -> float:
    return WTICK_S


def Get_processor_name(self) -> str:
    """The simulated node of this rank: ``nid`` and its node number in five digits."""
    return f"nid{self.node:05d}"


@mpi_call("MPI_Init")
def Init(self) -> None:
    """Initialise the library, as mpi4py does when it is imported unless ``mpi4py.rc.initialize`` is False;
    a second initialisation is refused, as MPICH refuses it."""
    _initialize(self, "MPI_Init")


@mpi_call("MPI_Init_thread")
def Init_thread(self, required: int = THREAD_MULTIPLE) -> int:
    _initialize(self, "MPI_Init_thread")
    return required


def _initialize(self, call: str) -> None:
    if self.initialized:
        raise self._rank.error("cannot call MPI_INIT or MPI_INIT_THREAD more than once (mpi4py initialises MPI "
                               "when it is imported unless mpi4py.rc.initialize is False)", call)
    self.initialized = True


def Query_thread(self) -> int:
    return THREAD_MULTIPLE


def Finalize(self) -> None:
    """Mark this rank's MPI finalized (MPI.Is_finalized() is then True): any MPI call after it is refused
    (a second Finalize too), as MPICH refuses it."""
    rank = self._rank
    if rank.call is FINALIZED:
        raise AfterFinalize(rank.world_rank, "MPI_Finalize")
    rank.stats.count("MPI_Finalize")
    self.finalized = True
    rank.call = FINALIZED


def Is_initialized(self) -> bool:
    return self.initialized


def Is_finalized(self) -> bool:
    return self.finalized


def Is_thread_main(self) -> bool:
    return True


def Get_version(self) -> tuple[int, int]:
    return VERSION, SUBVERSION


def Get_library_version(self) -> str:
    return (f"PPT simulated MPI {VERSION}.{SUBVERSION} (mpi4py API; point-to-point, collectives, "
            "communicators, groups and Cartesian topologies)")


def Compute_dims(self, nnodes: int, dims) -> list[int]:
    """MPI_Dims_create: ``dims`` (a count of dimensions, or a list with 0 for free ones) filled so
    their product is ``nnodes``, the free ones as balanced as can be and in decreasing order."""
    dims = [0] * dims if isinstance(dims, int) else [int(d) for d in dims]
    fixed = 1
    for d in dims:
        if d < 0:
            raise self._rank.error(f"Compute_dims: dimension {d} is negative", "MPI_Dims_create")
        fixed *= d or 1
    free = [i for i, d in enumerate(dims) if d == 0]
    if nnodes % fixed or not free and fixed != nnodes:
        raise self._rank.error(f"Compute_dims: {nnodes} processes do not fit the fixed dimensions {dims}",
                               "MPI_Dims_create")
    for i, size in zip(free, balanced_factors(nnodes // fixed, len(free))):
        dims[i] = size
    return dims


def balanced_factors(n: int, count: int) -> list[int]:
    """``n`` split into ``count`` factors as equal as can be, largest first (MPI_Dims_create's rule)."""
    sizes = [1] * count
    for factor in _prime_factors(n):      # largest first, each to the smallest factor so far
        sizes[sizes.index(min(sizes))] *= factor
    return sorted(sizes, reverse=True)


def _prime_factors(n: int) -> list[int]:
    factors, p = [], 2
    while p * p <= n:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    if n > 1:
        factors.append(n)
    return sorted(factors, reverse=True)


def Attach_buffer(self, buf) -> None:
    """Bsend's buffer: kept for Detach_buffer; buffered sends are modelled without one."""
    self.bsend_buffer = buf


def Detach_buffer(self):
    """The buffer Attach_buffer gave (None if none)."""
    buf, self.bsend_buffer = self.bsend_buffer, None
    return buf


def Alloc_mem(self, size: int, info=None) -> bytearray:
    """Memory for buffers (MPI_Alloc_mem): a bytearray of ``size`` bytes."""
    return bytearray(int(size))


def Free_mem(self, mem) -> None:
    """Nothing to release: the memory is garbage collected."""


def Pcontrol(self, level: int) -> None:
    """Profiling control: accepted and ignored."""


def Get_address(self, location) -> int:
    """The address of buffer ``location`` (a dynamic RMA window's displacement of it)."""
    return address_of(self._rank, location)


def Aint_add(self, base: int, disp: int) -> int:
    return int(base) + int(disp)


def Aint_diff(self, addr1: int, addr2: int) -> int:
    return int(addr1) - int(addr2)


def _group_empty(self):
    return self.group(())


#: The functions and constants above, by their names in mpi4py's MPI module.
FUNCTIONS = {
    **{fn.__name__: fn for fn in (Wtick, Get_processor_name, Init, Init_thread, Query_thread, Finalize,
                                  Is_initialized, Is_finalized, Is_thread_main, Get_version, Get_library_version,
                                  Compute_dims, Attach_buffer, Detach_buffer, Alloc_mem, Free_mem, Pcontrol,
                                  Get_address, Aint_add, Aint_diff)},
    "VERSION": VERSION, "SUBVERSION": SUBVERSION, "THREAD_SINGLE": THREAD_SINGLE,
    "THREAD_FUNNELED": THREAD_FUNNELED, "THREAD_SERIALIZED": THREAD_SERIALIZED, "THREAD_MULTIPLE": THREAD_MULTIPLE,
    "MAX_PROCESSOR_NAME": 128, "MAX_OBJECT_NAME": 128, "MAX_ERROR_STRING": 512, "BSEND_OVERHEAD": 96,
    "MAX_LIBRARY_VERSION_STRING": 8192, "SUCCESS": 0,
    "COMM_TYPE_SHARED": 1, "ERRORS_RETURN": None, "ERRORS_ARE_FATAL": None, "ERRORS_ABORT": None,
    "GROUP_EMPTY": property(_group_empty), **NULLS,
}

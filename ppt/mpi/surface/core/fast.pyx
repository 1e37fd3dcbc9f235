# cython: language_level=3, boundscheck=False, wraparound=False
"""The compiled surface of point-to-point MPI: the calls a Python program makes most, in C.

A program's ``comm.isend``, ``comm.irecv``, ``comm.send``, ``comm.recv``, mpi4py's ``Send``, ``Isend``,
``Recv`` and ``Irecv`` of buffers (large sends lending their buffer to the message: :class:`Lent`),
``mpi.wait``, ``mpi.test`` and ``mpi.waitall`` run here, with the bookkeeping every top-level MPI call gets (:func:`mpi_call`:
counting, timing, the freed check, the CPU meter, a lowercase call's object-layer cost from
``mpi.object_overhead_s``), without a Python frame between the program and
the compiled MPI engine; so do a communicator's fields those calls read (:class:`CommCore`), the hand-over of a
collective call's schedule to the engine (:class:`Handover`) and the run loop that resumes the ranks
(:func:`resume_ranks`).  On the compiled engine the rank (:class:`RankCore`, the base of
:class:`ppt.mpi.engine.program.CompiledRank`) and its requests (:class:`EngineRequest`) are C
structures and the engine's calls are plain C calls, made with the interpreter lock held.  A replay's
planning rank (:mod:`ppt.mpi.engine.replay`), which sends nothing itself, is called through its Python
methods.

The engine is compiled once, into its own extension (``ppt.mpi.engine.core``); this module calls
it through pointers to its functions, bound at import from that extension, so both reach one engine
and one state.  Times are in seconds, sizes in bytes.
"""
import functools

from cpython.dict cimport PyDict_GetItem, PyDict_SetItem
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_REFCNT
from cpython.pythread cimport PyThread_get_thread_ident
from libc.math cimport NAN
from libc.signal cimport SIGBUS, SIGFPE, SIGILL, SIGSEGV, signal, sighandler_t
from libc.stdint cimport int32_t, int64_t, uintptr_t
from libc.string cimport strlen
from posix.time cimport CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID, clock_gettime, timespec

import numpy as np

from ppt.mpi.engine.core import ffi, lib
from ppt.mpi.constants import ANY_SOURCE, ANY_TAG, PROC_NULL, STANDARD
from ppt.mpi.collectives.payload import sized_copy, snapshot
from ppt.mpi.errors import AfterFinalize, OtherThread
from ppt.mpi.surface.buffers.arguments import Buf, fill, message, outgoing, raw_bytes, truncated, whole_array
from ppt.mpi.surface.core.requests import Status

cdef extern from *:
    """
    #include <stdint.h>
    struct ppt_net; struct ppt_histogram; struct ppt_flows; struct ppt_remote; struct ppt_core_api;
    #include "mpicore.h"

    /* The engine's calls made here: pointers of the header's own types (surface_isend for
     * ppt_mpi_isend ...), bound by surface_bind to the engine's functions in its extension, in
     * the order of SURFACE_CALLS. */
    #define SURFACE_CALLS(X) X(isend) X(irecv) X(req_done) X(req_status) X(wait_one) X(wait_in_turn) \\
        X(unblock) X(owed) X(set_owed) X(clock) X(program_run) X(run_state) X(run) X(need_rank)
    #define SURFACE_POINTER(name) static __typeof__(&ppt_mpi_##name) surface_##name;
    SURFACE_CALLS(SURFACE_POINTER)
    #define SURFACE_NAME(name) "ppt_mpi_" #name,
    static const char *const surface_names[] = {SURFACE_CALLS(SURFACE_NAME)};
    static const int surface_count = sizeof surface_names / sizeof surface_names[0];

    static void surface_bind(const uintptr_t *address)
    {
        int k = 0;
    #define SURFACE_SET(name) surface_##name = (__typeof__(surface_##name))address[k++];
        SURFACE_CALLS(SURFACE_SET)
    }
    """
    ctypedef struct ppt_mpi_t:
        pass
    const char *const surface_names[]
    const int surface_count
    void surface_bind(const uintptr_t *address)
    int32_t surface_isend(ppt_mpi_t *m, int32_t rank, int32_t dst, int32_t ctx, int64_t tag, int64_t nbytes,
                          int32_t mode, int64_t payload)
    int32_t surface_irecv(ppt_mpi_t *m, int32_t rank, int32_t src, int32_t ctx, int64_t tag)
    int32_t surface_req_done(const ppt_mpi_t *m, int32_t req)
    void surface_req_status(const ppt_mpi_t *m, int32_t req, int64_t *out)
    int32_t surface_wait_one(ppt_mpi_t *m, int32_t rank, int32_t req, int64_t *out)
    int32_t surface_wait_in_turn(ppt_mpi_t *m, int32_t rank, const int32_t *reqs, int32_t n, int64_t *out)
    void surface_unblock(ppt_mpi_t *m, int32_t rank, const int32_t *reqs, int32_t n)
    double surface_owed(const ppt_mpi_t *m, int32_t rank)
    void surface_set_owed(ppt_mpi_t *m, int32_t rank, double owed_s)
    double surface_clock(const ppt_mpi_t *m, int32_t rank)
    int32_t surface_program_run(ppt_mpi_t *m, int32_t rank, const int32_t *schedule, const int64_t *sizes,
                                int32_t nslots, const int32_t *members, int32_t ctx, int64_t tag, int32_t hdr_call,
                                int32_t hdr_root)
    int32_t surface_run_state(const ppt_mpi_t *m, int32_t rank, int64_t *out)
    int32_t surface_run(ppt_mpi_t *m)
    int32_t surface_need_rank(const ppt_mpi_t *m)
    enum:
        PPT_MPI_NEED_RESUME


cdef void _bind_engine() except *:
    """Point every call of SURFACE_CALLS at the engine's function in its extension."""
    cdef uintptr_t address[32]
    assert surface_count <= 32
    for k in range(surface_count):
        address[k] = int(ffi.cast("uintptr_t", ffi.addressof(lib, surface_names[k].decode())))
    surface_bind(address)


_bind_engine()


cdef inline uintptr_t address(cdata) except? 0:
    """The address a cffi pointer or array holds."""
    return int(ffi.cast("uintptr_t", cdata))


# -- the rank in progress, for a crash's report --------------------------------------------------------
# A crash of the interpreter (a fault in a C extension a rank called) ends every simulated rank at once:
# the signal handler below names the rank that ran and the MPI call it was in or made last.  The rank that
# runs is noted whenever one starts or ends a top-level call, and when one wakes from a sleep (running).
cdef extern from "<unistd.h>":
    ssize_t write(int fd, const void *buf, size_t count) nogil
    void _exit(int status) nogil

cdef int _crash_rank = -1
cdef const char *_crash_call = NULL
#: The UTF-8 bytes of every MPI call name a rank made, kept alive for the ranks' ``last_name``.
cdef dict _call_names = {}
cdef int[4] _WATCHED = [SIGSEGV, SIGBUS, SIGILL, SIGFPE]
cdef sighandler_t[4] _previous


cdef inline const char *_c_name(str name) except NULL:
    encoded = _call_names.get(name)
    if encoded is None:
        encoded = _call_names[name] = name.encode()
    return <bytes>encoded


cdef inline void _runs(RankCore core) noexcept:
    """Rank ``core`` is the one that runs."""
    global _crash_rank, _crash_call
    _crash_rank = core.me - core.base
    _crash_call = core.last_name


def running(RankCore core):
    """Note rank ``core`` as the one that runs (it woke from a sleep)."""
    _runs(core)


cdef void _say(const char *text) noexcept nogil:
    write(2, text, strlen(text))


cdef void _crashed(int sig) noexcept nogil:
    """The one line of a crash on stderr (async-signal-safe calls only); the process then ends with the
    signal's number as its status, as mpiexec (MPICH) ends a job one of whose processes a signal killed."""
    cdef char digits[12]
    cdef int n = 11, rank = _crash_rank
    digits[11] = 0
    while True:
        n -= 1
        digits[n] = 48 + rank % 10
        rank //= 10
        if rank <= 0:
            break
    _say(b"ppt exec: rank ")
    if _crash_rank >= 0:
        _say(&digits[n])
    else:
        _say(b"?")
    _say(b" crashed (")
    if sig == SIGSEGV:
        _say(b"SIGSEGV")
    elif sig == SIGBUS:
        _say(b"SIGBUS")
    elif sig == SIGILL:
        _say(b"SIGILL")
    else:
        _say(b"SIGFPE")
    if _crash_call != NULL:
        _say(b") in or after ")
        _say(_crash_call)
    else:
        _say(b") before its first MPI call")
    _say(b"; the ranks' output so far is above\n")
    _exit(sig)


def watch_crashes(bint on):
    """Report a crash of the interpreter in one line naming the rank and its MPI call (``on``), or give
    the signals back to the handlers they had (``off``)."""
    global _crash_rank, _crash_call
    for k in range(4):
        if on:
            _previous[k] = signal(_WATCHED[k], _crashed)
        else:
            signal(_WATCHED[k], _previous[k])
    _crash_rank, _crash_call = -1, NULL


def noted() -> tuple:
    """``(world rank, MPI call)`` of the rank that runs, as a crash's report names them (-1 and None
    before any)."""
    return _crash_rank, None if _crash_call == NULL else _crash_call.decode()


cdef class RankCore
cdef class Lent


# -- the CPU meter of ppt exec ---------------------------------------------------------------------------
cdef inline double thread_cpu_s() noexcept nogil:
    """This thread's CPU clock, s (the one clock all simulated ranks share: they are greenlets of it)."""
    cdef timespec ts
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return <double>ts.tv_sec + 1e-9 * <double>ts.tv_nsec


cdef inline double wall_s() noexcept nogil:
    """The monotonic wall clock, s (read without a system call where the C library can)."""
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return <double>ts.tv_sec + 1e-9 * <double>ts.tv_nsec


def thread_cpu() -> float:
    """This thread's CPU clock, s, read as :class:`CpuMeter` reads it."""
    return thread_cpu_s()


def wall() -> float:
    """The monotonic wall clock, s, read as :class:`CpuMeter` reads it."""
    return wall_s()


#: Retired requests a :class:`CpuMeter` holds at most.
cdef Py_ssize_t HELD = 256
#: Intervals of the wall clock up to this long are measured on it, longer ones on the thread's CPU clock, s.
cdef double SHORT_S = 50e-6


cdef class CpuMeter:
    """Charges each rank ``scale`` times the CPU time its own code used between two MPI calls (``scale``:
    simulated seconds per second of this host's CPU, 0.5 for a target twice as fast).

    A rank's interval runs from the clock reads at the end of one top-level MPI call (:func:`end`) to the
    read at the start of the next (:func:`begin`).  Two clocks: the thread's CPU clock, a system call on
    many hosts (about 0.7-0.9 us on a virtual machine, and as noisy), and the monotonic wall clock (tens of
    ns, no system call).  An interval up to SHORT_S long on the wall clock is measured on it: a time slice
    given to another process would have made it longer.  A longer one is measured on the CPU clock, read
    again at its end, so that other processes' time never counts.

    An interval also holds PPT's own work, measured by :func:`ppt.exec.meter.cpu_meter` and taken off:
    ``read_s`` (``cpu_read_s`` on the CPU clock), what it holds of the clock reads (the gap between
    back-to-back reads), and by MPI call name, ``exit_s``, the surface's way out of the call that starts
    the interval (its objects freed), and ``entry_s``, its way into the call that ends it (its arguments
    taken); ``default_s``: either, for a call not measured; nothing for the program's own start and end.
    What is taken off may exceed an interval: the rank then keeps the difference as a credit
    (``RankCore.meter_credit_s``, <= 0) that its later intervals use up, so over a run a rank is charged
    its CPU time less PPT's, never below nothing, and noise evens out instead of piling up.  ``samples``: a
    list that, when given, gets ``(call, wall_s, interval_s)`` at every call's entry.  The charge is
    compute time of the rank (``RankStats.compute_s``) owed to its clock, so a send that follows leaves
    after it."""

    cdef public double scale, read_s, cpu_read_s, default_s
    cdef public dict entry_s, exit_s
    cdef public list samples
    cdef list held

    def __init__(self, double scale=1.0, double read_s=0.0, double cpu_read_s=0.0, entry_s=None, exit_s=None,
                 double default_s=0.0, samples=None):
        self.scale = scale
        self.read_s = read_s
        self.cpu_read_s = cpu_read_s
        self.entry_s = dict(entry_s or {})
        self.exit_s = dict(exit_s or {})
        self.default_s = default_s
        self.samples = samples
        self.held = []

    cdef int charge(self, RankCore core, double now, name) except -1:
        """Charge rank ``core`` what its code used from its marks until ``now`` (the wall clock, s), when it
        enters call ``name`` (None: a call the surface does not make)."""
        cdef double entry = 0.0 if name is None else <double>self.entry_s.get(name, self.default_s)
        cdef double interval = now - core.wall_mark
        cdef double reads = self.read_s
        if interval > SHORT_S:
            interval = thread_cpu_s() - core.cpu_mark
            reads = self.cpu_read_s
        cdef double used = core.meter_credit_s + interval - reads - core.meter_exit_s - entry
        if self.samples is not None:
            self.samples.append((name, now, interval))
        self.sweep()
        if used <= 0.0:
            core.meter_credit_s = used
            return 0
        core.meter_credit_s = 0.0
        used *= self.scale
        surface_set_owed(core.m_core, core.me, surface_owed(core.m_core, core.me) + used)
        core.stats.compute_s += used
        return 0

    cdef int hold(self, request) except -1:
        """Keep retired ``request`` until the program lets go of it, so that it is freed inside an MPI call
        (:meth:`sweep`), in PPT's time, rather than in the program's."""
        self.held.append(request)
        if len(self.held) > HELD:
            del self.held[:len(self.held) - HELD]
        return 0

    cdef int sweep(self) except -1:
        """Free the held requests the program no longer refers to."""
        if self.held:
            self.held = [r for r in self.held if Py_REFCNT(r) > 2]   # the list's reference and r's
        return 0

    cdef inline void mark(self, RankCore core, name) noexcept:
        """The rank's code runs again, after call ``name``: its interval starts at these reads (the wall
        clock's last, as the cheaper and nearer to the program)."""
        core.meter_exit_s = 0.0 if name is None else <double>self.exit_s.get(name, self.default_s)
        core.cpu_mark = thread_cpu_s()
        core.wall_mark = wall_s()

    def start(self, RankCore rank) -> None:
        """The rank's code runs from now on (it started, or left a call the surface does not make)."""
        self.mark(rank, None)

    def stop(self, RankCore rank) -> None:
        """The rank's code stops running (it ended, or entered a call the surface does not make): charge it."""
        self.charge(rank, wall_s(), None)

    def lap(self, RankCore rank) -> None:
        """Charge what the rank used so far and go on measuring (before its clock is read)."""
        self.charge(rank, wall_s(), None)
        self.mark(rank, None)


# -- every top-level MPI call ------------------------------------------------------------------------
cdef inline double _clock(rank) except? -1.0:
    """The rank's clock, s (the engine's time plus the overhead it owes)."""
    if isinstance(rank, RankCore):
        return surface_clock((<RankCore>rank).m_core, (<RankCore>rank).me)
    return rank.clock_s()


cdef inline RankCore core_of(rank):
    """``rank`` if it is the compiled engine's (its fields then read in C), else None."""
    return <RankCore>rank if isinstance(rank, RankCore) else None


#: A rank's ``call`` once it called MPI_Finalize: any MPI call after it is refused (:class:`AfterFinalize`).
FINALIZED = "after MPI_Finalize"


cdef inline int count(calls, str name) except -1:
    """``calls[name] += 1`` on a rank's call counts (a Counter) through the dict's own calls: the Counter's
    ``__delitem__`` sends every item assignment through a Python-level slot."""
    cdef PyObject *found = PyDict_GetItem(calls, name)
    PyDict_SetItem(calls, name, 1 if found == NULL else <object>found + 1)
    return 0


cdef inline bint freed(owner) except -1:
    """Whether ``owner`` (a communicator, group, window ...) was freed."""
    if isinstance(owner, CommCore):
        return (<CommCore>owner).freed
    return getattr(owner, "freed", False)


cdef double begin(owner, rank, str name) except? -1.0:
    """Start MPI call ``name`` of ``owner`` (an object with a ``_rank``, ``rank``) if it is the rank's top-level
    call: count it, stop the CPU meter, return the rank's clock (s); NaN inside another MPI call."""
    cdef RankCore core = core_of(rank)
    call = rank.call if core is None else core.call
    if call is not None:
        if call is FINALIZED:
            raise AfterFinalize(rank.world_rank, name)
        return NAN
    cdef double entered = wall_s() if core is not None and core.meter is not None else 0.0
    if freed(owner):
        raise rank.error(f"{owner} was freed; it cannot be used any more", name)
    if core is None:
        rank.call = name
    else:
        if core.thread != PyThread_get_thread_ident():
            if core.thread:
                raise OtherThread(rank.world_rank, name)
            core.thread = PyThread_get_thread_ident()
        core.call = name
        core.last_name = _c_name(name)
        _runs(core)
    if core is None:
        if rank.meter is not None:
            rank.meter.stop(rank)
    elif core.meter is not None:       # ppt exec: the program's CPU time since it left MPI is compute
        (<CpuMeter?>core.meter).charge(core, entered, name)
    start = _clock(rank)
    count((rank.stats if core is None else core.stats).calls, name)
    return start


cdef int end(rank, double start) except -1:
    """End the top-level call :func:`begin` started at ``start`` (s; NaN: not a top-level call): its time is
    communication time, and the CPU meter runs again."""
    if start != start:
        return 0
    cdef RankCore core = core_of(rank)
    stats = rank.stats if core is None else core.stats
    stats.comm_s += _clock(rank) - start
    if core is None:
        rank.call = None
        if rank.meter is not None:
            rank.meter.start(rank)
        return 0
    name = core.call
    core.call = None
    _runs(core)
    if core.meter is not None:         # the last thing before the program runs again
        (<CpuMeter?>core.meter).mark(core, name)
    return 0


cdef inline double object_cost(rank, str kind):
    """What the rank's top-level lowercase call ``kind`` costs in mpi4py's object layer, s (0 off the compiled
    engine, or when its job's ``mpi.object_overhead_s`` names no cost: see :mod:`ppt.mpi.settings`)."""
    if not isinstance(rank, RankCore) or (<RankCore>rank).object_costs is None:
        return 0.0
    return (<RankCore>rank).object_costs.get(kind, 0.0)


cdef inline double call_cost(rank, str name):
    """What the rank's top-level call ``name`` (``MPI_...``) costs beyond its messages, s (0 off the compiled
    engine, or when its job's ``mpi.call_overhead_s`` names no cost)."""
    if not isinstance(rank, RankCore) or (<RankCore>rank).call_costs is None:
        return 0.0
    return (<RankCore>rank).call_costs.get(name, 0.0)


cdef inline int owe(rank, double cost_s) except -1:
    """The rank owes ``cost_s`` more of software overhead (a compiled engine's rank; nothing if 0)."""
    cdef RankCore core
    if cost_s:
        core = <RankCore>rank
        surface_set_owed(core.m_core, core.me, surface_owed(core.m_core, core.me) + cost_s)
    return 0


def mpi_call(str name, str lowercase=None):
    """Decorate a method of an object with a ``_rank`` attribute as the MPI call ``name``.

    The outermost call of a rank is counted and timed (``RankStats.comm_s``);
    calls made inside it (a collective's point-to-point messages) are not.
    The outermost call owes its ``mpi.call_overhead_s`` before it runs and, if it is a lowercase call
    (``lowercase``: its kind in ``mpi.object_overhead_s``, ``"allreduce"`` ...), its kind's object cost.
    A rank with a CPU meter (``Rank.meter``, see :mod:`ppt.exec.meter`) is
    charged the compute time its code used before the call.
    A call on a freed communicator or group raises an MPIError.
    """
    def decorate(fn):
        @functools.wraps(fn)
        def call(self, *args, **kwargs):
            rank = self._rank
            cdef double start = begin(self, rank, name)
            try:
                if start == start:
                    owe(rank, call_cost(rank, name) + (object_cost(rank, lowercase) if lowercase is not None else 0.0))
                return fn(self, *args, **kwargs)
            finally:
                end(rank, start)
        return call
    return decorate


# -- requests of the compiled engine --------------------------------------------------------------------
cdef class EngineRequest:
    """A request whose state is the engine's: ``done``, ``status`` and ``value`` (``q``: its index there;
    -1 once it needs none).  A receive's result is read from the engine once: ``raw`` (world source,
    engine tag, bytes) and its payload in ``data``; its Status is built from ``raw`` when first asked for.
    ``active``: not yet retired by a wait or test; ``buffer``: mpi4py's receive buffer, if any; ``due_s``: the
    object layer's cost a lowercase ``irecv``'s rank owes when the request is retired, s."""

    cdef public RankCore _rank
    cdef public bint is_send, active
    cdef public double due_s
    cdef public object comm, peer, tag, nbytes, data, raw, built, buffer
    cdef public int64_t ctx
    cdef public int32_t q
    #: A receive with a large buffer of its own: its serial, under which its engine's ``receivers`` holds it
    #: (:meth:`listen`), else 0.
    cdef int64_t listed

    def __init__(self, rank, bint is_send, comm, peer, tag, ctx, nbytes=0, data=None):
        """An active request of ``rank``'s, not yet in the engine; ``nbytes`` and ``data``: a send's."""
        self.reset(rank, is_send, comm, peer, tag, ctx, nbytes, data)

    cdef reset(self, RankCore rank, bint is_send, comm, peer, tag, int64_t ctx, nbytes, data):
        self._rank, self.is_send, self.comm, self.peer, self.tag, self.ctx = rank, is_send, comm, peer, tag, ctx
        self.nbytes, self.data, self.raw, self.built, self.q = nbytes, data, None, None, -1
        self.active, self.buffer, self.due_s, self.listed = True, None, 0.0, 0

    def listen(self, target):
        """Receive into ``target`` (mpi4py's receive buffer, a parsed message); a large one is listed by the
        request's serial in the engine, so that a send lending its buffer (:class:`Lent`) may copy its data
        straight there."""
        self.buffer = target
        if self.q >= 0 and isinstance(self._rank, RankCore) and room_B(target) >= LEND_B:
            self.listed = lib.ppt_mpi_req_serial(self._rank.m_cdata, self.q)
            self._rank.engine.receivers[self.listed] = self

    def _restart(self, *args):
        """This request (a persistent one starting, or a request of a subclass) made anew as by
        ``__init__`` with ``args``; returns it."""
        EngineRequest.__init__(self, *args)
        return self

    @property
    def done(self) -> bool:
        return self.q < 0 or surface_req_done(self._rank.m_core, self.q) != 0

    def __bool__(self):
        """False once a wait or test retired the request (mpi4py's REQUEST_NULL); a persistent one (with a
        ``start``) stays true."""
        return self.active or hasattr(self, "start")

    cdef int received(self) except -1:
        """Read a completed receive's result from the engine (once)."""
        cdef int64_t out[4]
        if self.raw is None:
            surface_req_status(self._rank.m_core, self.q, out)
            self.keep(out)
        return 0

    cdef int keep(self, const int64_t *status) except -1:
        """Keep a receive's world source, tag and bytes, and take its payload (handle status[3]; 0: none)."""
        engine = self._rank.engine
        self.raw = (world_rank(self._rank, status[0]), status[1], status[2])
        self.data = engine.payloads.pop(status[3], None) if status[3] else None
        if self.listed:
            del engine.receivers[self.listed]
            self.listed = 0
        return 0

    cdef int taken(self, const int64_t *status) except -1:
        """The engine took and released the request, giving its status and payload handle (a send: the
        serial of the receive its rendezvous matched, in status[0]); a send that lent its buffer takes it
        back."""
        self.q = -1
        if self.is_send:
            if type(self.data) is Lent:
                (<Lent>self.data).taken_back(self._rank, status[0])
        elif self.raw is None:
            self.keep(status)
        return 0

    @property
    def status(self):
        if self.raw is None:
            if self.is_send or not self.done:
                return None
            self.received()
        status = self.built
        if status is None:
            source, tag, nbytes = self.raw
            status = self.built = Status(self.comm.local_of(source) if source >= 0 else source,
                                         self._rank.engine.tag_of(tag), nbytes)
        return status

    @property
    def value(self):
        if not self.is_send and self.raw is None:
            if not self.done:
                return None
            self.received()
        if type(self.data) is Lent:
            self.data = (<Lent>self.data).copied()
        return self.data


#: Sends of contiguous numpy data of at least this many bytes lend their buffer (:class:`Lent`).
LEND_B = 1 << 16


cdef class Lent:
    """The payload of a send that lends its buffer to the message (``array``, a view of the send buffer).

    MPI lets a sender change its buffer only once it has the send back, complete (a wait or test), so
    until then the receive copies the data from there, once, instead of from a snapshot taken at the send.
    A sender that has the send back first copies the data into the receive's buffer, if a rendezvous named
    the receive and it waits with a buffer of its own with room (:meth:`EngineRequest.listen`), else into
    a snapshot that the receive copies from later."""

    cdef object array
    #: delivered: the data is in the receive's buffer; own: ``array`` is a snapshot, no longer the sender's.
    cdef bint delivered, own

    def __cinit__(self, array):
        self.array = array
        self.delivered = self.own = False

    def __reduce__(self):
        """A message to another simulation process goes as the data (pickled, which copies it)."""
        return np.asarray, (self.array,)

    cdef int taken_back(self, RankCore sender, int64_t matched) except -1:
        """The sender has its send back, which the receive of serial ``matched`` (-1: none known) took."""
        if self.delivered or self.own:
            return 0
        cdef EngineRequest receiver = sender.engine.receivers.get(matched) if matched > 0 else None
        if receiver is not None and receiver.active and room_B(receiver.buffer) >= self.array.nbytes:
            fill_buffer(receiver._rank, receiver.buffer, self.array)
            self.delivered = True
            self.array = None
        else:
            self.array = snapshot(self.array)
            self.own = True
        return 0

    cdef int copy_into(self, rank, target) except -1:
        """Copy the data into receive buffer ``target`` (unless the sender did)."""
        if not self.delivered:
            fill_buffer(rank, target, self.array)
            self.delivered = True
            self.array = None
        return 0

    cdef object copied(self):
        """The data as the receive's own array (a receive without a buffer)."""
        array = self.array if self.own else snapshot(self.array)
        self.delivered = True
        self.array = None
        return array


cdef object lend(array, int64_t nbytes):
    """What a send of ``array`` (numpy elements of a contiguous datatype, ``nbytes`` bytes on the wire)
    carries: a :class:`Lent` of it if it is large enough to pay, else the array (the send snapshots it)."""
    if nbytes >= LEND_B and type(array) is np.ndarray and not array.dtype.hasobject:
        return Lent(array)
    return array


cdef class Whole:
    """A receive buffer in mpi4py's commonest form, ``[array, datatype]`` with a C-contiguous array of the
    predefined datatype's elements, whole: its bytes ``raw`` (:class:`~ppt.mpi.surface.buffers.arguments.Buf`
    reads every other form)."""

    cdef object raw
    cdef object dtype

    def __cinit__(self, array):
        self.raw = array.reshape(-1).view(np.uint8)
        self.dtype = array.dtype

    cdef int put(self, rank, value) except -1:
        """Copy received ``value`` in (raw bytes, as ``Buf.put``; None: nothing to copy)."""
        if value is None:
            return 0
        raw = raw_bytes(value, self.dtype)
        cdef Py_ssize_t n = raw.size
        if n > self.raw.size:
            raise truncated(rank, n, self.raw.size)
        self.raw[:n] = raw
        return 0


cdef Py_ssize_t room_B(target) except? -2:
    """Bytes receive buffer ``target`` holds in one piece (-1: none, or scattered by its datatype)."""
    if type(target) is Whole:
        return (<Whole>target).raw.size
    if type(target) is Buf and target.array is not None and target.datatype.contiguous:
        return target.nbytes(0)
    return -1


cpdef int fill_buffer(rank, target, value) except -1:
    """Copy received ``value`` (a payload, or the data of a :class:`Lent`) into receive buffer ``target`` (a
    :class:`Whole`, a ``Buf``, a message; None: the data is dropped)."""
    if target is None:
        return 0
    if type(value) is Lent:
        (<Lent>value).copy_into(rank, target)
    elif type(target) is Whole:
        (<Whole>target).put(rank, value)
    else:
        fill(rank, target, value)
    return 0


cpdef tuple outgoing_data(rank, msg):
    """``(payload, nbytes)`` of send buffer ``msg``, its data lent to the message if large (:func:`lend`); for an
    object with no buffer, the object (nbytes None)."""
    array = whole_array(msg)
    if array is not None:
        nbytes = array.nbytes
        return lend(array.reshape(-1), nbytes), nbytes
    data, nbytes = outgoing(rank, msg)
    return (data, nbytes) if nbytes is None else (lend(data, nbytes), nbytes)


cpdef object receiving(rank, msg):
    """The receive buffer message ``msg`` stands for (None: the data is dropped)."""
    if msg is None:
        return None
    array = whole_array(msg)
    return Whole(array) if array is not None else message(rank, msg, 1, "receive")


cdef tuple NO_ARGS = ()


# -- communicators -------------------------------------------------------------------------------
cdef class CommCore:
    """The part of a communicator (the base of :class:`ppt.mpi.surface.communicators.comm.Comm`) its
    point-to-point calls read in C: the rank that holds it (``_rank``), the world ranks of its ``members``
    (of an intercommunicator, its remote group's), its point-to-point context ``ctx``, and whether it was
    ``freed``."""

    cdef public object _rank, ctx
    cdef public bint freed
    cdef object member_list
    #: The first world rank of ``members`` if they are a range of step 1 (COMM_WORLD's), else -1.
    cdef int64_t first

    @property
    def members(self):
        return self.member_list

    @members.setter
    def members(self, value):
        self.member_list = value
        self.first = value.start if type(value) is range and value.step == 1 and value.start >= 0 else -1

    cdef inline int64_t world_of_member(self, Py_ssize_t i) except? -1:
        """The world rank of the communicator's rank ``i`` (``0 <= i < len(members)``)."""
        return self.first + i if self.first >= 0 else self.member_list[i]


# -- collectives of the compiled engine -----------------------------------------------------------------
cdef class Handover:
    """A collective schedule as a rank hands it to the engine (:meth:`RankCore.run_schedule`), prepared once
    for every call that runs it: the flattened schedule ``flat`` (a cffi int32 array), its slots' ``sizes``,
    the communicator's ``members`` (engine ranks) and their cffi array, the call's name id in the engine and
    its root (-1: none); ``waits_in``: what the rank waits in during the call, for deadlock reports."""

    cdef readonly object flat, members, waits_in
    cdef object arrays
    #: The C arrays of ``flat``, the sizes and the members.
    cdef const int32_t *c_flat
    cdef const int64_t *c_sizes
    cdef const int32_t *c_members
    cdef int32_t nslots, call, root

    def __init__(self, flat, sizes: list, members, members_array, waits_in, int32_t call, int32_t root):
        sizes_array = ffi.new("int64_t[]", sizes or [0])
        self.flat, self.members, self.waits_in, self.arrays = flat, members, waits_in, (sizes_array, members_array)
        self.c_flat = <const int32_t *>address(flat)
        self.c_sizes = <const int64_t *>address(sizes_array)
        self.c_members = <const int32_t *>address(members_array)
        self.nslots, self.call, self.root = len(sizes), call, root


def resume_ranks(m, list processes) -> int:
    """Run engine ``m`` (a cffi pointer), switching to the greenlet (``glet``) of each program rank's process
    (``processes``: by engine rank) where the engine resumes it, until it returns another status than
    PPT_MPI_NEED_RESUME; returns that status."""
    cdef ppt_mpi_t *engine = <ppt_mpi_t *>address(m)
    cdef int32_t status = surface_run(engine)
    while status == PPT_MPI_NEED_RESUME:
        processes[surface_need_rank(engine)].glet.switch()
        status = surface_run(engine)
    return status


cdef inline int64_t world_rank(RankCore core, int64_t engine_rank):
    """The world rank of ``core``'s job that is ``engine_rank`` in the engine (a wildcard or PROC_NULL as is)."""
    return engine_rank - core.base if engine_rank >= 0 else engine_rank


# -- ranks of the compiled engine --------------------------------------------------------------------
cdef class RankCore:
    """The part of a rank of the compiled engine its point-to-point calls use: the engine ``m`` (a cffi
    pointer), this rank's number there ``me``, its job's first engine rank ``base``; the rank's ``engine``
    (payloads and tags), ``proc``, ``stats``, the MPI ``call`` in progress, its CPU ``meter``, and the
    class of its nonblocking requests, ``request_class`` (an :class:`EngineRequest`); ``object_costs``: its job's
    ``mpi.object_overhead_s`` by call kind (s), None when no kind costs anything; ``call_costs`` likewise its
    ``mpi.call_overhead_s`` by MPI call."""

    cdef ppt_mpi_t *m_core
    cdef object m_cdata
    #: The MPI call the rank is in or made last (NULL before its first), for a crash's report.
    cdef const char *last_name
    cdef public int32_t me, base
    cdef public object engine, proc, stats, call, meter, request_class
    #: Under a :class:`CpuMeter`: this thread's CPU clock and the wall clock when the rank's code last started
    #: running, what of the interval since is the surface's way out of its last call, and the rank's credit
    #: (<= 0), s.
    cdef public double cpu_mark, wall_mark, meter_exit_s, meter_credit_s
    cdef public dict object_costs, call_costs
    #: The thread that made the rank's first MPI call (0 before it): MPI calls from any other are refused.
    cdef public unsigned long thread

    @property
    def m(self):
        return self.m_cdata

    @m.setter
    def m(self, value):
        self.m_cdata = value
        self.m_core = <ppt_mpi_t *>address(value)

    def world_of(self, int64_t engine_rank) -> int:
        """The world rank of the job's that is ``engine_rank`` in the engine (a wildcard or PROC_NULL as is)."""
        return world_rank(self, engine_rank)

    def engine_of(self, int64_t world) -> int:
        """The engine's number of the job's world rank ``world`` (a wildcard or PROC_NULL as is)."""
        return world + self.base if world >= 0 else world

    # -- the rank's clock ---------------------------------------------------------------------------
    def clock_s(self) -> float:
        """The rank's clock: now plus the overhead it owes, s."""
        return surface_clock(self.m_core, self.me)

    @property
    def owed_s(self) -> float:
        """Software overhead spent but not yet slept through, s (see :mod:`ppt.mpi.settings`)."""
        return surface_owed(self.m_core, self.me)

    @owed_s.setter
    def owed_s(self, double value):
        surface_set_owed(self.m_core, self.me, value)

    def pay(self):
        """Let the engine catch up with the rank's clock (sleep through what it owes)."""
        cdef double owed = surface_owed(self.m_core, self.me)
        if owed:
            surface_set_owed(self.m_core, self.me, 0.0)
            self.proc.sleep(owed)

    # -- point to point ----------------------------------------------------------------------------
    # ``dest`` and ``source``: PROC_NULL, ANY_SOURCE (receives) or a rank of ``comm``, checked by the caller
    cdef EngineRequest request(self, into, bint is_send, comm, peer, tag, int64_t ctx, nbytes, data):
        """A new request of :attr:`request_class`, or ``into`` (a persistent request starting), made anew."""
        cdef EngineRequest req
        if into is None:                # the class's own allocation, without the call machinery of __new__
            req = (<PyTypeObject *>self.request_class).tp_new(self.request_class, <PyObject *>NO_ARGS, NULL)
        else:
            req = into
        req.reset(self, is_send, comm, peer, tag, ctx, nbytes, data)
        return req

    cdef EngineRequest start_send(self, CommCore comm, dest, tag, nbytes, data, int64_t ctx, int32_t mode, into):
        cdef EngineRequest req = self.request(into, True, comm, dest, tag, ctx, nbytes, data)
        if dest == PROC_NULL:
            return req
        handle = self.engine.keep(data) if data is not None else 0
        req.q = surface_isend(self.m_core, self.me, comm.world_of_member(dest) + self.base, ctx,
                              tag if type(tag) is int else self.engine.tag_id(tag), nbytes, mode, handle)
        return req

    cdef EngineRequest start_recv(self, CommCore comm, source, tag, int64_t ctx, into):
        cdef EngineRequest req = self.request(into, False, comm, source, tag, ctx, 0, None)
        if source == PROC_NULL:
            req.raw = (PROC_NULL, ANY_TAG, 0)
            return req
        src = ANY_SOURCE if source == ANY_SOURCE else comm.world_of_member(source) + self.base
        req.q = surface_irecv(self.m_core, self.me, src, ctx, tag if type(tag) is int else self.engine.tag_id(tag))
        return req

    def isend(self, CommCore comm not None, dest, tag, nbytes, data, ctx, mode=STANDARD, into=None):
        """Start sending ``nbytes`` (payload ``data``) to rank ``dest`` of ``comm`` in send ``mode`` (``into``: a
        persistent request to start, else a new request)."""
        return self.start_send(comm, dest, tag, nbytes, data, ctx, mode, into)

    def irecv(self, CommCore comm not None, source, tag, ctx, into=None):
        """Post a receive from rank ``source`` of ``comm`` (or ANY_SOURCE); ``into`` as for :meth:`isend`."""
        return self.start_recv(comm, source, tag, ctx, into)

    # -- collectives ------------------------------------------------------------------------------------
    def run_schedule(self, Handover handover, int32_t ctx, int64_t tag) -> int:
        """Run ``handover`` for the rank's collective call in context ``ctx``, its messages tagged ``tag``, the
        process asleep until the rank's part is over: 1 once over, -1 stopped at a mismatched collective."""
        cdef int64_t out[8]
        cdef int32_t state = surface_program_run(self.m_core, self.me, handover.c_flat, handover.c_sizes,
                                                 handover.nslots, handover.c_members, ctx, tag, handover.call,
                                                 handover.root)
        if state == 0:
            self.proc.hibernate(handover.waits_in)
            state = surface_run_state(self.m_core, self.me, out)
        return state

    # -- blocking ---------------------------------------------------------------------------------------
    cpdef wait(self, req):
        """Block until ``req`` is complete; the rank takes it over (owing the receive overhead still due,
        once) and the engine releases it, its status and payload kept in the request."""
        cdef EngineRequest r = req
        cdef int32_t q = r.q
        cdef int64_t out[4]
        if q < 0:
            return
        while not surface_wait_one(self.m_core, self.me, q, out):
            self.proc.hibernate((req,))
            surface_unblock(self.m_core, self.me, &q, 1)
        r.taken(out)

    def take(self, req):
        """The rank takes over completed ``req`` (:meth:`wait`, which does not block for a complete request)."""
        self.wait(req)

    cpdef wait_all(self, requests):
        """:meth:`wait` on every active request of ``requests`` in turn, the process blocked once at most (the
        engine takes each request as it completes); the receives' statuses and payloads are kept in their
        requests."""
        live = {}
        for req in requests:                # each once: an engine index is one request's (a null one has none)
            if isinstance(req, EngineRequest) and (<EngineRequest>req).q >= 0:
                live[(<EngineRequest>req).q] = req
        cdef int32_t n = len(live), k = 0, i = 0
        if not n:
            return
        cdef int32_t *qs = <int32_t *>PyMem_Malloc(n * sizeof(int32_t))
        cdef int64_t *out = <int64_t *>PyMem_Malloc(4 * n * sizeof(int64_t))
        if qs == NULL or out == NULL:
            PyMem_Free(qs)
            PyMem_Free(out)
            raise MemoryError()
        try:
            for q in live:
                qs[i] = q
                i += 1
            k = surface_wait_in_turn(self.m_core, self.me, qs, n, out)
            if k < n:
                self.proc.hibernate(InTurn(self, tuple(live.values())))
                k = n
            i = 0
            for req in live.values():
                (<EngineRequest>req).taken(out + 4 * i)
                i += 1
        finally:
            if k < n:                       # the process was stopped while it waited
                lib.ppt_mpi_turn_drop(self.m_cdata, self.me)
            PyMem_Free(qs)
            PyMem_Free(out)


cdef class InTurn:
    """What a rank waiting on ``requests`` in turn waits in (its process's ``blocked_in``, for deadlock reports):
    the one request the engine's wait stands at."""

    cdef RankCore rank
    cdef tuple requests

    def __cinit__(self, RankCore rank, tuple requests):
        self.rank = rank
        self.requests = requests

    def __len__(self):
        return 1

    def __iter__(self):
        k = lib.ppt_mpi_turn_at(self.rank.m_cdata, self.rank.me)
        return iter(self.requests[k:k + 1])


# -- the calls of a communicator (methods of ppt.mpi.surface.communicators.comm.Comm) ----------------------------------
cdef start_send(CommCore comm, obj, dest, tag, nbytes, mode, into):
    """Start a send of ``obj`` (a snapshot of it; ``nbytes`` on the wire, default its size) to ``dest`` (a rank of
    ``comm.members``: the communicator's, an intercommunicator's remote group)."""
    if type(dest) is not int or not 0 <= dest < len(comm.member_list):
        comm._check_peer(dest, "destination", False)
    if type(tag) is not int or tag < 0:
        comm._check_tag(tag, False)
    if obj is not None and type(obj) is not Lent:   # the receiver gets a snapshot, as from a real MPI library
        obj, size_B = sized_copy(obj)
        nbytes = size_B if nbytes is None else nbytes
    if type(nbytes) is not int or nbytes < 0:
        nbytes = comm._size(obj, nbytes)
    rank = comm._rank
    if isinstance(rank, RankCore):
        return (<RankCore>rank).start_send(comm, dest, tag, nbytes, obj, comm.ctx, mode, into)
    return rank.isend(comm, dest, tag, nbytes, obj, comm.ctx, mode, into)


cdef start_recv(CommCore comm, source, tag, into):
    """Post a receive from ``source`` with ``tag`` (wildcards allowed)."""
    if type(source) is not int or not 0 <= source < len(comm.member_list):
        comm._check_peer(source, "source", True)
    if type(tag) is not int or tag < 0:
        comm._check_tag(tag, True)
    rank = comm._rank
    if isinstance(rank, RankCore):
        return (<RankCore>rank).start_recv(comm, source, tag, comm.ctx, into)
    return rank.irecv(comm, source, tag, comm.ctx, into)


def _isend(CommCore self not None, obj, dest, tag, nbytes, mode=STANDARD, into=None):
    """:func:`start_send` as a method of the communicator (persistent requests and the other send modes)."""
    return start_send(self, obj, dest, tag, nbytes, mode, into)


def _irecv(CommCore self not None, source, tag, into=None):
    """:func:`start_recv` as a method of the communicator."""
    return start_recv(self, source, tag, into)


cdef wait_for(rank, req):
    """The rank waits for ``req`` and takes it over."""
    if isinstance(rank, RankCore):
        (<RankCore>rank).wait(req)
    else:
        rank.wait(req)


def send(CommCore self not None, obj=None, dest=0, tag=0, nbytes=None):
    """Blocking send of ``obj`` (``nbytes`` on the wire; default: the payload's size)."""
    rank = self._rank
    cdef double start = begin(self, rank, "MPI_Send")
    try:
        if start == start:
            owe(rank, object_cost(rank, "send"))
        wait_for(rank, start_send(self, obj, dest, tag, nbytes, STANDARD, None))
    finally:
        end(rank, start)


def isend(CommCore self not None, obj=None, dest=0, tag=0, nbytes=None):
    """Nonblocking send of ``obj`` (as :meth:`send`); returns its request."""
    rank = self._rank
    cdef double start = begin(self, rank, "MPI_Isend")
    try:
        if start == start:
            owe(rank, object_cost(rank, "isend"))
        return start_send(self, obj, dest, tag, nbytes, STANDARD, None)
    finally:
        end(rank, start)


def recv(CommCore self not None, *args, **kwargs):
    """Blocking ``recv(source=ANY_SOURCE, tag=ANY_TAG, status=None)``; returns the payload, fills
    ``status`` (a Status) if given.  mpi4py's ``recv(buf, source, tag, status)`` works too."""
    rank = self._rank
    cdef double start = begin(self, rank, "MPI_Recv")
    try:
        if not kwargs and len(args) == 2 and type(args[0]) is int:        # recv(source, tag): the usual call
            source, tag = args
            status = None
        else:
            source, tag, status = recv_args("recv", args, kwargs, (ANY_SOURCE, ANY_TAG, None))
        req = start_recv(self, source, tag, None)
        wait_for(rank, req)
        if start == start:
            owe(rank, object_cost(rank, "recv"))
        if status is not None:
            req.status.copy_to(status)
        return req.value
    finally:
        end(rank, start)


def irecv(CommCore self not None, *args, **kwargs):
    """Nonblocking ``irecv(source=ANY_SOURCE, tag=ANY_TAG)`` (or mpi4py's ``irecv(buf, source, tag)``)."""
    rank = self._rank
    cdef double start = begin(self, rank, "MPI_Irecv")
    try:
        if not kwargs and len(args) == 2 and type(args[0]) is int:
            req = start_recv(self, args[0], args[1], None)
        else:
            source, tag = recv_args("irecv", args, kwargs, (ANY_SOURCE, ANY_TAG))
            req = start_recv(self, source, tag, None)
        if start == start and isinstance(req, EngineRequest):
            (<EngineRequest>req).due_s = object_cost(rank, "irecv")
        return req
    finally:
        end(rank, start)


# -- mpi4py's uppercase point-to-point calls most programs make (the others: ppt.mpi.surface.communicators.bufp2p)
cdef buffer_send(CommCore comm, str name, buf, dest, tag, bint blocking):
    """MPI call ``name``, a send of mpi4py buffer ``buf`` in standard mode: its request, or None once complete
    (``blocking``)."""
    rank = comm._rank
    cdef double start = begin(comm, rank, name)
    try:
        if start == start:
            owe(rank, call_cost(rank, name))
        data, nbytes = outgoing_data(rank, buf)
        req = start_send(comm, data, dest, tag, nbytes, STANDARD, None)
        if not blocking:
            return req
        wait_for(rank, req)
    finally:
        end(rank, start)


def Send(CommCore self not None, buf, dest, tag=0):
    """mpi4py's ``Comm.Send``."""
    buffer_send(self, "MPI_Send", buf, dest, tag, True)


def Isend(CommCore self not None, buf, dest, tag=0):
    """mpi4py's ``Comm.Isend``."""
    return buffer_send(self, "MPI_Isend", buf, dest, tag, False)


cdef buffer_recv(CommCore comm, str name, buf, source, tag, bint blocking, status):
    """MPI call ``name``, a receive into mpi4py buffer ``buf``: its request, the buffer filled when a wait or
    test retires it, or, ``blocking``, None once the buffer is filled (``status`` too, if given)."""
    rank = comm._rank
    cdef double start = begin(comm, rank, name)
    try:
        if start == start:
            owe(rank, call_cost(rank, name))
        target = receiving(rank, buf)
        req = start_recv(comm, source, tag, None)
        if isinstance(req, EngineRequest):
            (<EngineRequest>req).listen(target)     # a large send may copy its data straight there
        else:
            req.buffer = target
        if not blocking:
            return req
        wait_for(rank, req)
        if status is not None:
            req.status.copy_to(status)
        fill_buffer(rank, target, received_data(req))
    finally:
        end(rank, start)


def Recv(CommCore self not None, buf=None, source=ANY_SOURCE, tag=ANY_TAG, status=None):
    """mpi4py's ``Comm.Recv``."""
    buffer_recv(self, "MPI_Recv", buf, source, tag, True, status)


def Irecv(CommCore self not None, buf=None, source=ANY_SOURCE, tag=ANY_TAG):
    """mpi4py's ``Comm.Irecv``: the buffer is filled when a wait or test retires the request."""
    return buffer_recv(self, "MPI_Irecv", buf, source, tag, False, None)


def positional(str call, args, kwargs, names, defaults) -> list:
    """Values of parameters ``names`` (with ``defaults``) from positional ``args`` and keyword ``kwargs``."""
    if len(args) > len(names):
        raise TypeError(f"{call}() takes at most {len(names)} arguments after the message ({len(args)} given)")
    values = list(args) + list(defaults[len(args):])
    for key, value in kwargs.items():
        if key not in names:
            raise TypeError(f"{call}() got an unexpected keyword argument {key!r}")
        values[names.index(key)] = value
    return values


def recv_args(str call, args, kwargs, defaults) -> list:
    """``(source, tag[, status])`` of PPT's ``recv(source, tag, status)`` or mpi4py's
    ``recv(buf, source, tag, status)`` (told apart by the first argument: a rank is an integer)."""
    from numbers import Integral
    kwargs.pop("buf", None)
    if args and type(args[0]) is not int and not isinstance(args[0], Integral):
        args = args[1:]                                  # mpi4py's buf: PPT's objects need none
    return positional(call, args, kwargs, ("source", "tag", "status")[:len(defaults)], defaults)


# -- completing requests (methods of ppt.mpi.surface.api.MPI) ------------------------------------------------------
cdef object received_data(req):
    """Completed receive ``req``'s payload as the engine gave it: a :class:`Lent` still to be copied into a
    receive buffer, where ``req.value`` would make the receive's own copy of its data."""
    if isinstance(req, EngineRequest):
        (<EngineRequest>req).received()
        return (<EngineRequest>req).data
    return req.value


cdef retired(api, req, status):
    """Retire ``req``, which the rank has taken over: returns its payload (receives), fills ``status`` and any
    mpi4py receive buffer; the rank owes the object layer's cost of a lowercase ``irecv``.  The request lets go
    of its payload and buffer, so that the program freeing it later frees only the request (under
    ``--compute measured`` that is the program's time)."""
    cdef EngineRequest r = None
    if isinstance(req, EngineRequest):
        r = <EngineRequest>req
        r.active = False
        if r.due_s:
            owe(r._rank, r.due_s)
            r.due_s = 0.0
        is_send = r.is_send
    else:
        req.active = False
        is_send = req.is_send
    if status is not None and req.status is not None:
        req.status.copy_to(status)
    if is_send:
        value = None
    else:
        value = received_data(req) if req.buffer is not None else req.value
        fill_buffer(api._rank, req.buffer, value)
        if type(value) is Lent:             # its data is the buffer's now
            value = None
    if r is not None:
        r.data = r.buffer = None
        if r._rank.meter is not None:
            (<CpuMeter?>r._rank.meter).hold(r)
    return value


cdef bint active(req) except -1:
    """Whether ``req`` is active (not yet retired by a wait or test)."""
    if isinstance(req, EngineRequest):
        return (<EngineRequest>req).active
    return req.active


def retire(self, req, status):
    """:func:`retired` as a method of the MPI object."""
    return retired(self, req, status)


cdef completed(api, req, status):
    """Retire completed ``req``: returns its payload (receives), fills ``status`` and any mpi4py receive buffer."""
    rank = api._rank
    if isinstance(rank, RankCore):
        (<RankCore>rank).wait(req)
    else:
        rank.take(req)
    return retired(api, req, status)


def complete(self, req, status):
    """:func:`completed` as a method of the MPI object."""
    return completed(self, req, status)


def wait(self, req, status=None):
    """Block until ``req`` completes; returns its payload (receives; None for sends)."""
    rank = self._rank
    cdef double start = begin(self, rank, "MPI_Wait")
    try:
        if not active(req):
            return None
        wait_for(rank, req)
        return completed(self, req, status)
    finally:
        end(rank, start)


def test(self, req, status=None):
    """``(True, payload)`` of a completed ``req`` (retiring it), else ``(False, None)``."""
    rank = self._rank
    cdef double start = begin(self, rank, "MPI_Test")
    try:
        rank.pay()
        if not active(req):
            return True, None
        if req.done:
            return True, completed(self, req, status)
        self.polled("MPI_Test")
        return False, None
    finally:
        end(rank, start)


def waitall(self, requests, statuses=None) -> list:
    """Wait for all; returns their payloads (None for sends)."""
    rank = self._rank
    cdef double start = begin(self, rank, "MPI_Waitall")
    cdef Py_ssize_t i
    try:
        if isinstance(rank, RankCore):
            (<RankCore>rank).wait_all(requests)
        else:
            rank.wait_all(requests)
        values = []
        for i, req in enumerate(requests):
            values.append(retired(self, req, statuses[i] if statuses else None) if active(req) else None)
        return values
    finally:
        end(rank, start)

"""Replay of a DUMPI trace set on the simulated MPI.

Every trace rank becomes a simulated rank that reads its own records (streamed)
and, for each one:

1. computes for the recorded gap since the previous call ended (times
   ``compute_scale``), on the wall clock or on the rank's CPU clock (see
   *Compute clock* below).  Compute starts at the end of the rank's
   ``MPI_Init``/``MPI_Init_thread``: what came before (launch skew between
   ranks, the program's own start-up, calls before MPI_Init, the wait inside
   MPI_Init) is the launcher's and the recorder's time, not the
   application's, and is dropped and reported per rank.  With
   ``keep_startup`` every rank's gaps run from the earliest call of any rank,
   as recorded (the lead-in before a rank's first call has no CPU reading and
   is wall-clock time on either clock).  A call's own recorded duration is
   never compute: on the traced machine it holds waiting for peers (and, with
   ranks oversubscribed, for other ranks' compute), which the simulation
   models itself; it is reported per rank beside the predicted time in MPI
   calls;
2. issues the call on the simulated MPI with the recorded arguments: peers,
   tags and roots as ranks of the recorded communicator, sizes as
   ``count x size(datatype)`` from the rank's type table, communicators,
   groups, ops and requests mapped per rank (:mod:`ppt.traces.handles`).

Each call runs under its traced name, so the job's call counts are the
trace's.  Calls without communication (``Comm_rank``, ``Wtime``, ``Type_*``,
``Init``, ``Finalize``, ...) are counted and take no simulated time.

Completion calls follow the recorded outcome.  That is faithful, and it adds
no waiting the traced run did not have, so a trace of a program that ran to
completion replays without deadlock (as long as the simulated MPI sends at
least the messages eagerly that the traced library did, and wildcard receives
match as they did):

* a ``Test``/``Testany``/``Testall``/``Testsome``/``Iprobe`` that recorded
  success waits for exactly the requests (or the message) it reported -- the
  traced run had them complete by then, so their matching calls precede this
  point in the peers' recorded order; one that recorded failure is issued as
  the non-blocking call and never waits;
* ``Waitany``/``Waitsome`` complete the requests at the recorded indices.

``Cart_sub`` is replayed as the equivalent ``Comm_split`` (colour: the
coordinates in the dropped dimensions; key: the Cartesian rank).

Compute clock.  DUMPI records every call's start and stop on the wall clock
and on the rank's CPU clock.  A rank that had its core to itself spends about
as much CPU time as wall-clock time between calls; a rank of an
oversubscribed recording (more ranks than cores) was descheduled in some
gaps, and their wall-clock length holds the time it waited for a core, which
replay would otherwise turn into compute.  ``wall`` replays the wall-clock
gaps, ``cpu`` the CPU-clock gaps, and ``auto`` (:func:`choose_clock`) the CPU
clock when the CPU time over the compute gaps of all ranks is below
:data:`OVERSUBSCRIBED_CPU_SHARE` of their wall-clock time, else the wall
clock.
"""
from __future__ import annotations

import math
import os
from collections import Counter

from ppt.errors import ConfigError, TraceError
from ppt.traces.dumpi import INIT_CALLS
from ppt.traces.handles import Handles, color, peer

#: Records a rank replays between two progress checks.
PROGRESS_EVERY = 256

#: The clocks the gaps between calls are read on: ``auto`` picks one of the other two per trace.
COMPUTE_CLOCKS = ("auto", "wall", "cpu")

#: ``auto`` replays the CPU clock's gaps when CPU time / wall-clock time over the compute gaps of all
#: ranks is below this.  The shared traces: 2 ranks on 2 cores measure 0.95; 4 ranks on 2 cores from
#: 0.30 (npb_is_W_n4, all ranks compute at once) to 0.98 (hpccg_n4: ranks waiting inside MPI calls
#: yield the core to computing ones, so the gaps keep theirs).  0.85 lies between the two traces
#: nearest it, npb_cg_W_n4 (0.80) and osu_allreduce_n4 (0.88).
OVERSUBSCRIBED_CPU_SHARE = 0.85

#: Calls that move no data between ranks: counted as calls, no simulated time.
LOCAL_CALLS = frozenset("MPI_" + name for name in """
    Init Init_thread Initialized Finalize Finalized Query_thread Is_thread_main Abort
    Comm_rank Comm_size Comm_compare Comm_test_inter Comm_get_name Comm_set_name
    Comm_set_errhandler Comm_get_errhandler Comm_get_attr Comm_set_attr Attr_get Attr_put
    Errhandler_create Errhandler_set Errhandler_get Errhandler_free Error_string Error_class
    Group_size Group_rank Group_compare Group_translate_ranks
    Topo_test Dims_create Cartdim_get Cart_get Cart_rank Cart_coords Cart_shift Cart_map
    Wtime Wtick Get_count Get_elements Get_processor_name Get_version Address Get_address
    Pack Unpack Pack_size Buffer_attach Buffer_detach Keyval_create Keyval_free
    Type_contiguous Type_vector Type_hvector Type_create_hvector Type_indexed Type_hindexed
    Type_create_hindexed Type_struct Type_create_struct Type_create_indexed_block
    Type_create_resized Type_create_subarray Type_dup Type_commit Type_free Type_size
    Type_extent Type_get_extent Type_lb Type_ub
""".split())


class RankReplay:
    """Replays one trace rank's records on its simulated ``mpi``.

    ``sizes``: bytes per datatype id (the rank's type table); ``compute_scale``
    multiplies recorded gaps; ``clock``: ``"wall"`` or ``"cpu"``, the clock the gaps
    are read on; ``skip``: call names to leave out; ``skip_unsupported``:
    leave out every call replay cannot issue, as the records show them (a footer need
    not list every recorded call, e.g. user-function enter/exit records).
    """

    __slots__ = ("mpi", "rank", "handles", "sizes", "compute_scale", "skip", "skip_unsupported", "handlers",
                 "p2p_bytes", "skipped", "clock")

    def __init__(self, mpi, sizes, compute_scale: float = 1.0, skip=frozenset(), skip_unsupported=False,
                 clock: str = "wall"):
        if clock not in ("wall", "cpu"):
            raise ConfigError(f"compute clock {clock!r} must be 'wall' or 'cpu'")
        self.mpi = mpi
        self.rank = mpi.rank
        self.handles = Handles(mpi, f"trace rank {self.rank}")
        self.sizes = sizes
        self.compute_scale = compute_scale
        self.skip = skip
        self.skip_unsupported = skip_unsupported
        self.handlers = {name: getattr(self, method) for name, method in HANDLERS.items()}
        self.p2p_bytes = 0
        self.skipped = Counter()
        self.clock = clock

    def run(self, records, start_s: float, progress=None, keep_startup: bool = False, has_init: bool = True) -> dict:
        """Replay ``records`` (in order); ``start_s``: trace time at which the job starts (s).

        Unless ``keep_startup``, the gaps up to the end of the rank's MPI_Init (``has_init``: the rank
        calls one; else up to its first call) are dropped and summed as ``startup_dropped_s``.
        ``recorded_mpi_s``: the recorded time inside the calls replayed after start-up;
        ``compute_wall_s``/``compute_cpu_s``: the positive gaps after start-up by each clock (before
        ``compute_scale``), of which the rank's clock is replayed.  ``wtime_span_s`` and
        ``recorded_wtime_span_s``: simulated and recorded seconds from the rank's first MPI_Wtime
        call to its last (None with fewer than two): the phase programs time themselves.
        """
        mpi, handlers, scale = self.mpi, self.handlers, self.compute_scale
        on_cpu = self.clock == "cpu"
        last_stop = start_s
        last_cpu = None         # no CPU reading before the first call: its lead-in is wall-clock time
        startup = not keep_startup
        dropped = recorded_mpi = wall_s = cpu_s = 0.0
        wtimes = []             # (simulated, recorded) start of the first and the latest MPI_Wtime
        count = 0
        for count, record in enumerate(records, 1):
            gap = record.wall_start - last_stop
            cpu_gap = gap if last_cpu is None else record.cpu_start - last_cpu
            last_stop = record.wall_stop
            last_cpu = record.cpu_stop
            name = record.name
            if startup:
                dropped += max(gap, 0.0)
                startup = has_init and name not in INIT_CALLS
                if has_init:
                    dropped += record.wall_stop - record.wall_start     # the start-up call itself
            else:
                if gap > 0.0:
                    wall_s += gap
                if cpu_gap > 0.0:
                    cpu_s += cpu_gap
                replayed = cpu_gap if on_cpu else gap
                if replayed > 0.0:
                    mpi.sleep(replayed * scale)
                recorded_mpi += record.wall_stop - record.wall_start
            handler = handlers.get(name)
            if handler is None:
                if name not in self.skip and not self.skip_unsupported:
                    raise TraceError(f"trace rank {self.rank} calls {name}, which replay does not support; "
                                     "rerun with --skip-unsupported to ignore it")
                self.skipped[name] += 1
                continue
            if name == "MPI_Wtime":
                wtimes[1:] = [(mpi.wtime(), record.wall_start)]
            # the handler's simulated MPI calls are part of this one: the job counts
            # and times exactly one call under the trace's name
            mpi.call_as(name, handler, record.args)
            if progress is not None and not count % PROGRESS_EVERY:
                progress.advance(PROGRESS_EVERY, mpi.wtime())
        return {"records": count, "p2p_bytes": self.p2p_bytes, "skipped": dict(self.skipped),
                "startup_dropped_s": dropped, "recorded_mpi_s": recorded_mpi,
                "compute_wall_s": wall_s, "compute_cpu_s": cpu_s,
                "wtime_span_s": wtimes[1][0] - wtimes[0][0] if len(wtimes) == 2 else None,
                "recorded_wtime_span_s": wtimes[1][1] - wtimes[0][1] if len(wtimes) == 2 else None}

    # -- helpers ----------------------------------------------------------------
    def _bytes(self, count: int, datatype: int) -> int:
        sizes = self.sizes
        if not 0 <= datatype < len(sizes):
            raise TraceError(f"trace rank {self.rank} uses datatype {datatype}, which its type table "
                             f"({len(sizes)} entries) lacks: the trace is damaged")
        return count * sizes[datatype]

    def _comm(self, a, key: str = "comm"):
        return self.handles.comm(a[key])

    def _sent(self, count: int, datatype: int) -> int:
        nbytes = self._bytes(count, datatype)
        self.p2p_bytes += nbytes
        return nbytes

    # -- point to point -----------------------------------------------------------
    def local(self, a):
        """A call without communication."""

    def send(self, a):
        self._comm(a).send(None, peer(a["dest"], False), a["tag"], self._sent(a["count"], a["datatype"]))

    def isend(self, a):
        req = self._comm(a).isend(None, peer(a["dest"], False), a["tag"], self._sent(a["count"], a["datatype"]))
        self.handles.start(a["request"], req)

    def recv(self, a):
        self._comm(a).recv(peer(a["source"], True), a["tag"])

    def irecv(self, a):
        self.handles.start(a["request"], self._comm(a).irecv(peer(a["source"], True), a["tag"]))

    def sendrecv(self, a):
        self._comm(a).sendrecv(None, peer(a["dest"], False), a["sendtag"], peer(a["source"], True),
                               a["recvtag"], self._sent(a["sendcount"], a["sendtype"]))

    def sendrecv_replace(self, a):
        self._comm(a).sendrecv(None, peer(a["dest"], False), a["sendtag"], peer(a["source"], True),
                               a["recvtag"], self._sent(a["count"], a["datatype"]))

    def probe(self, a):
        self._comm(a).probe(peer(a["source"], True), a["tag"])

    def iprobe(self, a):
        """A successful Iprobe waits for its message; a failed one only looks."""
        comm, source = self._comm(a), peer(a["source"], True)
        if a["flag"]:
            comm.probe(source, a["tag"])
        else:
            comm.iprobe(source, a["tag"])

    # -- completion -----------------------------------------------------------------
    def wait(self, a):
        req = self.handles.take(a["request"])
        if req is not None:
            self.mpi.wait(req)

    def waitall(self, a):
        self.mpi.waitall(self.handles.take_all(a["requests"]))

    def test(self, a):
        if a["flag"]:
            self.wait(a)
        else:
            reqs = self.handles.peek_all((a["request"],))
            if reqs:
                self.mpi.test(reqs[0])

    def testall(self, a):
        if a["flag"]:
            self.waitall(a)
        else:
            self.mpi.testall(self.handles.peek_all(a["requests"]))

    def waitany(self, a):
        """Waitany and Testany: complete the request at the recorded index (if one was reported)."""
        index, requests = a["index"], a["requests"]
        if a.get("flag", 1) and 0 <= index < len(requests):
            req = self.handles.take(requests[index])
            if req is not None:
                self.mpi.waitany([req])
        else:
            self.mpi.testany(self.handles.peek_all(requests))

    def waitsome(self, a):
        """Waitsome and Testsome: complete the requests at the recorded indices."""
        requests = a["requests"]
        if a["indices"]:
            self.mpi.waitall(self.handles.take_all([requests[i] for i in a["indices"]]))
        else:
            self.mpi.testsome(self.handles.peek_all(requests))

    # -- collectives ------------------------------------------------------------------
    def barrier(self, a):
        self._comm(a).barrier()

    def bcast(self, a):
        self._comm(a).bcast(None, a["root"], self._bytes(a["count"], a["datatype"]))

    def reduce(self, a):
        self._comm(a).reduce(None, self.handles.op(a["op"]), a["root"], self._bytes(a["count"], a["datatype"]))

    def allreduce(self, a):
        self._comm(a).allreduce(None, self.handles.op(a["op"]), self._bytes(a["count"], a["datatype"]))

    def scan(self, a):
        self._comm(a).scan(None, self.handles.op(a["op"]), self._bytes(a["count"], a["datatype"]))

    def exscan(self, a):
        self._comm(a).exscan(None, self.handles.op(a["op"]), self._bytes(a["count"], a["datatype"]))

    def gather(self, a):
        """Gather and Gatherv: each rank contributes ``sendcount`` items."""
        self._comm(a).gatherv(None, a["root"], self._bytes(a["sendcount"], a["sendtype"]))

    def scatter(self, a):
        comm = self._comm(a)
        blocks = self._bytes(a["sendcount"], a["sendtype"]) if comm.rank == a["root"] else None
        comm.scatter(None, a["root"], blocks)

    def scatterv(self, a):
        comm = self._comm(a)
        blocks = None
        if comm.rank == a["root"]:
            blocks = [self._bytes(n, a["sendtype"]) for n in a["sendcounts"]]
        comm.scatterv(None, a["root"], blocks)

    def allgather(self, a):
        self._comm(a).allgather(None, self._bytes(a["sendcount"], a["sendtype"]))

    def allgatherv(self, a):
        self._comm(a).allgatherv(None, self._bytes(a["sendcount"], a["sendtype"]))

    def alltoall(self, a):
        self._comm(a).alltoall(None, self._bytes(a["sendcount"], a["sendtype"]))

    def alltoallv(self, a):
        self._comm(a).alltoallv(None, [self._bytes(n, a["sendtype"]) for n in a["sendcounts"]])

    def alltoallw(self, a):
        self._comm(a).alltoallv(None, [self._bytes(n, t) for n, t in zip(a["sendcounts"], a["sendtypes"])])

    def reduce_scatter(self, a):
        self._comm(a).reduce_scatter(None, self.handles.op(a["op"]),
                                     [self._bytes(n, a["datatype"]) for n in a["recvcounts"]])

    # -- communicators, groups, ops -------------------------------------------------------
    def comm_dup(self, a):
        self.handles.set_comm(a["newcomm"], self._comm(a, "oldcomm").dup())

    def comm_split(self, a):
        self.handles.set_comm(a["newcomm"], self._comm(a, "oldcomm").split(color(a["color"]), a["key"]))

    def comm_create(self, a):
        self.handles.set_comm(a["newcomm"], self._comm(a, "oldcomm").create(self.handles.group(a["group"])))

    def cart_create(self, a):
        new = self._comm(a, "oldcomm").cart_create(a["dims"], a["periods"], bool(a["reorder"]))
        self.handles.set_comm(a["newcomm"], new)

    def cart_sub(self, a):
        cart = self._comm(a, "oldcomm")
        if not hasattr(cart, "dims"):
            raise TraceError(f"trace rank {self.rank} calls MPI_Cart_sub on communicator {a['oldcomm']}, "
                             "which has no Cartesian topology: the trace is inconsistent")
        dropped = 0
        for coord, size, keep in zip(cart.coords, cart.dims, a["remain_dims"]):
            if not keep:
                dropped = dropped * size + coord
        self.handles.set_comm(a["newcomm"], cart.split(dropped, cart.rank))

    def comm_free(self, a):
        comm = self.handles.free_comm(a["comm"])
        if comm is not None:
            comm.free()

    def comm_group(self, a):
        # Group of the members built directly: Comm.group counts an MPI_Comm_group of its own.
        self.handles.groups[a["group"]] = self.mpi.group(self._comm(a).members)

    def group_incl(self, a):
        self.handles.groups[a["newgroup"]] = self.handles.group(a["group"]).incl(a["ranks"])

    def group_excl(self, a):
        self.handles.groups[a["newgroup"]] = self.handles.group(a["group"]).excl(a["ranks"])

    def group_union(self, a):
        first, second = self.handles.group(a["group1"]), self.handles.group(a["group2"])
        members = first.members + tuple(w for w in second.members if w not in first.index)
        self.handles.groups[a["newgroup"]] = self.mpi.group(members)

    def group_intersection(self, a):
        first, second = self.handles.group(a["group1"]), self.handles.group(a["group2"])
        members = [w for w in first.members if w in second.index]
        self.handles.groups[a["newgroup"]] = self.mpi.group(members)

    def group_difference(self, a):
        first, second = self.handles.group(a["group1"]), self.handles.group(a["group2"])
        members = [w for w in first.members if w not in second.index]
        self.handles.groups[a["newgroup"]] = self.mpi.group(members)

    def group_free(self, a):
        group = self.handles.groups.pop(a["group"], None)
        if group is not None:
            group.free()

    def op_create(self, a):
        self.handles.create_op(a["op"], bool(a["commute"]))

    def op_free(self, a):
        self.handles.ops.pop(a["op"], None)


#: Replayed call -> RankReplay method.
HANDLERS = {
    **{name: "local" for name in LOCAL_CALLS},
    "MPI_Send": "send", "MPI_Bsend": "send", "MPI_Ssend": "send", "MPI_Rsend": "send",
    "MPI_Isend": "isend", "MPI_Ibsend": "isend", "MPI_Issend": "isend", "MPI_Irsend": "isend",
    "MPI_Recv": "recv", "MPI_Irecv": "irecv",
    "MPI_Sendrecv": "sendrecv", "MPI_Sendrecv_replace": "sendrecv_replace",
    "MPI_Probe": "probe", "MPI_Iprobe": "iprobe",
    "MPI_Wait": "wait", "MPI_Waitall": "waitall", "MPI_Waitany": "waitany", "MPI_Waitsome": "waitsome",
    "MPI_Test": "test", "MPI_Testall": "testall", "MPI_Testany": "waitany", "MPI_Testsome": "waitsome",
    "MPI_Barrier": "barrier", "MPI_Bcast": "bcast", "MPI_Reduce": "reduce", "MPI_Allreduce": "allreduce",
    "MPI_Scan": "scan", "MPI_Exscan": "exscan",
    "MPI_Gather": "gather", "MPI_Gatherv": "gather", "MPI_Scatter": "scatter", "MPI_Scatterv": "scatterv",
    "MPI_Allgather": "allgather", "MPI_Allgatherv": "allgatherv",
    "MPI_Alltoall": "alltoall", "MPI_Alltoallv": "alltoallv", "MPI_Alltoallw": "alltoallw",
    "MPI_Reduce_scatter": "reduce_scatter",
    "MPI_Comm_dup": "comm_dup", "MPI_Comm_split": "comm_split", "MPI_Comm_create": "comm_create",
    "MPI_Cart_create": "cart_create", "MPI_Cart_sub": "cart_sub", "MPI_Comm_free": "comm_free",
    "MPI_Comm_group": "comm_group", "MPI_Group_incl": "group_incl", "MPI_Group_excl": "group_excl",
    "MPI_Group_union": "group_union", "MPI_Group_intersection": "group_intersection",
    "MPI_Group_difference": "group_difference", "MPI_Group_free": "group_free",
    "MPI_Op_create": "op_create", "MPI_Op_free": "op_free",
}


def trace_calls(trace) -> Counter:
    """Calls by name over all ranks, from the trace files' footers (no records read)."""
    calls = Counter()
    for rank in range(trace.ranks):
        calls.update(trace.footer_counts(rank))
    return calls


def unsupported_calls(calls) -> dict:
    """``{name: count}`` of the calls in ``calls`` that replay cannot issue (most frequent first)."""
    return {name: n for name, n in Counter(calls).most_common() if name not in HANDLERS}


def first_call_s(trace) -> float:
    """The earliest start of any rank's first call (trace wall-clock seconds)."""
    starts = []
    for rank in range(trace.ranks):
        records = trace.records(rank)
        first = next(records, None)
        records.close()
        if first is not None:
            starts.append(first.wall_start)
    return min(starts) if starts else 0.0


class ReplayProgress:
    """Records replayed so far over all ranks, and simulated time, shown through a
    :class:`ppt.progress.Progress` at its interval: as ranks replay records, and (as the
    simulation's progress hook) while the network runs between them."""

    __slots__ = ("progress", "total", "done")

    def __call__(self, sim) -> None:
        self.progress.count(self.done, self.total, sim.now, "records over all ranks", sim)

    def __init__(self, progress, total_records: int):
        self.progress = progress
        self.total = max(total_records, 1)
        self.done = 0

    def advance(self, records: int, now_s: float) -> None:
        self.done += records
        self.progress.count(self.done, self.total, now_s, "records over all ranks")


def choose_clock(trace, clock: str = "auto") -> dict:
    """The clock the compute gaps of ``trace`` are replayed on, for ``clock`` ``auto``, ``wall`` or ``cpu``.

    Returns ``clock`` (``"wall"`` or ``"cpu"``), ``requested``, ``cpu_wall_ratio`` (CPU over
    wall-clock seconds in the gaps after MPI_Init, all ranks; None without gaps), the two totals
    ``compute_wall_s`` and ``compute_cpu_s``, and ``reason``, one line saying why.  ``auto`` takes
    the CPU clock when the ratio is below :data:`OVERSUBSCRIBED_CPU_SHARE`: the ranks shared cores
    when traced, and their wall-clock gaps hold waiting for a core.  A trace recorded without CPU
    times replays the wall clock (``cpu`` is refused; ratio and CPU total None).  Reads the trace
    once unless it was read already.
    """
    if clock not in COMPUTE_CLOCKS:
        raise ConfigError(f"compute clock {clock!r} must be one of {', '.join(COMPUTE_CLOCKS)}")
    gaps = trace.compute_gaps()
    wall = sum(w for w, _ in gaps)
    if any(c is None for _, c in gaps):
        if clock == "cpu":
            raise ConfigError(f"{trace.meta_path} was recorded without CPU times: use --compute-clock wall")
        return {"clock": "wall", "requested": clock, "cpu_wall_ratio": None, "compute_wall_s": wall,
                "compute_cpu_s": None, "reason": "compute clock wall (the trace has no CPU times)"}
    cpu = sum(c for _, c in gaps)
    ratio = cpu / wall if wall > 0.0 else None
    measured = (f"CPU/wall time over the compute gaps {ratio:.3f}" if ratio is not None
                else "no compute gaps to measure")
    if clock != "auto":
        used, why = clock, f"--compute-clock {clock}; {measured}"
    elif ratio is not None and ratio < OVERSUBSCRIBED_CPU_SHARE:
        used, why = "cpu", (f"{measured} < {OVERSUBSCRIBED_CPU_SHARE}: the ranks waited for a core between "
                            "calls when traced, so the wall-clock gaps overstate their compute")
    else:
        used = "wall"
        why = (f"{measured} >= {OVERSUBSCRIBED_CPU_SHARE}: the ranks computed in the wall-clock gaps, "
               "not waiting for a core" if ratio is not None else measured)
    return {"clock": used, "requested": clock, "cpu_wall_ratio": ratio, "compute_wall_s": wall,
            "compute_cpu_s": cpu, "reason": f"compute clock {used} ({why})"}


def _rank_main(mpi, trace, start_s, compute_scale, skip, progress, skip_unsupported=False, keep_startup=False,
               clock="wall"):
    rank = mpi.rank
    replayer = RankReplay(mpi, trace.datatype_sizes(rank), compute_scale, skip, skip_unsupported, clock)
    has_init = any(trace.footer_counts(rank).get(name) for name in INIT_CALLS)
    return replayer.run(trace.records(rank), start_s, progress, keep_startup, has_init)


def replay(trace, job, compute_scale: float = 1.0, skip_unsupported: bool = False, progress=None,
           keep_startup: bool = False, compute_clock: str = "auto") -> dict:
    """Replay TraceSet ``trace`` on MPIJob ``job`` (one simulated rank per trace rank).

    Refuses (TraceError) a trace holding unsupported calls unless
    ``skip_unsupported``.  ``progress``: a :class:`ppt.progress.Progress`.
    ``keep_startup``: replay the time before each rank's MPI_Init ended as compute
    (see the module docstring).  ``compute_clock``: ``auto``, ``wall`` or ``cpu``, the
    clock the gaps are read on (:func:`choose_clock`).  Returns the prediction: ``predicted_s``
    (simulated), ``trace_s`` (recorded span), calls by name, point-to-point
    bytes, network packets and mean hops, and per-rank statistics (with the
    start-up time dropped, ``startup_dropped_s``, and the recorded time in MPI
    calls, ``recorded_mpi_s``, beside the predicted ``comm_s``), and the
    compute clock: ``compute_clock`` (the one replayed), ``compute_clock_requested``,
    ``compute_clock_reason`` (one line), ``cpu_wall_ratio`` (measured after MPI_Init)
    and the recorded compute replayed on each clock, ``compute_wall_s`` and
    ``compute_cpu_s`` (before ``compute_scale``; summed over ranks, and per rank).
    ``wtime_span_s``/``recorded_wtime_span_s``: predicted and recorded time from a
    rank's first MPI_Wtime call to its last, the phase a program times itself (the
    slowest rank's; per rank too; None without two Wtime calls, e.g. Fortran under
    Open MPI).  Times in seconds, sizes in bytes.
    """
    choice = choose_clock(trace, compute_clock)
    main, args, counter = rank_program(trace, job.num_ranks, compute_scale, skip_unsupported, progress,
                                       keep_startup, choice["clock"])
    return summary(trace, job.run(main, *args, progress=counter), keep_startup, choice)


def rank_program(trace, num_ranks: int, compute_scale: float = 1.0, skip_unsupported: bool = False, progress=None,
                 keep_startup: bool = False, compute_clock: str = "auto") -> tuple:
    """``(main, args, hook)`` replaying ``trace`` on a job of ``num_ranks`` ranks (``main(mpi, *args)`` on
    every rank), after checking the trace and options as :func:`replay` documents; ``hook`` is the
    simulation's progress hook (None without ``progress``)."""
    if num_ranks != trace.ranks:
        raise ConfigError(f"the trace has {trace.ranks} ranks but the job {num_ranks}: replay needs one "
                          "simulated rank per trace rank")
    if not 0.0 <= compute_scale < math.inf:
        raise ConfigError(f"compute scale {compute_scale} must be a finite number >= 0 "
                          "(0 ignores the recorded gaps)")
    if compute_clock not in COMPUTE_CLOCKS:
        raise ConfigError(f"compute clock {compute_clock!r} must be one of {', '.join(COMPUTE_CLOCKS)}")
    calls = trace_calls(trace)
    unsupported = unsupported_calls(calls)
    if unsupported and not skip_unsupported:
        listed = ", ".join(f"{name} x{n}" for name, n in unsupported.items())
        raise TraceError(f"unsupported MPI calls in trace: {listed}; "
                         "rerun with --skip-unsupported to ignore them")
    if compute_clock == "auto":
        compute_clock = choose_clock(trace)["clock"]
    counter = ReplayProgress(progress, sum(calls.values())) if progress is not None else None
    return _rank_main, (trace, first_call_s(trace), compute_scale, frozenset(unsupported), counter,
                        skip_unsupported, keep_startup, compute_clock), counter


def summary(trace, result, keep_startup: bool = False, clock: dict = None) -> dict:
    """The prediction :func:`replay` returns, from the JobResult ``result`` of the replaying job;
    ``clock``: the :func:`choose_clock` the ranks replayed with (default: ``auto``'s, as
    :func:`rank_program` picks by default)."""
    if clock is None:
        clock = choose_clock(trace)
    start, stop = trace.span()
    stats = result.network
    skipped = Counter()
    for ret in result.returns:
        skipped.update(ret["skipped"])
    records = sum(ret["records"] for ret in result.returns)
    per_rank = [dict(entry, records=ret["records"], p2p_bytes=ret["p2p_bytes"],
                     startup_dropped_s=ret["startup_dropped_s"], recorded_mpi_s=ret["recorded_mpi_s"],
                     compute_wall_s=ret["compute_wall_s"], compute_cpu_s=ret["compute_cpu_s"],
                     wtime_span_s=ret["wtime_span_s"], recorded_wtime_span_s=ret["recorded_wtime_span_s"])
                for entry, ret in zip(result.per_rank, result.returns)]
    if clock["compute_cpu_s"] is None:          # no CPU times recorded
        for entry in per_rank:
            entry["compute_cpu_s"] = None
    wall = sum(ret["compute_wall_s"] for ret in result.returns)
    cpu = sum(ret["compute_cpu_s"] for ret in result.returns) if clock["compute_cpu_s"] is not None else None
    timed = [ret for ret in result.returns if ret["wtime_span_s"] is not None]
    return {
        "trace": os.fspath(trace.meta_path),
        "ranks": result.ranks,
        "predicted_s": result.predicted_s,
        "trace_s": stop - start,
        "startup": "kept" if keep_startup else "dropped",
        "compute_clock": clock["clock"],
        "compute_clock_requested": clock["requested"],
        "compute_clock_reason": clock["reason"],
        # measured after MPI_Init, as auto decides; the totals are the gaps replayed (start-up kept or not)
        "cpu_wall_ratio": clock["cpu_wall_ratio"],
        "compute_wall_s": wall,
        "compute_cpu_s": cpu,
        # the slowest rank's first-to-last MPI_Wtime, as programs report their timed phase (NPB: the maximum)
        "wtime_span_s": max((ret["wtime_span_s"] for ret in timed), default=None),
        "recorded_wtime_span_s": max((ret["recorded_wtime_span_s"] for ret in timed), default=None),
        "calls": result.calls,
        "skipped_calls": dict(skipped.most_common()),
        "records": records,
        "bytes_p2p": sum(ret["p2p_bytes"] for ret in result.returns),
        # The analytic model moves each message as one unit, so its messages are its packets.
        "packets": stats.get("packets", stats.get("messages", 0)),
        "mean_hops": stats.get("mean_hops", 0.0),
        "network": stats,
        "per_rank": per_rank,
    }

"""Replay of a trace set in op-stream form (:mod:`ppt.traces.opstream`) on the simulated MPI.

Every trace rank becomes a simulated rank that reads its own op stream (in
chunks), dispatches each op on its kind through a table indexed by
:class:`~ppt.traces.opstream.Op`, and, for each op:

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
2. issues the call on the simulated MPI with the recorded arguments as the
   reader resolved them (peers, tags and roots as ranks of the recorded
   communicator, bytes; for DUMPI ``count x size(datatype)`` from the rank's
   type table, :mod:`ppt.traces.readers.dumpi_ops`), communicators, groups, ops and
   requests mapped per rank (:mod:`ppt.traces.handles`).

Each call runs under its traced name, so the job's call counts are the
trace's.  Calls without communication (LOCAL, INIT and WTIME ops:
``Comm_rank``, ``Wtime``, ``Type_*``, ``Init``, ``Finalize``, ...) are counted
and take no simulated time.  OTHER ops (calls the reader could not express)
are refused, or skipped with ``skip_unsupported``.

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

``Cart_sub`` (a CART_SUB op) is replayed as the equivalent ``Comm_split`` (colour: the
coordinates in the dropped dimensions; key: the Cartesian rank).  A nonblocking collective
(IALLREDUCE ...) starts its blocking call in the background as a program's does
(:mod:`ppt.mpi.surface.communicators.icoll`; MPI_Ibarrier its own rounds), its request completed by the op that
names it, so the compute before that op overlaps it.

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
from ppt.mpi.engine.replay import replay_job
from ppt.mpi.surface.communicators.icoll import background
from ppt.traces.handles import Handles
from ppt.oprecord import (AUX_LEN, AUX_START, CALL, CALL_S, COMM, FLAG, GAP_CPU_S, GAP_WALL_S, KIND, NBYTES, NONBLOCKING,
    NONBLOCKING_COLLECTIVES, OP, PEER, REQUEST, ROOT, START_S, TAG, Op)

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

class RankReplay:
    """Replays one trace rank's op stream on its simulated ``mpi`` (:meth:`run`; :meth:`handle` one op).

    ``compute_scale`` multiplies recorded gaps; ``clock``: ``"wall"`` or ``"cpu"``, the clock the gaps
    are read on; ``skip``: call names to leave out; ``skip_unsupported``: leave out every OTHER op
    (a call the trace's reader could not express), as the stream shows them (a footer need not list
    every recorded call, e.g. user-function enter/exit records).
    """

    __slots__ = ("mpi", "rank", "handles", "compute_scale", "skip", "skip_unsupported",
                 "p2p_bytes", "skipped", "clock", "aux")

    def __init__(self, mpi, compute_scale: float = 1.0, skip=frozenset(), skip_unsupported=False,
                 clock: str = "wall"):
        if clock not in ("wall", "cpu"):
            raise ConfigError(f"compute clock {clock!r} must be 'wall' or 'cpu'")
        self.mpi = mpi
        self.rank = mpi.rank
        self.handles = Handles(mpi, f"trace rank {self.rank}")
        self.compute_scale = compute_scale
        self.skip = skip
        self.skip_unsupported = skip_unsupported
        self.p2p_bytes = 0
        self.skipped = Counter()
        self.clock = clock
        self.aux = []           # the aux values of the chunk being replayed

    def run(self, chunks, progress=None, keep_startup: bool = False, has_init: bool = True) -> dict:
        """Replay the op ``chunks`` (in order); the first op's gap counts from the job's start.

        Unless ``keep_startup``, the gaps up to the end of the rank's INIT op (``has_init``: the rank
        has one; else up to its first op) are dropped and summed as ``startup_dropped_s``.
        ``recorded_mpi_s``: the recorded time inside the calls replayed after start-up;
        ``compute_wall_s``/``compute_cpu_s``: the positive gaps after start-up by each clock (before
        ``compute_scale``), of which the rank's clock is replayed.  ``wtime_span_s`` and
        ``recorded_wtime_span_s``: simulated and recorded seconds from the rank's first WTIME op
        to its last (None with fewer than two): the phase programs time themselves.
        """
        mpi, scale = self.mpi, self.compute_scale
        dispatch = [getattr(self, METHODS[kind]) if kind in METHODS else None for kind in Op]
        replayed_gap = GAP_CPU_S if self.clock == "cpu" else GAP_WALL_S
        startup = not keep_startup
        dropped = recorded_mpi = wall_s = cpu_s = 0.0
        wtimes = []             # (simulated, recorded) start of the first and the latest WTIME op
        count = 0
        for chunk in chunks:
            names = chunk.calls
            self.aux = chunk.aux_list()
            for op in chunk.rows():
                count += 1
                kind, gap, cpu_gap = op[KIND], op[GAP_WALL_S], op[GAP_CPU_S]
                if startup:
                    dropped += max(gap, 0.0)
                    startup = has_init and kind != _INIT
                    if has_init:
                        dropped += op[CALL_S]       # the start-up call itself
                else:
                    if gap > 0.0:
                        wall_s += gap
                    if cpu_gap > 0.0:
                        cpu_s += cpu_gap
                    replayed = op[replayed_gap]
                    if replayed > 0.0:
                        mpi.sleep(replayed * scale)
                    recorded_mpi += op[CALL_S]
                name = names[op[CALL]]
                if kind == _OTHER:
                    if name not in self.skip and not self.skip_unsupported:
                        self.refuse(name)
                    self.skipped[name] += 1
                    continue
                if kind == _WTIME:
                    wtimes[1:] = [(mpi.wtime(), op[START_S])]
                # the handler's simulated MPI calls are part of this one: the job counts
                # and times exactly one call under the trace's name
                mpi.call_as(name, dispatch[kind], op)
                if progress is not None and not count % PROGRESS_EVERY:
                    progress.advance(PROGRESS_EVERY, mpi.wtime())
        return {"records": count, "p2p_bytes": self.p2p_bytes, "skipped": dict(self.skipped),
                "startup_dropped_s": dropped, "recorded_mpi_s": recorded_mpi,
                "compute_wall_s": wall_s, "compute_cpu_s": cpu_s,
                "wtime_span_s": wtimes[1][0] - wtimes[0][0] if len(wtimes) == 2 else None,
                "recorded_wtime_span_s": wtimes[1][1] - wtimes[0][1] if len(wtimes) == 2 else None}

    def handle(self, op) -> None:
        """Issue op ``op`` (a row) with the handler of its kind, outside :meth:`run`'s call bookkeeping."""
        getattr(self, METHODS[op[KIND]])(op)

    def refuse(self, name: str) -> None:
        """Raise the error of an OTHER op of call ``name`` that is not skipped."""
        raise TraceError(f"trace rank {self.rank} calls {name}, which replay does not support; "
                         "rerun with --skip-unsupported to ignore it")

    # -- helpers ----------------------------------------------------------------
    def _aux(self, op) -> list:
        start = op[AUX_START]
        return self.aux[start:start + op[AUX_LEN]]

    def _comm(self, op):
        return self.handles.comm(op[COMM])

    def _sent(self, op) -> int:
        nbytes = op[NBYTES]
        self.p2p_bytes += nbytes
        return nbytes

    # -- point to point -----------------------------------------------------------
    def local(self, op):
        """A call without communication."""

    def send(self, op):
        self._comm(op).send(None, op[PEER], op[TAG], self._sent(op))

    def isend(self, op):
        self.handles.start(op[REQUEST], self._comm(op).isend(None, op[PEER], op[TAG], self._sent(op)))

    def recv(self, op):
        self._comm(op).recv(op[PEER], op[TAG])

    def irecv(self, op):
        self.handles.start(op[REQUEST], self._comm(op).irecv(op[PEER], op[TAG]))

    def sendrecv(self, op):
        """aux: the source, the receive tag, the bytes posted."""
        source, recvtag, _ = self._aux(op)
        self._comm(op).sendrecv(None, op[PEER], op[TAG], source, recvtag, self._sent(op))

    def probe(self, op):
        self._comm(op).probe(op[PEER], op[TAG])

    def iprobe(self, op):
        """A successful Iprobe waits for its message; a failed one only looks."""
        comm = self._comm(op)
        if op[FLAG]:
            comm.probe(op[PEER], op[TAG])
        else:
            comm.iprobe(op[PEER], op[TAG])

    # -- completion -----------------------------------------------------------------
    def wait(self, op):
        req = self.handles.take(op[REQUEST])
        if req is not None:
            self.mpi.wait(req)

    def waitall(self, op):
        self.mpi.waitall(self.handles.take_all(self._aux(op)))

    def test(self, op):
        if op[FLAG]:
            self.wait(op)
        else:
            reqs = self.handles.peek_all((op[REQUEST],))
            if reqs:
                self.mpi.test(reqs[0])

    def testall(self, op):
        if op[FLAG]:
            self.waitall(op)
        else:
            self.mpi.testall(self.handles.peek_all(self._aux(op)))

    def waitany(self, op):
        """Waitany and Testany: complete the request at the recorded index (if one was reported)."""
        requests, index = self._aux(op), op[FLAG]
        if 0 <= index < len(requests):
            req = self.handles.take(requests[index])
            if req is not None:
                self.mpi.waitany([req])
        else:
            self.mpi.testany(self.handles.peek_all(requests))

    def waitsome(self, op):
        """Waitsome and Testsome: complete the requests at the recorded indices (aux: requests, indices)."""
        values, done = self._aux(op), op[FLAG]
        requests = values[:len(values) - done]
        if done:
            self.mpi.waitall(self.handles.take_all([requests[i] for i in values[len(values) - done:]]))
        else:
            self.mpi.testsome(self.handles.peek_all(requests))

    # -- collectives ------------------------------------------------------------------
    def barrier(self, op):
        self._comm(op).barrier()

    def bcast(self, op):
        self._comm(op).bcast(None, op[ROOT], op[NBYTES])

    def reduce(self, op):
        self._comm(op).reduce(None, self.handles.op(op[OP]), op[ROOT], op[NBYTES])

    def allreduce(self, op):
        self._comm(op).allreduce(None, self.handles.op(op[OP]), op[NBYTES])

    def scan(self, op):
        self._comm(op).scan(None, self.handles.op(op[OP]), op[NBYTES])

    def exscan(self, op):
        self._comm(op).exscan(None, self.handles.op(op[OP]), op[NBYTES])

    def gather(self, op):
        """Gather and Gatherv: each rank contributes ``nbytes``."""
        self._comm(op).gatherv(None, op[ROOT], op[NBYTES])

    def scatter(self, op):
        comm = self._comm(op)
        comm.scatter(None, op[ROOT], op[NBYTES] if comm.rank == op[ROOT] else None)

    def scatterv(self, op):
        comm = self._comm(op)
        comm.scatterv(None, op[ROOT], self._aux(op) if comm.rank == op[ROOT] else None)

    def allgather(self, op):
        self._comm(op).allgather(None, op[NBYTES])

    def allgatherv(self, op):
        self._comm(op).allgatherv(None, op[NBYTES])

    def alltoall(self, op):
        self._comm(op).alltoall(None, op[NBYTES])

    def alltoallv(self, op):
        self._comm(op).alltoallv(None, self._aux(op))

    def reduce_scatter(self, op):
        self._comm(op).reduce_scatter(None, self.handles.op(op[OP]), self._aux(op))

    def icoll(self, op):
        """A nonblocking collective: MPI_Ibarrier's own, else its blocking kind's call started in the background
        (:mod:`ppt.mpi.surface.communicators.icoll`); its request kept under the op's id."""
        comm = self._comm(op)
        if op[KIND] == Op.IBARRIER:
            request = comm.ibarrier()
        else:
            blocking = (op[KIND] - NONBLOCKING,) + tuple(op[1:])
            request = background(comm, lambda: self.handle(blocking))
        self.handles.start(op[REQUEST], request)

    # -- communicators, groups, ops -------------------------------------------------------
    def comm_dup(self, op):
        self.handles.set_comm(self._aux(op)[0], self._comm(op).dup())

    def comm_split(self, op):
        new, colour, key = self._aux(op)
        self.handles.set_comm(new, self._comm(op).split(colour, key))

    def comm_create(self, op):
        new, group = self._aux(op)
        self.handles.set_comm(new, self._comm(op).create(self.handles.group(group)))

    def cart_create(self, op):
        new, reorder, ndims, *shape = self._aux(op)
        self.handles.set_comm(new, self._comm(op).cart_create(shape[:ndims], shape[ndims:], bool(reorder)))

    def cart_sub(self, op):
        """The equivalent Comm_split: colour the coordinates in the dropped dimensions, key the Cartesian rank."""
        new, *remain = self._aux(op)
        cart = self._comm(op)
        if not hasattr(cart, "dims"):
            raise TraceError(f"trace rank {self.rank} calls MPI_Cart_sub on communicator {op[COMM]}, "
                             "which has no Cartesian topology: the trace is inconsistent")
        dropped = 0
        for coord, size, keep in zip(cart.coords, cart.dims, remain):
            if not keep:
                dropped = dropped * size + coord
        self.handles.set_comm(new, cart.split(dropped, cart.rank))

    def comm_free(self, op):
        comm = self.handles.free_comm(op[COMM])
        if comm is not None:
            comm.free()

    def comm_group(self, op):
        # Group of the members built directly: Comm.group counts an MPI_Comm_group of its own.
        self.handles.groups[self._aux(op)[0]] = self.mpi.group(self._comm(op).members)

    def group_incl(self, op):
        new, group, *ranks = self._aux(op)
        self.handles.groups[new] = self.handles.group(group).incl(ranks)

    def group_excl(self, op):
        new, group, *ranks = self._aux(op)
        self.handles.groups[new] = self.handles.group(group).excl(ranks)

    def _two_groups(self, op):
        new, first, second = self._aux(op)
        return new, self.handles.group(first), self.handles.group(second)

    def group_union(self, op):
        new, first, second = self._two_groups(op)
        self.handles.groups[new] = self.mpi.group(first.members + tuple(w for w in second.members
                                                                        if w not in first.index))

    def group_intersection(self, op):
        new, first, second = self._two_groups(op)
        self.handles.groups[new] = self.mpi.group([w for w in first.members if w in second.index])

    def group_difference(self, op):
        new, first, second = self._two_groups(op)
        self.handles.groups[new] = self.mpi.group([w for w in first.members if w not in second.index])

    def group_free(self, op):
        group = self.handles.groups.pop(self._aux(op)[0], None)
        if group is not None:
            group.free()

    def op_create(self, op):
        self.handles.create_op(op[OP], bool(op[FLAG]))

    def op_free(self, op):
        self.handles.ops.pop(op[OP], None)


#: Op kind -> RankReplay method (OTHER ops have none: they are skipped or refused).
METHODS = {
    Op.LOCAL: "local", Op.INIT: "local", Op.WTIME: "local",
    Op.SEND: "send", Op.ISEND: "isend", Op.RECV: "recv", Op.IRECV: "irecv", Op.SENDRECV: "sendrecv",
    Op.PROBE: "probe", Op.IPROBE: "iprobe",
    Op.WAIT: "wait", Op.WAITALL: "waitall", Op.WAITANY: "waitany", Op.WAITSOME: "waitsome",
    Op.TEST: "test", Op.TESTALL: "testall", Op.TESTANY: "waitany", Op.TESTSOME: "waitsome",
    Op.BARRIER: "barrier", Op.BCAST: "bcast", Op.REDUCE: "reduce", Op.ALLREDUCE: "allreduce",
    Op.SCAN: "scan", Op.EXSCAN: "exscan", Op.GATHER: "gather", Op.SCATTER: "scatter",
    Op.SCATTERV: "scatterv", Op.ALLGATHER: "allgather", Op.ALLGATHERV: "allgatherv",
    Op.ALLTOALL: "alltoall", Op.ALLTOALLV: "alltoallv", Op.REDUCE_SCATTER: "reduce_scatter",
    Op.COMM_DUP: "comm_dup", Op.COMM_SPLIT: "comm_split", Op.COMM_CREATE: "comm_create",
    Op.CART_CREATE: "cart_create", Op.CART_SUB: "cart_sub", Op.COMM_FREE: "comm_free",
    Op.COMM_GROUP: "comm_group", Op.GROUP_INCL: "group_incl", Op.GROUP_EXCL: "group_excl",
    Op.GROUP_UNION: "group_union", Op.GROUP_INTERSECTION: "group_intersection",
    Op.GROUP_DIFFERENCE: "group_difference", Op.GROUP_FREE: "group_free",
    Op.OP_CREATE: "op_create", Op.OP_FREE: "op_free",
    **dict.fromkeys(map(Op, NONBLOCKING_COLLECTIVES), "icoll"),
}
_OTHER, _INIT, _WTIME = int(Op.OTHER), int(Op.INIT), int(Op.WTIME)


def trace_calls(trace) -> Counter:
    """Calls by name over all ranks (:meth:`~ppt.traces.opstream.OpTrace.calls`: no streams read where the
    trace can tell)."""
    return trace.calls()


def unsupported_calls(trace, calls) -> dict:
    """``{name: count}`` of the calls in ``calls`` that ``trace``'s reader leaves as OTHER ops (most frequent
    first)."""
    return {name: n for name, n in Counter(calls).most_common() if not trace.translates(name)}


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


def _rank_main(mpi, trace, compute_scale, skip, progress, skip_unsupported=False, keep_startup=False, clock="wall"):
    rank = mpi.rank
    replayer = RankReplay(mpi, compute_scale, skip, skip_unsupported, clock)
    return replayer.run(trace.stream(rank), progress, keep_startup, trace.has_init(rank))


def replay(trace, job, compute_scale: float = 1.0, skip_unsupported: bool = False, progress=None,
           keep_startup: bool = False, compute_clock: str = "auto") -> dict:
    """Replay :class:`~ppt.traces.opstream.OpTrace` ``trace`` (a DUMPI TraceSet, a saved op-stream trace, ...)
    on MPIJob ``job`` (one simulated rank per trace rank).

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
    The MPI engine replays the op streams itself (:mod:`ppt.mpi.engine.replay`) and raises what goes wrong
    where it goes wrong (a deadlock, mismatched collectives, a call the simulated MPI refuses).
    ``wtime_span_s``/``recorded_wtime_span_s``: predicted and recorded time from a
    rank's first MPI_Wtime call to its last, the phase a program times itself (the
    slowest rank's; per rank too; None without two Wtime calls, e.g. Fortran under
    Open MPI).  Times in seconds, sizes in bytes.
    """
    choice = choose_clock(trace, compute_clock)
    result = replay_result(trace, job, compute_scale, skip_unsupported, progress, keep_startup, choice["clock"])
    return summary(trace, result, keep_startup, choice)


def replay_result(trace, job, compute_scale: float = 1.0, skip_unsupported: bool = False, progress=None,
                  keep_startup: bool = False, compute_clock: str = "auto"):
    """The :class:`~ppt.mpi.job.JobResult` of replaying ``trace`` on ``job`` (arguments as :func:`replay`
    takes them); its ``returns`` are the ranks' replay reports."""
    _, args, counter = rank_program(trace, job.num_ranks, compute_scale, skip_unsupported, progress,
                                    keep_startup, compute_clock)
    _, _, skip, _, _, _, clock = args          # the calls skipped, and the clock auto picked
    options = {"compute_scale": compute_scale, "keep_startup": keep_startup, "clock": clock, "skip": skip,
               "skip_unsupported": skip_unsupported}
    return replay_job(job, trace, RankReplay, options, counter)


def rank_program(trace, num_ranks: int, compute_scale: float = 1.0, skip_unsupported: bool = False, progress=None,
                 keep_startup: bool = False, compute_clock: str = "auto") -> tuple:
    """``(main, args, hook)`` replaying ``trace`` on a job of ``num_ranks`` ranks (``main(mpi, *args)`` on
    every rank), after checking the trace and options as :func:`replay` documents; ``hook`` is the
    simulation's progress hook (None without ``progress``)."""
    if num_ranks != trace.num_ranks:
        raise ConfigError(f"the trace has {trace.num_ranks} ranks but the job {num_ranks}: replay needs one "
                          "simulated rank per trace rank")
    if not 0.0 <= compute_scale < math.inf:
        raise ConfigError(f"compute scale {compute_scale} must be a finite number >= 0 "
                          "(0 ignores the recorded gaps)")
    if compute_clock not in COMPUTE_CLOCKS:
        raise ConfigError(f"compute clock {compute_clock!r} must be one of {', '.join(COMPUTE_CLOCKS)}")
    calls = trace_calls(trace)
    unsupported = unsupported_calls(trace, calls)
    if unsupported and not skip_unsupported:
        listed = ", ".join(f"{name} x{n}" for name, n in unsupported.items())
        raise TraceError(f"unsupported MPI calls in trace: {listed}; "
                         "rerun with --skip-unsupported to ignore them")
    if compute_clock == "auto":
        compute_clock = choose_clock(trace)["clock"]
    counter = ReplayProgress(progress, sum(calls.values())) if progress is not None else None
    return _rank_main, (trace, compute_scale, frozenset(unsupported), counter, skip_unsupported, keep_startup,
                        compute_clock), counter


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

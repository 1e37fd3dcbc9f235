"""OTF2 archives: written with the otf2 package's own writer as Score-P records an MPI program (regions
per call, MPI events inside them, communicators as definitions, collective bytes by Score-P's rules),
read into op streams and replayed; the predicted time must equal the same program written as a PPT
model on the same analytic network, call counts must be the archive's, and bad input one line."""
import json
import re
import sys
from collections import Counter

import pytest

otf2 = pytest.importorskip("otf2", reason="the otf2 package is missing: pip install -e '.[otf2]'")
from otf2.enums import CollectiveOp, CommFlag, GroupType, Paradigm   # noqa: E402

from ppt.cli.main import main                                        # noqa: E402
from ppt.errors import TraceError                                    # noqa: E402
from ppt.mpi import ANY_SOURCE, ANY_TAG, PROC_NULL, SUM, UNDEFINED, MPIJob  # noqa: E402
from ppt.traces.formats import format_of, open_trace                 # noqa: E402
from ppt import oprecord                                             # noqa: E402
from ppt.oprecord import KIND, Op                 # noqa: E402
from ppt.traces.opstream import load, save                 # noqa: E402
from ppt.traces.readers.otf2 import Otf2Trace, read                          # noqa: E402
from ppt.traces.replay import replay                                 # noqa: E402

from mpi_helpers import network                                      # noqa: E402

RANKS = 4
#: Ticks per second: a power of two, so every time the reader derives is an exact float.
RESOLUTION = 1 << 30
#: Ticks every recorded call lasts (replay models a call's time itself; only the gaps are compute).
CALL = 1 << 8
#: About a microsecond: 1024 ticks.
US = 1 << 10
NO_ROOT = (1 << 32) - 1


def seconds(ticks: int) -> float:
    return ticks / RESOLUTION


class Recording:
    """An archive of a RANKS-rank MPI program, written as Score-P writes one: the measurement's own
    communicator of all locations first, MPI_Init at tick 0 on every rank, then each call :meth:`call`
    records after its compute gap (ticks).  ``create_events``: communicators flagged as announced by
    CommCreate/CommDestroy events (OTF2 3)."""

    def __init__(self, folder, create_events: bool = True, predefined_events: bool = False):
        self.writer = otf2.writer.Writer(str(folder), timer_resolution=RESOLUTION)
        defs = self.defs = self.writer.definitions
        node = defs.system_tree_node("machine")
        self.locations = [defs.location("Master thread", group=defs.location_group(f"MPI Rank {r}",
                                                                                  system_tree_parent=node))
                          for r in range(RANKS)]
        for paradigm in (Paradigm.MEASUREMENT_SYSTEM, Paradigm.MPI):
            defs.group("locations", group_type=GroupType.COMM_LOCATIONS, paradigm=paradigm, members=self.locations)
        defs.comm("Process x Threads CPU Locations", parent=None,
                  group=defs.group("all", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MEASUREMENT_SYSTEM,
                                   members=self.locations))
        self.flags = CommFlag.CREATE_DESTROY_EVENTS if create_events else CommFlag.NONE
        self.world = self.comm("MPI_COMM_WORLD", range(RANKS), None, announced=predefined_events)
        self.regions, self.ticks = {}, [0] * RANKS
        self.predefined = ()
        if predefined_events:       # Score-P 8 on: MPI_Init creates MPI_COMM_WORLD and MPI_COMM_SELF, Finalize ends them
            own = self.defs.group("MPI_COMM_SELF", group_type=GroupType.COMM_SELF, paradigm=Paradigm.MPI, members=[])
            self.predefined = (self.world, self.defs.comm("MPI_COMM_SELF", group=own, parent=None, flags=self.flags))
        for rank in range(RANKS):
            self.handles(rank, "MPI_Init", 0, CollectiveOp.CREATE_HANDLE, "comm_create")

    def comm(self, name, ranks, parent, announced=False):
        group = self.defs.group(name, group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                                members=[self.locations[r] for r in ranks])
        return self.defs.comm(name, group=group, parent=parent,
                              flags=self.flags if parent or announced else CommFlag.NONE)

    def call(self, rank, name, gap, *events):
        """Rank ``rank`` computes ``gap`` ticks, then calls ``name``; ``events``: (writer method, args...)
        recorded inside the call."""
        region = self.regions.get(name)
        if region is None:
            region = self.regions[name] = self.defs.region(name, paradigm=Paradigm.MPI)
        writer = self.writer.event_writer_from_location(self.locations[rank])
        start = self.ticks[rank] + gap
        writer.enter(start, region)
        for method, *args in events:
            getattr(writer, method)(start + 1, *args)
        writer.leave(start + CALL, region)
        self.ticks[rank] = start + CALL

    def collective(self, rank, name, gap, op, comm, root, sent, received, *more):
        self.call(rank, name, gap, ("mpi_collective_begin",), *more,
                  ("mpi_collective_end", op, comm, root, sent, received))

    def handles(self, rank, name, gap, op, method):
        """Call ``name``, with a collective of type ``op`` on MPI_COMM_WORLD holding ``method``'s event (CommCreate
        or CommDestroy) of each predefined communicator where they are announced, else with no event."""
        if not self.predefined:
            self.call(rank, name, gap)
            return
        self.collective(rank, name, gap, op, self.world, NO_ROOT, 0, 0,
                        *((method, comm) for comm in self.predefined))

    def close(self, gap=0):
        for rank in range(RANKS):
            self.handles(rank, "MPI_Finalize", gap, CollectiveOp.DESTROY_HANDLE, "comm_destroy")
        self.writer.close()


def job():
    return MPIJob(network(RANKS), RANKS, comm=None)


def kinds(trace, rank):
    return Counter(Op(op[KIND]).name for chunk in trace.stream(rank) for op in chunk.rows())


# -- point to point -------------------------------------------------------------------------------------
P2P_B, BIG_B, TAG = 512, 1 << 20, 3
GAPS = (5 * US, 7 * US, 11 * US)


def p2p(folder):
    """Ranks 0 -> 1: a small and a big Send (the big one waits for its Recv); 2 <-> 3: a Sendrecv each."""
    rec = Recording(folder)
    w = rec.world
    rec.call(0, "MPI_Send", GAPS[0], ("mpi_send", 1, w, TAG, P2P_B))
    rec.call(0, "MPI_Ssend", GAPS[1], ("mpi_send", 1, w, TAG + 1, BIG_B))
    rec.call(1, "MPI_Recv", GAPS[2], ("mpi_recv", 0, w, TAG, P2P_B))
    rec.call(1, "MPI_Recv", GAPS[0], ("mpi_recv", 0, w, TAG + 1, BIG_B))
    for rank, peer in ((2, 3), (3, 2)):
        rec.call(rank, "MPI_Sendrecv", GAPS[rank - 1], ("mpi_send", peer, w, TAG, BIG_B),
                 ("mpi_recv", peer, w, TAG, BIG_B))
    rec.call(2, "MPI_Send", GAPS[0])                 # to MPI_PROC_NULL: Score-P records no event
    rec.close(GAPS[2])


def p2p_model(mpi):
    w, rank, sleep = mpi.COMM_WORLD, mpi.rank, mpi.sleep
    if rank == 0:
        sleep(seconds(GAPS[0])); w.send(None, 1, TAG, P2P_B)
        sleep(seconds(GAPS[1])); w.ssend(None, 1, TAG + 1, BIG_B)
    elif rank == 1:
        sleep(seconds(GAPS[2])); w.recv(0, TAG)
        sleep(seconds(GAPS[0])); w.recv(0, TAG + 1)
    else:
        peer = 5 - rank
        sleep(seconds(GAPS[rank - 1])); w.sendrecv(None, peer, TAG, peer, TAG, BIG_B)
        if rank == 2:
            sleep(seconds(GAPS[0])); w.send(None, PROC_NULL, 0, 0)
    sleep(seconds(GAPS[2]))


def test_point_to_point_counts_and_prediction(tmp_path):
    p2p(tmp_path / "p2p")
    trace = open_trace(tmp_path / "p2p")
    assert isinstance(trace, Otf2Trace) and trace.name == "p2p" and trace.num_ranks == RANKS
    assert trace.calls() == Counter(MPI_Init=4, MPI_Finalize=4, MPI_Send=2, MPI_Ssend=1, MPI_Recv=2,
                                    MPI_Sendrecv=2)
    assert kinds(trace, 0) == Counter(INIT=1, SEND=2, LOCAL=1)
    assert kinds(trace, 2) == Counter(INIT=1, SENDRECV=1, SEND=1, LOCAL=1)
    assert trace.compute_gaps()[1] == (seconds(GAPS[2] + GAPS[0] + GAPS[2]), None)
    got = replay(trace, job())
    expected = job().run(p2p_model)
    assert got["predicted_s"] == expected.predicted_s > seconds(GAPS[0] + GAPS[1]) + BIG_B / 1e9
    assert got["bytes_p2p"] == P2P_B + 3 * BIG_B


def test_probes_wait_for_the_message_they_record_and_only_look_without_one(tmp_path):
    """Rank 1 probes (recorded with MpiProbe), receives, then probes as an archive before OTF2 3.1
    records it (no event) and an Iprobe that found nothing, then receives."""
    rec = Recording(tmp_path / "t")
    w = rec.world
    for tag, gap in ((TAG, GAPS[1]), (TAG + 1, GAPS[2])):
        rec.call(0, "MPI_Send", gap, ("mpi_send", 1, w, tag, BIG_B))
    rec.call(1, "MPI_Probe", US, ("mpi_probe", 0, w, TAG, (1 << 64) - 1))
    rec.call(1, "MPI_Recv", US, ("mpi_recv", 0, w, TAG, BIG_B))
    rec.call(1, "MPI_Probe", US)
    rec.call(1, "MPI_Iprobe", US)
    rec.call(1, "MPI_Recv", US, ("mpi_recv", 0, w, TAG + 1, BIG_B))
    rec.close()

    def model(mpi):
        w = mpi.COMM_WORLD
        if mpi.rank == 0:
            for tag, gap in ((TAG, GAPS[1]), (TAG + 1, GAPS[2])):
                mpi.sleep(seconds(gap)); w.send(None, 1, tag, BIG_B)
        elif mpi.rank == 1:
            mpi.sleep(seconds(US)); w.probe(0, TAG)
            mpi.sleep(seconds(US)); w.recv(0, TAG)
            for _ in range(2):
                mpi.sleep(seconds(US)); w.iprobe(ANY_SOURCE, ANY_TAG)
            mpi.sleep(seconds(US)); w.recv(0, TAG + 1)

    trace = read(tmp_path / "t")
    assert kinds(trace, 1) == Counter(INIT=1, IPROBE=3, RECV=2, LOCAL=1)
    got = replay(trace, job())
    expected = job().run(model)
    assert got["predicted_s"] == expected.predicted_s
    assert (got["calls"]["MPI_Probe"], got["calls"]["MPI_Iprobe"]) == (2, 1)     # the model looks with Iprobe


# -- collectives, with Score-P's byte counts -------------------------------------------------------------
COLL_B, ROOT = 4096, 2


def scorep_bytes(op, b, n, i, root):
    """(sent, received) as Score-P records rank ``i`` of ``n`` in a collective of ``b`` bytes a rank."""
    at_root = i == root
    return {"BARRIER": (0, 0), "BCAST": (n * b if at_root else 0, b), "REDUCE": (b, n * b if at_root else 0),
            "ALLREDUCE": (n * b, n * b), "GATHER": (b, n * b if at_root else 0),
            "SCATTER": (n * b if at_root else 0, b), "ALLGATHER": (n * b, n * b), "ALLTOALL": (n * b, n * b),
            "SCAN": ((n - i) * b, (i + 1) * b), "EXSCAN": ((n - 1 - i) * b, i * b),
            "REDUCE_SCATTER_BLOCK": (n * b, n * b)}[op]


#: (call, OTF2 collective type, rooted) in program order.
COLLECTIVES = (("MPI_Barrier", "BARRIER", False), ("MPI_Bcast", "BCAST", True), ("MPI_Reduce", "REDUCE", True),
               ("MPI_Allreduce", "ALLREDUCE", False), ("MPI_Gather", "GATHER", True),
               ("MPI_Scatter", "SCATTER", True), ("MPI_Allgather", "ALLGATHER", False),
               ("MPI_Alltoall", "ALLTOALL", False), ("MPI_Scan", "SCAN", False), ("MPI_Exscan", "EXSCAN", False),
               ("MPI_Reduce_scatter_block", "REDUCE_SCATTER_BLOCK", False))


def gap(rank, step):
    return (rank + 1) * (step + 2) * US


def collectives(folder):
    rec = Recording(folder)
    for rank in range(RANKS):
        for step, (name, op, rooted) in enumerate(COLLECTIVES):
            root = ROOT if rooted else NO_ROOT
            rec.collective(rank, name, gap(rank, step), getattr(CollectiveOp, op), rec.world, root,
                           *scorep_bytes(op, COLL_B, RANKS, rank, ROOT))
    rec.close()


def collectives_model(mpi):
    w = mpi.COMM_WORLD
    calls = (w.barrier, lambda: w.bcast(None, ROOT, COLL_B), lambda: w.reduce(None, SUM, ROOT, COLL_B),
             lambda: w.allreduce(None, SUM, COLL_B), lambda: w.gather(None, ROOT, COLL_B),
             lambda: w.scatter(None, ROOT, COLL_B if w.rank == ROOT else None),
             lambda: w.allgather(None, COLL_B), lambda: w.alltoall(None, COLL_B),
             lambda: w.scan(None, SUM, COLL_B), lambda: w.exscan(None, SUM, COLL_B),
             lambda: w.reduce_scatter_block(None, SUM, COLL_B))
    for step, call in enumerate(calls):
        mpi.sleep(seconds(gap(mpi.rank, step)))
        call()


def test_collectives_undo_scorep_byte_counts_and_predict_as_the_model(tmp_path):
    collectives(tmp_path / "coll")
    trace = read(tmp_path / "coll" / "traces.otf2")
    assert trace.calls() == Counter({name: RANKS for name, _, _ in COLLECTIVES}, MPI_Init=4, MPI_Finalize=4)
    for chunk in trace.stream(3):
        sizes = {chunk.calls[op[oprecord.CALL]]: op[oprecord.NBYTES] for op in chunk.rows()}
        assert {sizes[name] for name in ("MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Gather", "MPI_Scatter",
                                         "MPI_Allgather", "MPI_Alltoall", "MPI_Scan", "MPI_Exscan")} == {COLL_B}
    got = replay(trace, job())
    assert got["predicted_s"] == job().run(collectives_model).predicted_s


#: Bytes each rank gets from a Scatterv and a Reduce_scatter (Score-P records only each rank's own).
PARTS = [1000, 3000, 0, 6000]


def test_v_collectives_gather_their_split_from_the_receivers(tmp_path):
    rec = Recording(tmp_path / "v")
    for rank in range(RANKS):
        sent = sum(PARTS) if rank == ROOT else 0
        rec.collective(rank, "MPI_Scatterv", gap(rank, 0), CollectiveOp.SCATTERV, rec.world, ROOT, sent, PARTS[rank])
        rec.collective(rank, "MPI_Reduce_scatter", gap(rank, 1), CollectiveOp.REDUCE_SCATTER, rec.world, NO_ROOT,
                       sum(PARTS), RANKS * PARTS[rank])
    rec.close()

    def model(mpi):
        w = mpi.COMM_WORLD
        mpi.sleep(seconds(gap(mpi.rank, 0)))
        w.scatterv(None, ROOT, PARTS if w.rank == ROOT else None)
        mpi.sleep(seconds(gap(mpi.rank, 1)))
        w.reduce_scatter(None, SUM, PARTS)

    trace = read(tmp_path / "v")
    splits = {rank: [list(chunk.aux_list()) for chunk in trace.stream(rank)] for rank in range(RANKS)}
    assert splits[ROOT] == [PARTS * 2] and splits[0] == [PARTS]
    assert replay(trace, job())["predicted_s"] == job().run(model).predicted_s


# -- communicators: split, dup, free -------------------------------------------------------------------
SUB_B = 1 << 16
#: Odd and even world ranks split, each half ordered by descending world rank.
HALVES = ([3, 1], [2, 0])


#: Ranks 1-3 split off; rank 0 gets MPI_COMM_NULL.
TRIO = [1, 2, 3]
#: How a creation is recorded: as OTF2 3 announces it (CREATE_HANDLE collective holding CommCreate), the
#: same with MPI_COMM_WORLD and MPI_COMM_SELF announced too, in MPI_Init and MPI_Finalize (Score-P 8.4),
#: as a collective without CommCreate, or as a plain call without events (Score-P before 8).
RECORDED = ("announced", "scorep8", "collective", "plain")


def communicators(folder, recorded):
    """World split into HALVES, a dup of it, an allreduce and a bcast on each half, a barrier on the dup,
    the half freed, then world split into TRIO and a barrier on it."""
    announced = recorded in ("announced", "scorep8")
    rec = Recording(folder, announced, predefined_events=recorded == "scorep8")
    halves = [rec.comm(f"half {i}", members, rec.world) for i, members in enumerate(HALVES)]
    dup = rec.comm("dup", range(RANKS), rec.world)
    trio = rec.comm("trio", TRIO, rec.world)

    def handles(rank, name, gap, op, made, on):
        if recorded == "plain":
            rec.call(rank, name, gap)
        else:
            events = [("comm_create" if op == CollectiveOp.CREATE_HANDLE else "comm_destroy", made)] * (
                announced and made is not None)
            rec.collective(rank, name, gap, op, on, NO_ROOT, 0, 0, *events)

    for rank in range(RANKS):
        half = halves[rank % 2 == 0]
        n, i = 2, HALVES[rank % 2 == 0].index(rank)
        handles(rank, "MPI_Comm_split", 2 * US, CollectiveOp.CREATE_HANDLE, half, rec.world)
        handles(rank, "MPI_Comm_dup", 3 * US, CollectiveOp.CREATE_HANDLE, dup, rec.world)
        rec.collective(rank, "MPI_Allreduce", (rank + 1) * US, CollectiveOp.ALLREDUCE, half, NO_ROOT,
                       n * SUB_B, n * SUB_B)
        rec.collective(rank, "MPI_Bcast", US, CollectiveOp.BCAST, half, 0, n * SUB_B if i == 0 else 0, SUB_B)
        rec.collective(rank, "MPI_Barrier", US, CollectiveOp.BARRIER, dup, NO_ROOT, 0, 0)
        handles(rank, "MPI_Comm_free", US, CollectiveOp.DESTROY_HANDLE, half, half)
        handles(rank, "MPI_Comm_split", US, CollectiveOp.CREATE_HANDLE, trio if rank in TRIO else None, rec.world)
        if rank in TRIO:
            rec.collective(rank, "MPI_Barrier", (5 - rank) * US, CollectiveOp.BARRIER, trio, NO_ROOT, 0, 0)
    rec.close(US)


def communicators_model(mpi):
    w, rank = mpi.COMM_WORLD, mpi.rank
    members = HALVES[rank % 2 == 0]
    mpi.sleep(seconds(2 * US))
    half = w.split(rank % 2, members.index(rank))
    mpi.sleep(seconds(3 * US))
    dup = w.dup()
    mpi.sleep(seconds((rank + 1) * US))
    half.allreduce(None, SUM, SUB_B)
    mpi.sleep(seconds(US))
    half.bcast(None, 0, SUB_B)
    mpi.sleep(seconds(US))
    dup.barrier()
    mpi.sleep(seconds(US))
    half.free()
    mpi.sleep(seconds(US))
    trio = w.split(0 if rank in TRIO else UNDEFINED, rank)
    if trio is not None:
        mpi.sleep(seconds((5 - rank) * US))
        trio.barrier()
    mpi.sleep(seconds(US))


@pytest.mark.parametrize("recorded", RECORDED)
def test_split_and_dup_communicators_come_from_definitions(tmp_path, recorded):
    communicators(tmp_path / "comms", recorded)
    trace = open_trace(tmp_path / "comms")
    freed = {"COMM_FREE": 1} if recorded != "plain" else {"LOCAL": 1}
    assert kinds(trace, 0) == Counter({"INIT": 1, "COMM_SPLIT": 2, "COMM_DUP": 1, "ALLREDUCE": 1, "BCAST": 1,
                                       "BARRIER": 1, "LOCAL": 1}) + Counter(freed)
    got = replay(trace, job())
    expected = job().run(communicators_model)
    assert got["predicted_s"] == expected.predicted_s
    assert got["calls"] == expected.calls | {"MPI_Init": 4, "MPI_Finalize": 4}


@pytest.mark.parametrize("name", ["pair", ""])
def test_a_communicator_no_call_created_is_one_line(tmp_path, name):
    """Named by its name, or, as Score-P leaves many unnamed, by its definition's id."""
    rec = Recording(tmp_path / "t")
    pair = rec.comm(name, [0, 1], rec.world)
    rec.collective(0, "MPI_Barrier", US, CollectiveOp.BARRIER, pair, NO_ROOT, 0, 0)
    rec.close()
    called = repr(name) if name else f"#{pair._ref} (unnamed)"
    with pytest.raises(TraceError, match=f"rank 0 uses communicator {re.escape(called)}, which no call created on it"
                       ) as info:
        read(tmp_path / "t")
    assert "\n" not in str(info.value) and "''" not in str(info.value)


# -- nonblocking exchange with waits ---------------------------------------------------------------------
RING_B = 1 << 18


def nonblocking(folder):
    """A ring exchange: Irecv from the left, Isend to the right, compute, Waitall; then a second round
    completed by a failed Test, a Waitany and a Wait."""
    rec = Recording(folder)
    w = rec.world
    for rank in range(RANKS):
        left, right = (rank - 1) % RANKS, (rank + 1) % RANKS
        rec.call(rank, "MPI_Irecv", US, ("mpi_irecv_request", 10))
        rec.call(rank, "MPI_Isend", US, ("mpi_isend", right, w, TAG, RING_B, 11))
        rec.call(rank, "MPI_Waitall", (rank + 1) * 20 * US, ("mpi_isend_complete", 11),
                 ("mpi_irecv", left, w, TAG, RING_B, 10))
        rec.call(rank, "MPI_Irecv", US, ("mpi_irecv_request", 12))
        rec.call(rank, "MPI_Isend", US, ("mpi_isend", left, w, TAG + 1, RING_B, 13))
        rec.call(rank, "MPI_Test", 0, ("mpi_request_test", 12))
        rec.call(rank, "MPI_Waitany", 30 * US, ("mpi_irecv", right, w, TAG + 1, RING_B, 12))
        rec.call(rank, "MPI_Wait", US, ("mpi_isend_complete", 13))
    rec.close()


def nonblocking_model(mpi):
    w, rank, sleep = mpi.COMM_WORLD, mpi.rank, mpi.sleep
    left, right = (rank - 1) % RANKS, (rank + 1) % RANKS
    sleep(seconds(US)); received = w.irecv(left, TAG)
    sleep(seconds(US)); sent = w.isend(None, right, TAG, RING_B)
    sleep(seconds((rank + 1) * 20 * US)); mpi.waitall([sent, received])
    sleep(seconds(US)); received = w.irecv(right, TAG + 1)
    sleep(seconds(US)); sent = w.isend(None, left, TAG + 1, RING_B)
    mpi.test(received)
    sleep(seconds(30 * US)); mpi.waitany([received])
    sleep(seconds(US)); mpi.wait(sent)


def test_nonblocking_exchange_resolves_irecvs_at_their_completion(tmp_path):
    nonblocking(tmp_path / "ring")
    trace = open_trace(tmp_path / "ring")
    assert kinds(trace, 1) == Counter(INIT=1, IRECV=2, ISEND=2, WAITALL=1, TEST=1, WAITANY=1, WAIT=1, LOCAL=1)
    irecvs = [op for chunk in trace.stream(1) for op in chunk.rows() if op[KIND] == Op.IRECV]
    posted = [(op[oprecord.PEER], op[oprecord.TAG], op[oprecord.NBYTES]) for op in irecvs]
    assert posted == [(0, TAG, RING_B), (2, TAG + 1, RING_B)]
    got = replay(trace, job())
    expected = job().run(nonblocking_model)
    assert got["predicted_s"] == expected.predicted_s
    assert got["calls"] == expected.calls | {"MPI_Init": 4, "MPI_Finalize": 4}


def test_saved_as_an_op_stream_folder_it_replays_alike(tmp_path):
    nonblocking(tmp_path / "ring")
    trace = read(tmp_path / "ring")
    saved = load(save(trace, tmp_path / "saved"))
    assert saved.calls() == trace.calls() and saved.compute_gaps() == trace.compute_gaps()
    assert replay(saved, job())["predicted_s"] == replay(trace, job())["predicted_s"]


def test_an_irecv_never_completed_or_cancelled_receives_from_proc_null(tmp_path):
    rec = Recording(tmp_path / "t")
    rec.call(0, "MPI_Irecv", US, ("mpi_irecv_request", 5))
    rec.call(0, "MPI_Barrier", US)                  # no collective events: an OTHER op after it
    rec.call(1, "MPI_Irecv", US, ("mpi_irecv_request", 6))
    rec.call(1, "MPI_Cancel", US)
    rec.call(1, "MPI_Wait", 40 * US, ("mpi_request_cancelled", 6))
    rec.close()
    trace = read(tmp_path / "t")
    ops = {rank: [(Op(op[KIND]).name, op[oprecord.PEER], op[oprecord.REQUEST])
                  for chunk in trace.stream(rank) for op in chunk.rows()][1:-1] for rank in (0, 1)}
    assert ops == {0: [("IRECV", -1, 5), ("OTHER", -1, 0)], 1: [("IRECV", -1, 6), ("LOCAL", -1, 0), ("WAIT", -1, 6)]}
    # rank 1's wait completes at once: it finishes after its gaps alone
    finish = replay(trace, job(), skip_unsupported=True)["per_rank"][1]["finish_s"]
    assert finish == seconds(US + US + 40 * US)


def test_a_creation_over_the_new_members_alone_is_read_and_refused_by_name(tmp_path):
    """MPI_Comm_create_group is collective over its group only: Score-P's collective names the new one."""
    rec = Recording(tmp_path / "t")
    pair = rec.comm("pair", [0, 1], rec.world)
    for rank in (0, 1):
        rec.collective(rank, "MPI_Comm_create_group", US, CollectiveOp.CREATE_HANDLE, pair, NO_ROOT, 0, 0,
                       ("comm_create", pair))
        rec.collective(rank, "MPI_Barrier", US, CollectiveOp.BARRIER, pair, NO_ROOT, 0, 0)
    rec.close()
    trace = read(tmp_path / "t")
    assert kinds(trace, 1) == Counter(INIT=1, OTHER=1, BARRIER=1, LOCAL=1)
    with pytest.raises(TraceError, match="unsupported MPI calls in trace: MPI_Comm_create_group x2"):
        replay(trace, job())


def test_a_call_the_trace_ends_in_is_read_lasting_no_time(tmp_path):
    """Score-P may stop its measurement inside MPI_Finalize: its Leave is never written."""
    rec = Recording(tmp_path / "t")
    finalize = rec.defs.region("MPI_Finalize", paradigm=Paradigm.MPI)
    for rank in range(RANKS):
        rec.writer.event_writer_from_location(rec.locations[rank]).enter(rec.ticks[rank] + (rank + 1) * US, finalize)
    rec.writer.close()
    trace = read(tmp_path / "t")
    assert trace.calls() == Counter(MPI_Init=4, MPI_Finalize=4)
    assert trace.compute_gaps() == [(seconds((rank + 1) * US), None) for rank in range(RANKS)]
    assert trace.span() == (0.0, seconds(CALL + RANKS * US))


# -- the front door, the command line and bad input ---------------------------------------------------
def test_trace_info_reads_an_archive(tmp_path, capsys):
    p2p(tmp_path / "p2p")
    assert format_of(tmp_path / "p2p").name == format_of(tmp_path / "p2p" / "traces.otf2").name == "otf2"
    assert main(["trace-info", str(tmp_path / "p2p"), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["ranks"] == RANKS and info["calls"]["MPI_Sendrecv"] == 2 and info["p2p_bytes"] == P2P_B + 3 * BIG_B


#: The file damaged -> what the error names (a location's event and definition files are named together).
DAMAGED = {"traces/2.evt": "traces/2.evt (or 2.def)", "traces/1.def": "traces/1.evt (or 1.def)",
           "traces.def": "traces.def", "traces.otf2": "traces.otf2"}


@pytest.mark.parametrize("damaged", list(DAMAGED))
def test_truncated_archive_is_one_line_naming_the_file_with_status_2(tmp_path, capsys, damaged):
    p2p(tmp_path / "p2p")
    path = tmp_path / "p2p" / damaged
    path.write_bytes(path.read_bytes()[:len(path.read_bytes()) // 2])
    assert main(["trace-info", str(tmp_path / "p2p")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{tmp_path / 'p2p' / DAMAGED[damaged]}: truncated or damaged" in err


def test_unknown_collective_type_is_one_line(tmp_path):
    rec = Recording(tmp_path / "t")
    rec.collective(0, "MPI_Neighbor_allgather", US, CollectiveOp(99), rec.world, NO_ROOT, 8, 8)
    rec.close()
    with pytest.raises(TraceError, match="rank 0 calls MPI_Neighbor_allgather as a collective of type 99") as info:
        read(tmp_path / "t")
    assert "\n" not in str(info.value)


def test_without_the_package_says_what_to_install(tmp_path, monkeypatch):
    p2p(tmp_path / "p2p")
    monkeypatch.setitem(sys.modules, "otf2", None)
    with pytest.raises(TraceError, match=r"needs the otf2 package: pip install -e '\.\[otf2\]'"):
        open_trace(tmp_path / "p2p")


def test_an_archive_whose_ranks_make_no_mpi_call_is_one_line(tmp_path, capsys):
    """An MPI locations group but only user regions (an HPX program started by mpirun): no 0-second trace."""
    rec = Recording.__new__(Recording)
    rec.writer = otf2.writer.Writer(str(tmp_path / "hpx"), timer_resolution=RESOLUTION)
    defs = rec.defs = rec.writer.definitions
    node = defs.system_tree_node("machine")
    rec.locations = [defs.location("Master thread", group=defs.location_group(f"MPI Rank {r}",
                                                                             system_tree_parent=node))
                     for r in range(RANKS)]
    defs.group("locations", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI, members=rec.locations)
    work = defs.region("hpx_main", paradigm=Paradigm.USER)
    for rank in range(RANKS):
        writer = rec.writer.event_writer_from_location(rec.locations[rank])
        writer.enter(US, work)
        writer.leave(10 * US, work)
    rec.writer.close()
    with pytest.raises(TraceError, match=f"^no MPI calls in {re.escape(str(tmp_path / 'hpx' / 'traces.otf2'))}: "):
        read(tmp_path / "hpx")
    assert main(["replay", str(tmp_path / "hpx"), "--system", "fattree-4-3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no MPI calls in" in err


#: Bytes of each rank's nonblocking all-reduce and broadcast.
ICOLL_B = 1 << 12


def test_nonblocking_collectives_are_told_by_their_completion_and_predict_as_the_model(tmp_path):
    """OTF2 3 records an Iallreduce's request in its call and what it was (type, communicator, root, bytes) in the
    Wait that completes it: read so, two collectives in flight complete in a Waitall in either order, overlap the
    computation before it and predict what the same program run as a PPT model predicts."""
    rec = Recording(tmp_path / "t")
    for rank in range(RANKS):
        rec.call(rank, "MPI_Iallreduce", US, ("non_blocking_collective_request", 40))
        rec.call(rank, "MPI_Ibcast", US, ("non_blocking_collective_request", 41))
        rec.call(rank, "MPI_Waitall", (rank + 1) * 10 * US,
                 ("non_blocking_collective_complete", CollectiveOp.BCAST, rec.world, ROOT,
                  RANKS * ICOLL_B if rank == ROOT else 0, ICOLL_B, 41),
                 ("non_blocking_collective_complete", CollectiveOp.ALLREDUCE, rec.world, NO_ROOT,
                  RANKS * ICOLL_B, RANKS * ICOLL_B, 40))
    rec.close()

    def model(mpi):
        import numpy as np
        w, doubles = mpi.COMM_WORLD, ICOLL_B // 8
        mpi.sleep(seconds(US))
        summed = w.Iallreduce(np.ones(doubles), np.zeros(doubles))
        mpi.sleep(seconds(US))
        sent = w.Ibcast(np.zeros(doubles), root=ROOT)
        mpi.sleep(seconds((w.rank + 1) * 10 * US))
        mpi.waitall([sent, summed])

    trace = read(tmp_path / "t")
    assert kinds(trace, 2) == Counter(INIT=1, IALLREDUCE=1, IBCAST=1, WAITALL=1, LOCAL=1)
    ops = [op for chunk in trace.stream(1) for op in chunk.rows()]
    assert [(op[oprecord.NBYTES], op[oprecord.ROOT], op[oprecord.REQUEST]) for op in ops[1:3]] == [
        (ICOLL_B, 0, 40), (ICOLL_B, ROOT, 41)]
    got, expected = replay(trace, job()), job().run(model)
    assert got["predicted_s"] == expected.predicted_s
    assert got["calls"] == expected.calls | {"MPI_Init": 4, "MPI_Finalize": 4}
    saved = load(save(trace, tmp_path / "saved"))                       # the folder form carries them
    assert replay(saved, job())["predicted_s"] == got["predicted_s"]


def test_a_nonblocking_v_collective_gathers_its_split_and_one_never_completed_is_refused_by_name(tmp_path):
    """An Iscatterv's split comes from its members' completions, as a Scatterv's from theirs; an Ialltoall that
    no call completes says no type: an OTHER op, refused by name."""
    rec = Recording(tmp_path / "t")
    for rank in range(RANKS):
        rec.call(rank, "MPI_Iscatterv", US, ("non_blocking_collective_request", 7))
        rec.call(rank, "MPI_Wait", US, ("non_blocking_collective_complete", CollectiveOp.SCATTERV, rec.world, ROOT,
                                        sum(PARTS) if rank == ROOT else 0, PARTS[rank], 7))
        rec.call(rank, "MPI_Ialltoall", US, ("non_blocking_collective_request", 8))
    rec.close()
    trace = read(tmp_path / "t")
    assert kinds(trace, ROOT) == Counter(INIT=1, ISCATTERV=1, WAIT=1, OTHER=1, LOCAL=1)
    assert [chunk.aux_list() for chunk in trace.stream(ROOT)] == [PARTS]
    with pytest.raises(TraceError, match="^unsupported MPI calls in trace: MPI_Ialltoall x4; ") as info:
        replay(trace, job())
    assert "\n" not in str(info.value)
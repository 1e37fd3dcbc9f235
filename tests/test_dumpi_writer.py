"""The DUMPI writer: op stream -> DUMPI set -> libundumpi (the DUMPI reader) gives the same ops; its errors."""
import subprocess
import sys

import numpy as np
import pytest

from ppt.cli.main import main
from ppt.errors import ConfigError, TraceError
from ppt.oprecord import (ANY_SOURCE, ANY_TAG, AUX_LEN, AUX_START, CALL, CALL_S, COMM, COMM_NULL, COMM_SELF,
                          COMM_WORLD, GAP_CPU_S, GAP_WALL_S, KIND, NO_INDEX, PROC_NULL, START_S, UNDEFINED, Op)
from ppt.traces import bundled, opstream
from ppt.traces.info import summarize
from ppt.traces.opstream import MemoryTrace
from ppt.traces.readers.dumpi import TraceSet
from ppt.traces.writers import dumpi as dumpi_writer

#: DUMPI keeps times to the nanosecond; a time read back may differ by rounding at both ends of a gap.
TIME_TOL_S = 2e-9
_MAKES_COMM = (Op.COMM_DUP, Op.COMM_SPLIT, Op.COMM_CREATE, Op.CART_CREATE, Op.CART_SUB)
#: Positions in aux that hold group handles, per kind.
_GROUP_AUX = {Op.COMM_GROUP: (0,), Op.COMM_CREATE: (1,), Op.GROUP_INCL: (0, 1), Op.GROUP_EXCL: (0, 1),
              Op.GROUP_UNION: (0, 1, 2), Op.GROUP_INTERSECTION: (0, 1, 2), Op.GROUP_DIFFERENCE: (0, 1, 2),
              Op.GROUP_FREE: (0,)}


def ops_of(trace, rank):
    """Rank ``rank``'s ops as (row, aux, call name), comm and group handles renamed in order of first use (the
    writer may move them up as one), times apart."""
    comms = {COMM_WORLD: COMM_WORLD, COMM_SELF: COMM_SELF, COMM_NULL: COMM_NULL}
    groups = {}
    out, times = [], []
    for chunk in trace.stream(rank):
        aux_all = chunk.aux_list()
        for op in chunk.rows():
            kind, aux = op[KIND], list(aux_all[op[AUX_START]:op[AUX_START] + op[AUX_LEN]])
            if kind in _MAKES_COMM:
                aux[0] = comms.setdefault(aux[0], 100 + len(comms))
            for i in _GROUP_AUX.get(kind, ()):
                aux[i] = groups.setdefault(aux[i], 100 + len(groups))
            row = list(op)
            row[COMM] = comms.setdefault(row[COMM], 100 + len(comms))
            for field in (CALL, AUX_START, GAP_WALL_S, GAP_CPU_S, CALL_S, START_S):
                row[field] = None
            out.append((tuple(row), aux, chunk.calls[op[CALL]]))
            times.append((op[GAP_WALL_S], op[GAP_CPU_S], op[CALL_S], op[START_S]))
    return out, np.array(times)


def assert_same_ops(written, read):
    assert read.num_ranks == written.num_ranks
    for rank in range(written.num_ranks):
        (expected, t_expected), (got, t_got) = ops_of(written, rank), ops_of(read, rank)
        assert len(got) == len(expected), rank
        for i, (a, b) in enumerate(zip(got, expected)):
            assert a == b, (rank, i)
        assert np.abs(t_got - t_expected).max(initial=0.0) <= TIME_TOL_S, rank


@pytest.mark.parametrize("name", bundled.names())
def test_every_recorded_sample_reads_back_as_the_same_ops(tmp_path, name):
    trace = opstream.load(bundled.path(name))
    stats = dumpi_writer.write(trace, tmp_path / "set")
    back = TraceSet(tmp_path / "set")
    assert stats["records"] == sum(trace.calls().values()) and stats["dropped"] == stats["renamed"] == {}
    assert_same_ops(trace, back)
    assert back.calls() == trace.calls()           # the footers count what the op stream holds
    assert np.array(back.compute_gaps()) == pytest.approx(np.array(trace.compute_gaps()), abs=1e-8)
    assert back.span() == pytest.approx(trace.span(), abs=TIME_TOL_S)
    for rank in range(trace.num_ranks):
        assert back.datatype_sizes(rank)[5] == 1     # bytes are counts of MPI_BYTE


BIG_B = 3 * 2**31      # past DUMPI's 32-bit count: a derived type of the rank's own


def every_kind():
    """Four ranks calling every op kind the writer writes (not a program that would replay: the writer only
    translates), with gaps, wildcards, PROC_NULL, recorded outcomes and communicators made every way."""
    t = MemoryTrace("kinds", 4)
    for r in range(4):
        b = t.builder(r)
        clock = [0.001 + 1e-5 * r]         # rank 0 starts first: the trace's start is its first call's

        def add(kind, call, **fields):
            start, first = clock[0] + 1e-6, not b.ops
            gap = start - (0.001 + 1e-6) if first else 1e-6        # the first gap counts from the trace's start
            b.add(kind, call, gap_wall_s=gap, gap_cpu_s=gap if first else 0.5e-6, call_s=2e-7, start_s=start, **fields)
            clock[0] = start + 2e-7
        add(Op.INIT, "MPI_Init_thread")
        add(Op.LOCAL, "MPI_Comm_rank")
        add(Op.LOCAL, "MPI_Comm_size")
        add(Op.WTIME, "MPI_Wtime")
        peer = r ^ 1
        for call in ("MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend"):
            add(Op.SEND, call, peer=peer, tag=7, nbytes=100 + r)
        add(Op.SEND, "MPI_Send", peer=PROC_NULL, tag=1, nbytes=8)
        add(Op.SEND, "MPI_Send", peer=peer, tag=9, nbytes=BIG_B)
        add(Op.RECV, "MPI_Recv", peer=ANY_SOURCE, tag=ANY_TAG, nbytes=64)
        add(Op.RECV, "MPI_Recv", peer=PROC_NULL, tag=2, nbytes=0)
        for i, call in enumerate(("MPI_Isend", "MPI_Ibsend", "MPI_Issend", "MPI_Irsend")):
            add(Op.ISEND, call, peer=peer, tag=i, nbytes=16, request=-5 - i)
        add(Op.IRECV, "MPI_Irecv", peer=peer, tag=3, nbytes=32, request=2**31 - 1)
        add(Op.SENDRECV, "MPI_Sendrecv", peer=peer, tag=4, nbytes=24, aux=[peer, 4, 48])
        add(Op.SENDRECV, "MPI_Sendrecv_replace", peer=peer, tag=5, nbytes=40, aux=[ANY_SOURCE, ANY_TAG, 40])
        add(Op.PROBE, "MPI_Probe", peer=peer, tag=6)
        add(Op.IPROBE, "MPI_Iprobe", peer=ANY_SOURCE, tag=ANY_TAG, flag=0)
        add(Op.IPROBE, "MPI_Iprobe", peer=peer, tag=6, flag=1)
        add(Op.WAIT, "MPI_Wait", request=-5)
        add(Op.TEST, "MPI_Test", request=-6, flag=1)
        add(Op.WAITALL, "MPI_Waitall", aux=[-7, -8])
        add(Op.TESTALL, "MPI_Testall", aux=[2**31 - 1], flag=0)
        add(Op.WAITANY, "MPI_Waitany", aux=[11, 12], flag=1)
        add(Op.TESTANY, "MPI_Testany", aux=[11, 12], flag=NO_INDEX)
        add(Op.WAITSOME, "MPI_Waitsome", aux=[21, 22, 23, 0, 2], flag=2)
        add(Op.TESTSOME, "MPI_Testsome", aux=[21, 22], flag=0)
        add(Op.BARRIER, "MPI_Barrier")
        add(Op.BCAST, "MPI_Bcast", root=2, nbytes=80)
        add(Op.REDUCE, "MPI_Reduce", root=1, op=3, nbytes=8)
        add(Op.ALLREDUCE, "MPI_Allreduce", op=1, nbytes=16)
        add(Op.SCAN, "MPI_Scan", op=3, nbytes=8)
        add(Op.EXSCAN, "MPI_Exscan", op=2, nbytes=8)
        add(Op.OP_CREATE, "MPI_Op_create", op=15, flag=1)
        add(Op.ALLREDUCE, "MPI_Allreduce", op=15, nbytes=24)
        add(Op.OP_FREE, "MPI_Op_free", op=15)
        add(Op.ALLGATHER, "MPI_Allgather", nbytes=12)
        add(Op.ALLGATHERV, "MPI_Allgatherv", nbytes=4 * (r + 1))
        add(Op.ALLTOALL, "MPI_Alltoall", nbytes=20)
        add(Op.ALLTOALLV, "MPI_Alltoallv", aux=[r, 2 * r, 0, 5])
        add(Op.REDUCE_SCATTER, "MPI_Reduce_scatter", op=3, aux=[8, 16, 0, 8])
        add(Op.SCATTERV, "MPI_Scatterv", root=3, aux=[4, 8, 12, 16] if r == 3 else [])
        # communicators: split into pairs (rank 3 in none), gathers and scatters on the pairs, dup, cart, sub, create
        add(Op.COMM_SPLIT, "MPI_Comm_split", aux=[2 if r < 3 else COMM_NULL, r // 2 if r < 3 else UNDEFINED, -r])
        if r < 3:
            add(Op.GATHER, "MPI_Gather", comm=2, root=0, nbytes=8)
            add(Op.GATHER, "MPI_Gatherv", comm=2, root=1, nbytes=8 * (r + 1))
            add(Op.SCATTER, "MPI_Scatter", comm=2, root=0, nbytes=4)
            add(Op.COMM_DUP, "MPI_Comm_dup", comm=2, aux=[3])
            add(Op.BARRIER, "MPI_Barrier", comm=3)
            add(Op.COMM_FREE, "MPI_Comm_free", comm=3)
        add(Op.CART_CREATE, "MPI_Cart_create", aux=[5, 1, 2, 2, 2, 1, 0])
        add(Op.CART_SUB, "MPI_Cart_sub", comm=5, aux=[6, 0, 1])
        add(Op.COMM_GROUP, "MPI_Comm_group", aux=[0])
        add(Op.GROUP_INCL, "MPI_Group_incl", aux=[1, 0, 0, 2])
        add(Op.GROUP_EXCL, "MPI_Group_excl", aux=[2, 0, 1])
        add(Op.GROUP_UNION, "MPI_Group_union", aux=[3, 1, 2])
        add(Op.GROUP_INTERSECTION, "MPI_Group_intersection", aux=[4, 1, 2])
        add(Op.GROUP_DIFFERENCE, "MPI_Group_difference", aux=[5, 2, 1])
        add(Op.COMM_CREATE, "MPI_Comm_create", aux=[7 if r in (0, 2) else COMM_NULL, 1])
        for g in range(6):
            add(Op.GROUP_FREE, "MPI_Group_free", aux=[g])
        add(Op.LOCAL, "MPI_Finalize")
    return t


def test_every_op_kind_reads_back_as_written(tmp_path):
    trace = every_kind()
    stats = dumpi_writer.write(trace, tmp_path / "set")
    assert stats["dropped"] == stats["renamed"] == {}
    back = TraceSet(tmp_path / "set")
    assert_same_ops(trace, back)
    assert summarize(back)["p2p_bytes"] == summarize(trace)["p2p_bytes"] > BIG_B
    # handles: the stream's communicators (from 2) become DUMPI's user ones (from 4), its groups (from 0) from 3
    rows = [r for c in back.stream(0) for r in c.rows()]
    assert {r[COMM] for r in rows} == {COMM_WORLD, 4, 5, 7}
    assert back.datatype_sizes(0)[28:] == (4,)      # the rank's own type for BIG_B bytes: 3 * 2^29 of 4 bytes


def records(folder, rank, name):
    return [r for r in TraceSet(folder).records(rank) if r.name == name]


def test_values_dumpi_records_and_ops_drop_are_found_from_the_other_ranks(tmp_path):
    """A rank's place in the split communicator (Gather records the root's receive fields only there) and what
    the other members send it (Gatherv, Allgatherv, Alltoallv, Scatterv)."""
    dumpi_writer.write(every_kind(), tmp_path / "set")
    for rank in range(3):
        (gather,) = records(tmp_path / "set", rank, "MPI_Gather")
        me = {0: 1, 1: 0, 2: 0}[rank]                    # split keys -r: rank 1 before rank 0 in the pair
        assert gather.args["commrank"] == me and gather.args["comm"] == 4
        (gatherv,) = records(tmp_path / "set", rank, "MPI_Gatherv")
        if rank == 0:                                  # the root (pair rank 1): every member's count
            assert gatherv.args["recvcounts"] == [16, 8] and gatherv.args["displs"] == [0, 16]
        else:
            assert gatherv.args["recvcounts"] is None
    (allgatherv,) = records(tmp_path / "set", 2, "MPI_Allgatherv")
    assert allgatherv.args["recvcounts"] == [4, 8, 12, 16] and allgatherv.args["commsize"] == 4
    (alltoallv,) = records(tmp_path / "set", 1, "MPI_Alltoallv")
    assert alltoallv.args["sendcounts"] == [1, 2, 0, 5] and alltoallv.args["recvcounts"] == [0, 2, 4, 6]
    (scatterv,) = records(tmp_path / "set", 1, "MPI_Scatterv")
    assert scatterv.args["recvcount"] == 8 and scatterv.args["sendcounts"] is None


def test_the_set_is_the_same_bytes_every_time(tmp_path):
    trace = opstream.load(bundled.path("master_worker_n6"))
    dumpi_writer.write(trace, tmp_path / "a")
    dumpi_writer.write(trace, tmp_path / "b")
    for f in sorted((tmp_path / "a").iterdir()):
        assert f.read_bytes() == (tmp_path / "b" / f.name).read_bytes(), f.name


def test_a_truncated_rank_file_is_one_line_error(tmp_path):
    dumpi_writer.write(opstream.load(bundled.path("samplesort_n8")), tmp_path / "set")
    victim = tmp_path / "set" / "dumpi-0003.bin"
    victim.write_bytes(victim.read_bytes()[:-100])
    with pytest.raises(TraceError) as err:
        TraceSet(tmp_path / "set")
    assert "\n" not in str(err.value) and "dumpi-0003.bin" in str(err.value) and "truncated" in str(err.value)
    proc = subprocess.run([sys.executable, "-m", "ppt.cli.main", "trace-info", str(tmp_path / "set")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr and "dumpi-0003.bin" in proc.stderr


def test_what_the_writer_cannot_say_is_refused_or_left_out_and_nothing_half_written(tmp_path):
    t = MemoryTrace("io", 1)
    b = t.builder(0)
    b.add(Op.INIT, "MPI_Init", call_s=1e-3)
    b.add(Op.OTHER, "MPI_File_open", gap_wall_s=1e-3, start_s=2e-3, call_s=1e-4)
    b.add(Op.LOCAL, "MPI_Finalize", gap_wall_s=1e-3, start_s=3.1e-3)
    with pytest.raises(TraceError, match="MPI_File_open.*--skip-unsupported"):
        dumpi_writer.write(t, tmp_path / "out")
    assert list(tmp_path.iterdir()) == []
    stats = dumpi_writer.write(t, tmp_path / "out", skip_unsupported=True)
    assert stats["dropped"] == {"MPI_File_open": 1}
    assert TraceSet(tmp_path / "out").calls() == {"MPI_Init": 1, "MPI_Finalize": 1}
    with pytest.raises(ConfigError, match="not an empty folder"):
        dumpi_writer.write(t, tmp_path / "out")


def test_a_gather_on_a_communicator_of_unknown_members_is_one_line_error(tmp_path):
    t = MemoryTrace("create", 2)
    for r in range(2):
        b = t.builder(r)
        b.add(Op.COMM_GROUP, "MPI_Comm_group", aux=[0])
        b.add(Op.COMM_CREATE, "MPI_Comm_create", aux=[2, 0])
        b.add(Op.GATHER, "MPI_Gather", comm=2, nbytes=8)
    with pytest.raises(TraceError, match="MPI_Comm_create or MPI_Cart_sub") as err:
        dumpi_writer.write(t, tmp_path / "out")
    assert "\n" not in str(err.value) and list(tmp_path.iterdir()) == []


def test_convert_to_dumpi_from_the_command_line(tmp_path, capsys):
    assert main(["convert", "--to", "dumpi", "sample:master_worker_n6", str(tmp_path / "mw")]) == 0
    err = capsys.readouterr().err
    assert "DUMPI trace set, 6 ranks, 274 records" in err
    assert TraceSet(tmp_path / "mw").calls() == opstream.load(bundled.path("master_worker_n6")).calls()
    assert main(["convert", "sample:master_worker_n6", str(tmp_path / "by-name.dumpi")]) == 0
    assert (tmp_path / "by-name.dumpi" / "dumpi.meta").is_file()
    capsys.readouterr()
    assert main(["convert", "--to", "dumpi", "sample:master_worker_n6", str(tmp_path / "mw")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not an empty folder" in err and "Traceback" not in err

"""Nonblocking collectives in the op stream (IALLREDUCE ...): replay runs them as a program's MPI_Iallreduce runs
(tests/test_mpi_nonblocking_collectives.py), the blocking call's schedule in the background, completed by the
Wait or Test that names the request.  A Wait right after the start ends when the blocking call would have; compute
between the start and the Wait overlaps the collective; what goes wrong is one line; the folder form keeps them,
formats that cannot say them refuse them in one line, and a parallel replay gives the serial one's result."""
import json
import sys

import numpy as np
import pytest

from mpi_helpers import message_s, network, run
from ppt.cli.main import main as cli
from ppt.errors import DeadlockError, TraceError
from ppt.mpi import MPIError
from ppt.mpi.job import MPIJob
from ppt.mpi.settings import MPISettings
from ppt.oprecord import NONBLOCKING, Op
from ppt.traces.opstream import MemoryTrace, load, save
from ppt.traces.replay import replay

SEND_O, RECV_O = 1e-7, 2e-7
RANKS = 4
#: An allreduce of 32 bytes on 4 ranks: recursive doubling, two rounds of one message each way.
ALLREDUCE_S = 2 * (SEND_O + message_s(32) + RECV_O)
SUM = 3

#: A call of each blocking collective kind on 4 ranks (fields; Scatterv's block sizes at its root, 0).
CALLS = [(Op.BARRIER, {}), (Op.BCAST, dict(root=1, nbytes=32)), (Op.REDUCE, dict(root=2, op=SUM, nbytes=32)),
         (Op.ALLREDUCE, dict(op=SUM, nbytes=32)), (Op.SCAN, dict(op=SUM, nbytes=32)),
         (Op.EXSCAN, dict(op=SUM, nbytes=32)), (Op.GATHER, dict(root=3, nbytes=32)),
         (Op.SCATTER, dict(root=0, nbytes=8)), (Op.SCATTERV, dict(root=0, aux=[8, 16, 24, 32])),
         (Op.ALLGATHER, dict(nbytes=32)), (Op.ALLGATHERV, dict(nbytes=32)), (Op.ALLTOALL, dict(nbytes=8)),
         (Op.ALLTOALLV, dict(aux=[8, 16, 24, 5000])), (Op.REDUCE_SCATTER, dict(op=SUM, aux=[8, 16, 24, 32]))]


def trace_of(ranks, ops_of):
    """A trace of ``ranks`` ranks, each MPI_Init then ``ops_of(rank)``: (kind, call name, fields) each."""
    trace = MemoryTrace("icoll", ranks)
    for rank in range(ranks):
        builder = trace.builder(rank)
        builder.add(int(Op.INIT), "MPI_Init")
        for kind, call, fields in ops_of(rank):
            builder.add(int(kind), call, **fields)
    return trace


def nonblocking_name(kind) -> str:
    return "MPI_I" + Op(kind).name.lower()


def gap(seconds):
    return dict(gap_wall_s=seconds, gap_cpu_s=seconds)


def job(ranks=RANKS, comm=None):
    return MPIJob(network(ranks), ranks, settings=MPISettings(4096, SEND_O, RECV_O), comm=comm)


def predicted(trace):
    return replay(trace, job(trace.num_ranks), compute_clock="wall")


def test_a_wait_right_after_the_start_ends_when_the_blocking_call_would_have():
    """Every collective but the barrier (MPI_Ibarrier has rounds of its own, below), in turn on the same ranks:
    each rank ends at the same time, after the same messages, as with the blocking calls."""
    def ops(nonblocking):
        def of(rank):
            for request, (kind, fields) in enumerate(CALLS[1:]):
                fields = dict(fields, aux=[]) if kind == Op.SCATTERV and rank != fields["root"] else fields
                if nonblocking:
                    yield kind + NONBLOCKING, nonblocking_name(kind), dict(fields, request=request)
                    yield Op.WAIT, "MPI_Wait", dict(request=request)
                else:
                    yield kind, "MPI_" + kind.name.capitalize(), fields
        return of

    started, blocking = predicted(trace_of(RANKS, ops(True))), predicted(trace_of(RANKS, ops(False)))
    assert [r["finish_s"] for r in started["per_rank"]] == [r["finish_s"] for r in blocking["per_rank"]]
    assert started["network"] == blocking["network"]
    assert started["calls"]["MPI_Iallreduce"] == started["calls"]["MPI_Wait"] / len(CALLS[1:]) == RANKS


@pytest.mark.parametrize("compute_s", [0.0, 1e-6, 2e-6, 1e-5])
def test_compute_between_the_start_and_the_wait_overlaps_the_collective(compute_s):
    """The start owes its first sends' overhead, the Wait the last receive's; between them the all-reduce and the
    compute run side by side: max(C + o_s, t - o_r) + o_r, where the blocking call and the compute take t + C."""
    started = predicted(trace_of(RANKS, lambda rank: [
        (Op.IALLREDUCE, "MPI_Iallreduce", dict(op=SUM, nbytes=32, request=9)),
        (Op.WAIT, "MPI_Wait", dict(request=9, **gap(compute_s)))]))
    blocking = predicted(trace_of(RANKS, lambda rank: [
        (Op.ALLREDUCE, "MPI_Allreduce", dict(op=SUM, nbytes=32)), (Op.WTIME, "MPI_Wtime", gap(compute_s))]))
    assert blocking["predicted_s"] == pytest.approx(ALLREDUCE_S + compute_s, rel=1e-12)
    overlapped = max(compute_s + SEND_O, ALLREDUCE_S - RECV_O) + RECV_O
    assert [r["finish_s"] for r in started["per_rank"]] == pytest.approx([overlapped] * RANKS, rel=1e-12)


def test_collectives_in_flight_together_and_an_ibarrier_replay_as_the_program_runs():
    """Ranks computing different times start an Ibarrier, an Iallreduce and an Ibcast, complete them in a Waitall
    in another order after computing, and end at the times the same program run by the MPI engine ends."""
    compute_s = [1e-6, 4e-6, 2e-6, 7e-6]

    def program(MPI):
        comm = MPI.COMM_WORLD
        MPI.compute(compute_s[comm.rank])
        barrier = comm.Ibarrier()
        summed = comm.Iallreduce(np.ones(4), np.zeros(4))
        sent = comm.Ibcast(np.zeros(512), root=2)
        MPI.compute(3e-6)
        MPI.Request.Waitall([sent, barrier, summed])
        return MPI.Wtime()

    ran = run(RANKS, program, send_overhead_s=SEND_O, recv_overhead_s=RECV_O).returns
    replayed = predicted(trace_of(RANKS, lambda rank: [
        (Op.IBARRIER, "MPI_Ibarrier", dict(request=1, **gap(compute_s[rank]))),
        (Op.IALLREDUCE, "MPI_Iallreduce", dict(op=SUM, nbytes=32, request=2)),
        (Op.IBCAST, "MPI_Ibcast", dict(root=2, nbytes=4096, request=3)),
        (Op.WAITALL, "MPI_Waitall", dict(aux=[3, 1, 2], **gap(3e-6)))]))
    assert [r["finish_s"] for r in replayed["per_rank"]] == pytest.approx(ran, rel=1e-12)


# -- what goes wrong ------------------------------------------------------------------------------------------
def one_line(exc_info) -> str:
    text = str(exc_info.value)
    assert "\n" not in text
    return text


def test_a_request_no_op_completes_is_one_line_naming_the_call():
    trace = trace_of(RANKS, lambda rank: [(Op.IALLREDUCE, "MPI_Iallreduce", dict(op=SUM, nbytes=32, request=4))]
                     + [(Op.WAIT, "MPI_Wait", dict(request=4))] * (rank != 2))
    with pytest.raises(MPIError) as info:
        predicted(trace)
    assert one_line(info) == ("rank 2: MPI_Iallreduce on WORLD (collective #1) never completed: no Wait or Test of "
                              "its trace completes the request")


def test_a_rank_that_never_joins_is_a_deadlock_naming_the_step_or_round_waited_in():
    for kind, fields, waits in ((Op.ALLREDUCE, dict(op=SUM, nbytes=32), "Iallreduce step 0, waiting for rank 1"),
                                (Op.BARRIER, {}, "Ibarrier round to rank 1")):
        trace = trace_of(2, lambda rank: [(kind + NONBLOCKING, nonblocking_name(kind), dict(fields, request=5)),
                                          (Op.WAIT, "MPI_Wait", dict(request=5))] if rank == 0 else [])
        with pytest.raises(DeadlockError) as info:
            predicted(trace)
        assert f"rank 0 in MPI_Wait({waits}, comm=WORLD)" in one_line(info)


def test_another_collectives_message_is_a_mismatch_at_the_wait():
    """Rank 1's Bcast sends rank 0 a message where rank 0's Iallreduce expects its own: the Wait that completes the
    Iallreduce reports it, as the blocking call would have."""
    trace = trace_of(2, lambda rank: [(Op.IALLREDUCE, "MPI_Iallreduce", dict(op=SUM, nbytes=8, request=1)),
                                      (Op.WAIT, "MPI_Wait", dict(request=1, **gap(1e-5)))] if rank == 0
                     else [(Op.BCAST, "MPI_Bcast", dict(root=1, nbytes=8))])
    with pytest.raises(MPIError) as info:
        predicted(trace)
    assert one_line(info).startswith("rank 0 in MPI_Wait: collective mismatch on WORLD: rank 1 called "
                                     "MPI_Bcast(root=1) where this rank called MPI_Iallreduce")


def test_a_blocking_call_does_not_match_a_nonblocking_one():
    trace = trace_of(2, lambda rank: [(Op.IALLREDUCE, "MPI_Iallreduce", dict(op=SUM, nbytes=8, request=1)),
                                      (Op.WAIT, "MPI_Wait", dict(request=1))] if rank == 0
                     else [(Op.ALLREDUCE, "MPI_Allreduce", dict(op=SUM, nbytes=8))])
    with pytest.raises(MPIError) as info:
        predicted(trace)
    assert "collective mismatch on WORLD" in one_line(info)
    assert {"MPI_Iallreduce", "MPI_Allreduce"} <= set(one_line(info).replace("(", " ").split())


# -- formats ------------------------------------------------------------------------------------------------------
def mixed(rank):
    """An Iallreduce, an Ibcast and an Ialltoallv in flight together, completed by a Wait and a Waitall."""
    return [(Op.IALLREDUCE, "MPI_Iallreduce", dict(op=SUM, nbytes=800, request=11)),
            (Op.IBCAST, "MPI_Ibcast", dict(root=1, nbytes=70000, request=12)),
            (Op.IALLTOALLV, "MPI_Ialltoallv", dict(aux=[100 * (rank + 1) * (p + 1) for p in range(RANKS)],
                                                   request=13, **gap(2e-6))),
            (Op.WAIT, "MPI_Wait", dict(request=12, **gap(5e-6))),
            (Op.WAITALL, "MPI_Waitall", dict(aux=[13, 11])),
            (Op.LOCAL, "MPI_Finalize", {})]


def test_the_folder_form_keeps_them_and_writers_that_cannot_say_them_refuse_in_one_line(tmp_path, capsys):
    trace = trace_of(RANKS, mixed)
    folder = save(trace, tmp_path / "icoll")
    again = load(folder)
    for rank in range(RANKS):
        assert [c.ops.tolist() for c in again.stream(rank)] == [c.ops.tolist() for c in trace.stream(rank)]
    assert dict(predicted(again), trace=None) == dict(predicted(trace), trace=None)
    for out, words in (("icoll.dumpi", "a nonblocking collective, which DUMPI has no record for"),
                       ("icoll.goal", "a nonblocking collective, which the GOAL writer cannot write")):
        assert cli(["convert", str(folder), str(tmp_path / out)]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "calls MPI_Iallreduce, " + words in err, err
        assert not (tmp_path / out).exists()


@pytest.mark.mpiexec
@pytest.mark.parametrize("system, network, nodes", [("edison", "analytic", 5576), ("dragonfly-booksim", "packet", 1056)])
def test_a_parallel_replay_prints_the_serial_json(tmp_path, system, network, nodes):
    from test_compiled_parallel import _run, _without_wall_time
    folder = save(trace_of(RANKS, mixed), tmp_path / "icoll")
    command = [sys.executable, "-m", "ppt.cli.main", "replay", str(folder), "--system", system, "--network",
               network, "--ranks-per-node", "1", "--mapping", "random", "--json"]
    serial, parallel = _run(command), _run(command, 2)
    assert serial.returncode == parallel.returncode == 0, serial.stderr + parallel.stderr
    assert _without_wall_time(parallel.stdout) == _without_wall_time(serial.stdout)
    result = json.loads(serial.stdout)
    assert len({r["node"] * 2 // nodes for r in result["per_rank"]}) == 2        # ranks on both processes
    assert result["calls"]["MPI_Ialltoallv"] == RANKS


def test_a_trace_run_as_a_jobs_program_predicts_what_its_replay_does():
    """``ppt mix`` runs a trace as a job's program (the Python replay on a program's ranks): its nonblocking
    collectives start as a program's do, to the same prediction."""
    from ppt.traces.replay import rank_program
    trace = trace_of(RANKS, mixed)
    main, args, _ = rank_program(trace, RANKS, compute_clock="wall")
    ran = job().run(main, *args)
    replayed = predicted(trace)
    assert ran.predicted_s == replayed["predicted_s"] and ran.calls == replayed["calls"]


def test_trace_info_counts_their_bytes_as_their_blocking_calls():
    from ppt.traces.info import summarize
    alltoallv_B = sum(100 * (rank + 1) * (peer + 1) for rank in range(RANKS) for peer in range(RANKS))
    assert summarize(trace_of(RANKS, mixed))["collective_bytes"] == {
        "MPI_Iallreduce": RANKS * 800, "MPI_Ibcast": RANKS * 70000, "MPI_Ialltoallv": alltoallv_B}

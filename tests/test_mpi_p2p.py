"""Point-to-point semantics of the simulated MPI: matching, wildcards, requests, probe, protocol timing."""
import pytest

from mpi_helpers import BANDWIDTH_BPS, EAGER_B, LATENCY_S, message_s, run
from ppt.errors import DeadlockError
from ppt.mpi import ANY_SOURCE, ANY_TAG, PROC_NULL, UNDEFINED, MPIError, Status
from ppt.mpi.constants import CONTROL_B


def test_matching_by_tag_keeps_send_order_and_any_tag_takes_the_earliest():
    def main(mpi):
        comm = mpi.COMM_WORLD
        if comm.rank == 0:
            for tag, value in ((1, "a"), (2, "b"), (1, "c")):
                comm.send(value, 1, tag)
            return None
        mpi.sleep(1e-3)                           # all three are unexpected by now
        return [comm.recv(0, 1), comm.recv(0, ANY_TAG), comm.recv(0, 1)]

    assert run(2, main).returns[1] == ["a", "b", "c"]


@pytest.mark.parametrize("first_B", [EAGER_B, 10 * EAGER_B])
def test_small_message_never_overtakes_a_larger_one_from_the_same_source(first_B):
    """The network delivers the 8-byte message first; matching must still follow send order."""
    def main(mpi):
        comm = mpi.COMM_WORLD
        if comm.rank == 0:
            reqs = [comm.isend("big", 1, 0, nbytes=first_B), comm.isend("small", 1, 0, nbytes=8)]
            mpi.waitall(reqs)
            return None
        st = Status()
        first = comm.recv(0, 0, st)
        return first, st.bytes, comm.recv(0, 0)

    assert run(2, main).returns[1] == ("big", first_B, "small")


def test_any_source_receives_in_arrival_order_with_status():
    def main(mpi):
        comm = mpi.COMM_WORLD
        if comm.rank:
            mpi.sleep(1e-4 * (3 - comm.rank))     # rank 2 sends first
            comm.send(comm.rank * 10, 0, tag=comm.rank, nbytes=16)
            return None
        out = []
        for _ in range(2):
            st = Status()
            out.append((comm.recv(ANY_SOURCE, ANY_TAG, st), st.source, st.tag, st.bytes))
        return out

    assert run(3, main).returns[0] == [(20, 2, 2, 16), (10, 1, 1, 16)]


def test_posted_receives_match_in_posting_order_including_wildcards():
    def main(mpi):
        comm = mpi.COMM_WORLD
        if comm.rank == 1:
            mpi.sleep(1e-4)
            comm.send("x", 0, 4)
            comm.send("y", 0, 4)
            return None
        wild = comm.irecv(ANY_SOURCE, ANY_TAG)
        exact = comm.irecv(1, 4)
        return mpi.waitall([wild, exact])

    assert run(2, main).returns[0] == ["x", "y"]


def test_waitany_and_waitsome_follow_completion_order():
    def main(mpi):
        comm = mpi.COMM_WORLD
        if comm.rank == 0:
            mpi.sleep(1e-4)
            comm.send("six", 1, 6)
            mpi.sleep(1e-4)
            comm.send("five", 1, 5)
            mpi.sleep(1e-4)
            comm.send("seven", 1, 7)
            return None
        reqs = [comm.irecv(0, 5), comm.irecv(0, 6), comm.irecv(0, 7)]
        first = mpi.waitany(reqs)
        t_first = mpi.wtime()
        some = mpi.waitsome(reqs)
        rest = mpi.waitsome(reqs)
        return first, t_first, some, rest, mpi.waitany(reqs)

    first, t_first, some, rest, none_left = run(2, main).returns[1]
    assert first == (1, "six")
    assert t_first == pytest.approx(1e-4 + message_s(3))
    assert some == ([0], ["five"]) and rest == ([2], ["seven"])
    assert none_left == (UNDEFINED, None)


def test_test_family_does_not_block():
    def main(mpi):
        comm = mpi.COMM_WORLD
        if comm.rank == 0:
            mpi.sleep(1e-4)
            comm.send(1, 1, 0)
            comm.send(2, 1, 1)
            return None
        reqs = [comm.irecv(0, 0), comm.irecv(0, 1)]
        early = (mpi.testany(reqs), mpi.testall(reqs), mpi.testsome(reqs), reqs[0].test())
        mpi.sleep(1e-3)
        return early, mpi.testall(reqs), mpi.wtime()

    early, late, now = run(2, main).returns[1]
    assert early == ((UNDEFINED, False, None), (False, None), ([], []), (False, None))
    assert late == (True, [1, 2]) and now == pytest.approx(1e-3)


def test_probe_reports_a_message_without_receiving_it():
    def main(mpi):
        comm = mpi.COMM_WORLD
        if comm.rank == 0:
            mpi.sleep(1e-4)
            comm.send("p", 1, 9, nbytes=1234)
            return None
        before = comm.iprobe()
        st = comm.probe(ANY_SOURCE, ANY_TAG)
        t_probe = mpi.wtime()
        again = comm.iprobe(0, 9)
        return before, (st.source, st.tag, st.bytes), t_probe, again.bytes, comm.recv(0, 9)

    before, st, t_probe, again_bytes, value = run(2, main).returns[1]
    assert before is None and st == (0, 9, 1234) and again_bytes == 1234 and value == "p"
    assert t_probe == pytest.approx(1e-4 + message_s(1234))


def pingpong(nbytes: int, reps: int):
    """A two-rank program: ``reps`` round trips of ``nbytes``; returns the time it ends."""
    def main(mpi):
        comm = mpi.COMM_WORLD
        for _ in range(reps):
            if comm.rank == 0:
                comm.send(None, 1, nbytes=nbytes)
                comm.recv(1)
            else:
                comm.recv(0)
                comm.send(None, 0, nbytes=nbytes)
        return mpi.wtime()
    return main


@pytest.mark.parametrize("nbytes", [0, 1000, EAGER_B, EAGER_B + 1, 1 << 20])
def test_pingpong_time_matches_the_protocol_formula(nbytes):
    """Eager: L + n/B one way; rendezvous: RTS + CTS + data = 3L + (2*64 + n)/B."""
    reps = 3
    main = pingpong(nbytes, reps)
    one_way = (message_s(nbytes) if nbytes <= EAGER_B
               else 3 * LATENCY_S + (2 * CONTROL_B + nbytes) / BANDWIDTH_BPS)
    result = run(2, main)
    assert result.returns[0] == pytest.approx(2 * reps * one_way, rel=1e-12)
    assert result.per_rank[0]["messages_sent"] == reps and result.per_rank[0]["bytes_sent"] == reps * nbytes


@pytest.mark.parametrize("nbytes", [0, EAGER_B + 1])
def test_software_overheads_add_to_the_one_way_time_of_a_lone_message(nbytes):
    """LogGP: a lone message's MPI latency is the network's latency plus o_send + o_recv."""
    o_send, o_recv = 0.7e-6, 0.4e-6
    main = pingpong(nbytes, 1)
    bare = run(2, main).returns[0]
    loaded = run(2, main, send_overhead_s=o_send, recv_overhead_s=o_recv)
    assert loaded.returns[0] == pytest.approx(bare + 2 * (o_send + o_recv), rel=1e-12)
    assert loaded.per_rank[0]["comm_s"] == pytest.approx(loaded.returns[0], rel=1e-12)


def test_overheads_are_busy_time_of_the_rank_so_messages_queue_behind_them():
    """Three back-to-back sends leave o_send apart; the receiver takes each o_recv after the later of its
    arrival and the end of the previous take."""
    o_send, o_recv = 2e-6, 3e-6

    def main(mpi):
        comm = mpi.COMM_WORLD
        if comm.rank == 0:
            mpi.Request.waitall([comm.isend(None, 1, nbytes=0) for _ in range(3)])
            return mpi.wtime()
        taken = []
        for _ in range(3):
            comm.recv(0)
            taken.append(mpi.wtime())
        return taken

    result = run(2, main, send_overhead_s=o_send, recv_overhead_s=o_recv)
    assert result.returns[0] == pytest.approx(3 * o_send, rel=1e-12)
    taken, done = [], 0.0
    for i in range(3):
        done = max((i + 1) * o_send + message_s(0), done) + o_recv
        taken.append(done)
    assert result.returns[1] == pytest.approx(taken, rel=1e-12)


def test_a_receive_found_complete_later_still_costs_its_overhead_once():
    o_recv = 5e-6

    def main(mpi):
        comm = mpi.COMM_WORLD
        if comm.rank == 0:
            comm.send(None, 1, nbytes=0)
            return None
        req = comm.irecv(0)
        mpi.sleep(1e-3)                           # the message arrived long ago
        flag, _ = req.test()
        after_test = mpi.wtime()
        req.wait()
        return flag, after_test, mpi.wtime()

    flag, after_test, after_wait = run(2, main, recv_overhead_s=o_recv).returns[1]
    assert flag and after_test == pytest.approx(1e-3 + o_recv, rel=1e-12) and after_wait == after_test


def test_waitall_takes_its_requests_in_turn_and_fills_their_statuses():
    """Waitall is Wait on each request in list order: the early receive's overhead is paid before the
    late one arrives, so the call ends one o_recv after the late arrival, not two.  Inactive entries
    give None and leave their status as it was; a PROC_NULL receive's status says so."""
    o_recv, late_s = 5e-6, 1e-4

    def main(mpi):
        comm = mpi.COMM_WORLD
        if comm.rank == 1:
            comm.send("first", 0, 5, nbytes=8)
            comm.send("early", 0, 3, nbytes=8)
        elif comm.rank == 2:
            mpi.sleep(late_s)
            comm.send("late", 0, 4, nbytes=8)
        else:
            done = comm.irecv(1, 5)
            done.wait()
            requests = [comm.irecv(1, 3), done, comm.irecv(PROC_NULL, 0), comm.irecv(ANY_SOURCE, ANY_TAG)]
            statuses = [Status() for _ in requests]
            values = mpi.waitall(requests, statuses)
            return values, [(s.source, s.tag, s.bytes) for s in statuses], mpi.wtime()
        return None

    values, statuses, end = run(3, main, recv_overhead_s=o_recv).returns[0]
    assert values == ["early", None, None, "late"]
    assert statuses == [(1, 3, 8), (ANY_SOURCE, ANY_TAG, 0), (PROC_NULL, ANY_TAG, 0), (2, 4, 8)]
    assert end == pytest.approx(late_s + message_s(8) + o_recv, rel=1e-12)


def test_a_receive_posted_while_the_rank_is_busy_answers_at_the_end_of_its_overheads():
    """Rank 1 owes two send overheads when it posts a rendezvous receive whose RTS arrived long
    before: the CTS leaves when its overheads end, not when the receive call was made."""
    o_send, n = 2e-6, EAGER_B + 1

    def main(mpi):
        comm = mpi.COMM_WORLD
        if comm.rank == 0:
            comm.send(None, 1, nbytes=n)
            comm.recv(1)
            comm.recv(1)
            return None
        mpi.sleep(1e-3)
        sends = [comm.isend(None, 0, nbytes=0) for _ in range(2)]
        comm.recv(0)
        received = mpi.wtime()
        mpi.Request.waitall(sends)
        return received

    cts_leaves = 1e-3 + 2 * o_send
    received = run(2, main, send_overhead_s=o_send).returns[1]
    assert received == pytest.approx(cts_leaves + message_s(CONTROL_B) + message_s(n), rel=1e-12)


def test_waitany_chooses_among_the_requests_complete_at_the_ranks_own_time():
    """Receive 0's message arrives after receive 1's, but both before rank 1's send overheads end:
    at its own time both are complete, so waitany returns the lowest index."""
    o_send = 10e-6

    def main(mpi):
        comm = mpi.COMM_WORLD
        if comm.rank == 0:
            comm.send("b", 1, tag=1)
            mpi.sleep(1e-6)
            comm.send("a", 1, tag=0)
            for _ in range(3):
                comm.recv(1)
            return None
        reqs = [comm.irecv(0, tag=0), comm.irecv(0, tag=1)]
        busy = [comm.isend(None, 0, nbytes=0) for _ in range(3)]       # 3 overheads: 30 us owed
        index, value = mpi.Request.waitany(reqs)
        mpi.Request.waitall(busy + [reqs[1]])
        return index, value

    assert run(2, main, send_overhead_s=o_send).returns[1] == (0, "a")


def test_rendezvous_send_waits_for_the_receiver():
    def main(mpi):
        comm = mpi.COMM_WORLD
        if comm.rank == 0:
            comm.send(None, 1, nbytes=10 * EAGER_B)
            return mpi.wtime()
        mpi.sleep(1e-3)
        comm.recv(0)
        return mpi.wtime()

    sent_at, received_at = run(2, main).returns
    wire = 10 * EAGER_B / BANDWIDTH_BPS
    assert sent_at == pytest.approx(1e-3 + message_s(CONTROL_B) + wire)
    assert received_at == pytest.approx(1e-3 + message_s(CONTROL_B) + message_s(10 * EAGER_B))


def test_proc_null_completes_at_once():
    def main(mpi):
        comm = mpi.COMM_WORLD
        st = Status()
        comm.send("lost", PROC_NULL, nbytes=10**6)
        value = comm.recv(PROC_NULL, 3, st)
        both = comm.sendrecv("x", PROC_NULL, source=PROC_NULL)
        return value, st.source, st.bytes, both, mpi.wtime()

    assert run(1, main).returns[0] == (None, PROC_NULL, 0, None, 0.0)


def test_same_inputs_give_identical_results():
    def main(mpi):
        comm = mpi.COMM_WORLD
        got = [comm.sendrecv(comm.rank, (comm.rank + k) % comm.size, source=ANY_SOURCE) for k in (1, 2)]
        return got, comm.allreduce(comm.rank, nbytes=40000)

    a, b = run(7, main, ranks_per_node=2), run(7, main, ranks_per_node=2)
    assert a.as_json() == b.as_json() and a.returns == b.returns


def test_deadlock_names_blocked_ranks_and_calls():
    def main(mpi):
        comm = mpi.COMM_WORLD
        if comm.rank == 2:
            return
        comm.recv(1 - comm.rank, tag=7)

    with pytest.raises(DeadlockError) as err:
        run(3, main)
    assert str(err.value) == ("deadlock at t=0 s: 2 of 3 ranks blocked: rank 0 in MPI_Recv(source=1, tag=7, "
                              "comm=WORLD); rank 1 in MPI_Recv(source=0, tag=7, comm=WORLD)")


def test_deadlock_report_of_many_ranks_has_an_informative_first_line():
    def main(mpi):
        mpi.COMM_WORLD.recv(ANY_SOURCE, 1)

    with pytest.raises(DeadlockError) as err:
        run(40, main, ranks_per_node=8)
    lines = str(err.value).splitlines()
    assert lines[0].startswith("deadlock at t=0 s: 40 of 40 ranks blocked, e.g. rank 0 in MPI_Recv(")
    assert lines[-1] == "  ... and 24 more"


@pytest.mark.parametrize("body, text", [
    (lambda c: c.send(None, 1, nbytes=-5), "rank 0 in MPI_Send: message size -5"),
    (lambda c: c.send(None, 2), "rank 0 in MPI_Send: destination 2 is out of range for WORLD of size 2"),
    (lambda c: c.recv(-7), "rank 0 in MPI_Recv: source -7 is out of range"),
    (lambda c: c.isend(None, 1, tag=-3), "rank 0 in MPI_Isend: tag -3 is negative"),
])
def test_bad_arguments_raise_one_line_errors_naming_rank_and_call(body, text):
    def main(mpi):
        if mpi.rank == 0:
            body(mpi.COMM_WORLD)

    with pytest.raises(MPIError) as err:
        run(2, main)
    assert str(err.value).startswith(text) and "\n" not in str(err.value)

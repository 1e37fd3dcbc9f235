"""GOAL text schedules (LogGOPSim/ATLAHS): the reader's timing in closed form, the writer's round trip
through replay on every DUMPI set (the shipped samples, the shared traces when present), parse errors as
one line, and writer -> reader of a hand-built trace."""
import functools
import io
import os

import numpy as np
import pytest

from ppt.cli.main import main
from ppt.errors import TraceError
from ppt.hardware.systems import load_system
from ppt.machine import Machine
from ppt.mpi import MPIJob
from ppt.mpi.constants import CONTROL_B
from ppt.mpi.settings import MPISettings
from ppt.traces.readers import goal
from ppt.traces.writers import goal as goal_writer
from ppt import oprecord
from ppt.traces import opstream
from ppt.traces.formats import format_of, open_trace
from ppt.oprecord import COMM_WORLD, KIND, PROC_NULL, Op
from ppt.traces.opstream import MemoryTrace
from ppt.traces.replay import replay

from mpi_helpers import BANDWIDTH_BPS, EAGER_B, LATENCY_S, network

from shared_traces import SETS, needs_real, path


def job_on(num_ranks, send_overhead_s=0.0, recv_overhead_s=0.0):
    settings = MPISettings(EAGER_B, send_overhead_s, recv_overhead_s)
    return MPIJob(network(num_ranks), num_ranks, ranks_per_node=1, comm=None, settings=settings)


# -- the reader: a hand-written schedule's time in closed form --------------------------------------------
OVERLAP = """\
// rank 0 sends 100 kB (rendezvous) and computes 50 us meanwhile; rank 1 answers 20 us after the data
num_ranks 2

rank 0 {
big:   send 100000b to 1 tag 7
work:  calc 50000            /* ns */
work irequires big           // may start once the send has started: overlaps it
reply: recv 8b from 1 tag 8
reply requires work
reply requires big
}

rank 1 {
data: recv 100000 b from 0 tag 7
think: calc 20000 cpu 1
think requires data
ans: send 8b to 0 tag 8 cpu 0 nic 0
ans requires think
}
"""


def test_irequires_and_overlapping_calc_give_the_closed_form_time():
    """LogGP on the analytic network (ppt/mpi/surface/core/requests.py): a send reaches the NIC o_s after it starts; a
    rendezvous RTS and CTS are CONTROL_B bytes each (L + C/B one way), then the data (n/B on the wire,
    L more to arrive); a receive costs o_r when its wait takes it over.  Rank 0's 50 us calc runs while
    its send is in flight, so its wait for the send ends when the data has left (after 2(L + C/B) + n/B),
    not 50 us later."""
    o_s, o_r = 0.5e-6, 0.3e-6
    L, B, n, small = LATENCY_S, BANDWIDTH_BPS, 100000, 8
    trace = goal.parse(OVERLAP, "overlap.goal")
    got = replay(trace, job_on(2, o_s, o_r))
    handshake = 2 * (L + CONTROL_B / B)
    data_in = o_s + handshake + L + n / B                    # rank 1 has the data
    answer_sent = data_in + o_r + 20e-6 + o_s                # rank 1's 8 B answer leaves its NIC
    rank0 = answer_sent + L + small / B + o_r
    rank1 = answer_sent + small / B
    finish = {e["rank"]: e["finish_s"] for e in got["per_rank"]}
    assert finish[0] == pytest.approx(rank0, rel=1e-12)
    assert finish[1] == pytest.approx(rank1, rel=1e-12)
    assert got["predicted_s"] == pytest.approx(rank0, rel=1e-12)
    # without the overlap (calc after the send completed) rank 0 would finish 50 us later: it does not
    assert o_s + handshake + n / B > o_s + 50e-6
    assert trace.resources == 1                              # "cpu 1" read, not modelled


def test_the_reader_maps_the_graph_to_the_op_stream_as_documented():
    trace = goal.parse(OVERLAP, "overlap.goal")
    rows = [r for chunk in trace.stream(0) for r in chunk.rows()]
    kinds = [Op(r[KIND]) for r in rows]
    assert kinds == [Op.LOCAL, Op.ISEND, Op.WAIT, Op.IRECV, Op.WAIT]
    assert rows[2][oprecord.GAP_WALL_S] == 50e-6           # the calc is the gap before the wait it precedes
    assert rows[2][oprecord.REQUEST] == rows[1][oprecord.REQUEST]
    assert format_of("x.goal").name == "goal"


def test_ops_are_taken_in_a_topological_order_even_when_written_out_of_it():
    text = ("num_ranks 2\nrank 0 {\nb: send 4b to 1\na: calc 1000\nb requires a\n}\n"
            "rank 1 {\nr: recv 4b from -1 tag -1\n}\n")
    trace = goal.parse(text, "t.goal")
    rows = [r for chunk in trace.stream(0) for r in chunk.rows()]
    assert [Op(r[KIND]) for r in rows] == [Op.LOCAL, Op.ISEND, Op.WAIT]
    assert rows[1][oprecord.GAP_WALL_S] == 1e-6
    recv = [r for chunk in trace.stream(1) for r in chunk.rows()][1]
    assert (recv[oprecord.PEER], recv[oprecord.TAG]) == (oprecord.ANY_SOURCE, oprecord.ANY_TAG)
    assert replay(trace, job_on(2))["predicted_s"] == pytest.approx(1e-6 + LATENCY_S + 4 / BANDWIDTH_BPS)


#: A schedule in every form the one-pass block reading takes: labels or none, sizes with a blank before
#: 'b', optional tag/cpu/nic, wildcards, line comments, blank lines, dependencies before their labels.
FORMS = """\
num_ranks 3
rank 0 {
   s1: send 4096b to 1 tag 3 cpu 0 nic 0   // sent first
s2 : send 8 b to 2
c1: calc 700 cpu 1
r1: recv 16b from -1 tag -1

s2 requires c1
c1 irequires s1
r1 requires s2
calc 5
}
rank 1 {
x: recv 4096b from 0 tag 3
y: send 16b to 0 tag 9 nic 2
y requires x
}
rank 2 {
recv 8b from 0
}
"""


@pytest.mark.parametrize("text", [FORMS, FORMS.replace("rank 1 {\n", "rank 1 {\n/* x */\n")
                                  .replace("s2 requires c1", "s2 requires c1 /* ordered */")])
def test_blocks_read_in_one_pass_give_what_the_statement_reading_gives(text):
    """Every block of FORMS is read in one pass; a block comment makes the tokens read it statement by
    statement instead: the op streams are the same either way."""
    def streams(schedule):
        trace = goal.parse(schedule, "forms.goal")
        return [[r for chunk in trace.stream(rank) for r in chunk.rows()] for rank in range(3)], trace.resources
    read, resources = streams(text)
    assert (read, resources) == streams(FORMS.replace("{\n", "{\n/* */\n"))    # every block by statements
    assert resources == 2                       # c1's cpu 1 and y's nic 2 (s1 names cpu 0 and nic 0)
    assert [Op(r[KIND]) for r in read[0]] == [Op.LOCAL, Op.ISEND, Op.ISEND, Op.WAIT, Op.IRECV, Op.WAITALL]
    assert [r[oprecord.GAP_WALL_S] for r in read[0][2:4]] == [700e-9, 5e-9]


def test_ready_operations_that_need_no_wait_go_first():
    """As LogGOPSim starts every operation whose dependencies allow it, the reader posts the second
    receive before waiting for the first (a dissemination round as in LogGOPSim's example schedules)."""
    text = ("num_ranks 2\nrank 0 {\nl1: send 1b to 1 tag 0\nl2: recv 1b from 1 tag 0\nl3: send 1b to 1 tag 1\n"
            "l3 requires l2\nl4: recv 1b from 1 tag 1\n}\n"
            "rank 1 {\nl1: send 1b to 0 tag 0\nl2: recv 1b from 0 tag 0\nl3: send 1b to 0 tag 1\n"
            "l3 requires l2\nl4: recv 1b from 0 tag 1\n}\n")
    trace = goal.parse(text, "dissemination.goal")
    rows = [r for chunk in trace.stream(0) for r in chunk.rows()]
    assert [(Op(r[KIND]).name, r[oprecord.REQUEST]) for r in rows[1:]] == [
        ("ISEND", 1), ("IRECV", 2), ("IRECV", 4), ("WAIT", 2), ("ISEND", 3), ("WAITALL", 0)]
    assert rows[-1][oprecord.AUX_LEN] == 3                   # l1, l3 and l4 are waited for at the end
    got = replay(trace, job_on(2))
    assert got["predicted_s"] == pytest.approx(2 * (LATENCY_S + 1 / BANDWIDTH_BPS), rel=1e-12)


# -- parse errors: one line, file:line:column ---------------------------------------------------------------
BAD = [
    ("num_ranks 2\nrank 0 {\nl1: sned 8b to 1\n}\n", "3:5: unknown operation 'sned'"),
    ("num_ranks 2\nl1: send 8b to 1\n", "2:5: 'send' outside a rank block"),
    ("num_ranks 2\nrank 0 {\nl1: send 8kb to 1\n}\n", "3:10: bad size '8kb'"),
    ("num_ranks 2\nrank 0 {\nl1: send 8 to 1\n}\n", "3:12: expected 'b' after the size 8"),
    ("num_ranks 2\nrank 0 {\nl1: calc 5\nl1: calc 6\n}\n", "4:1: label 'l1' is defined twice"),
    ("num_ranks 2\nrank 0 {\nl1: calc 5\nl1 requires l9\n}\n", "4:13: label 'l9' is not defined"),
    ("num_ranks 2\nrank 2 {\n}\n", "2:6: a rank number 2 is out of range"),
    ("num_ranks 2\nrank 0 {\nl1: send 8b to 5\n}\n", "3:16: a destination rank 5 is out of range"),
    ("num_ranks 2\nrank 0 {\nl1: calc 5\n", "4:1: the block of rank 0 (line 2) is not closed"),
    ("rank 0 {\n}\n", "1:1: 'rank' before 'num_ranks N'"),
    ("num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag -1\n}\n", "3:22: a send cannot have the wildcard tag -1"),
    ("num_ranks 2\n/* never closed\nrank 0 {\n}\n", "2:1: comment '/*' is never closed"),
    ("num_ranks 2\nrank 0 {\nl1: calc 5 nic 1\n}\n", "3:12: expected 'cpu' or the end of the line"),
]


@pytest.mark.parametrize("text,where", BAD, ids=[w.split(": ")[1][:30] for _, w in BAD])
def test_a_syntax_error_names_file_line_and_column(text, where):
    with pytest.raises(goal.GoalSyntaxError) as err:
        goal.parse(text, "bad.goal")
    message = str(err.value)
    assert message.startswith(f"bad.goal:{where}") and "\n" not in message


def test_a_dependency_cycle_is_one_line_naming_its_labels():
    text = ("num_ranks 1\nrank 0 {\na: calc 1\nb: calc 2\nc: calc 3\nd: calc 4\n"
            "b requires a\nc requires b\nd requires c\nb requires d\n}\n")
    with pytest.raises(goal.GoalSyntaxError) as err:
        goal.parse(text, "cycle.goal")
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("cycle.goal:4:1: dependency cycle in rank 0: ")
    assert "b requires d" in message and "d requires c" in message and "c requires b" in message
    assert "a " not in message.split(": ", 2)[2]            # a is not on the cycle


@pytest.mark.parametrize("command", ["convert", "trace-info"])
def test_the_commands_report_a_syntax_error_in_one_line_with_status_2(tmp_path, capsys, command):
    bad = tmp_path / "bad.goal"
    bad.write_text("num_ranks 2\nrank 0 {\nl1: recv 8b frm 1\n}\n")
    out = tmp_path / "out.goal"
    argv = [command, str(bad)] + ([str(out)] if command == "convert" else [])
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"ppt: error: {bad}:3:13: expected 'from' after the size of a recv, found 'frm'"
    assert not out.exists() and os.listdir(tmp_path) == ["bad.goal"]


def test_content_detection_reads_a_goal_file_without_the_extension(tmp_path):
    path = tmp_path / "schedule.txt"
    path.write_text("// comment\n/* block */ num_ranks 1\nrank 0 {\ncalc 10\n}\n")
    assert format_of(path).name == "goal"
    assert replay(open_trace(path), job_on(1))["predicted_s"] == pytest.approx(10e-9)


# -- the writer: DUMPI -> GOAL -> replay predicts what DUMPI replay predicts ---------------------------------
def analytic_job(ranks):
    machine = Machine(load_system("fattree-4-3"), network_kind="analytic")
    return MPIJob.on_machine(machine, ranks, ranks_per_node=1, mapping="random", seed=3, comm=None)


@functools.lru_cache(maxsize=None)
def round_trip(name):
    trace = open_trace(path(name))
    buf = io.StringIO()
    stats = goal_writer.write(trace, buf, skip_unsupported=True)
    back = goal.parse(buf.getvalue(), f"{name}.goal")
    return (replay(trace, analytic_job(trace.num_ranks), skip_unsupported=True),
            replay(back, analytic_job(trace.num_ranks)), stats)


def bytes_to_proc_null(name):
    """Bytes the trace's sends address to MPI_PROC_NULL."""
    trace = open_trace(path(name))
    total = 0
    for rank in range(trace.num_ranks):
        for c in trace.stream(rank):
            sends = np.isin(c.ops["kind"], (Op.SEND, Op.ISEND, Op.SENDRECV)) & (c.ops["peer"] == PROC_NULL)
            total += int(c.ops["nbytes"][sends].sum())
    return total


@pytest.mark.parametrize("name", SETS)
def test_dumpi_to_goal_to_replay_predicts_what_dumpi_replay_predicts(name):
    """Exact to GOAL's unit (calc times are whole nanoseconds; measured differences are below 1e-11 s)
    on every DUMPI set, with the same messages either way."""
    direct, via_goal, stats = round_trip(name)
    assert via_goal["network"]["messages"] == direct["network"]["messages"]
    # collectives' messages are point-to-point in GOAL; sends to MPI_PROC_NULL (halo3d's open boundaries) move nothing
    assert via_goal["bytes_p2p"] >= direct["bytes_p2p"] - bytes_to_proc_null(name)
    assert not any(key in ("MPI_Probe", "MPI_Iprobe") for key in stats["dropped"])   # each became a receive
    assert abs(via_goal["predicted_s"] - direct["predicted_s"]) < 1e-9
    for a, b in zip(direct["per_rank"], via_goal["per_rank"]):
        assert abs(a["finish_s"] - b["finish_s"]) < 1e-9, a["rank"]


def packet_job(ranks):
    machine = Machine(load_system("fattree-4-3"), network_kind="packet")
    return MPIJob.on_machine(machine, ranks, ranks_per_node=1, mapping="random", seed=3, comm=None)


@needs_real
def test_amg_round_trip_is_exact_on_the_packet_network_too():
    """amg_n4 probes ANY_SOURCE 223 times; each probe that found a message waits in replay for the one its
    status recorded, and in GOAL for the receive that takes it: the same wait, so the same time and packets."""
    trace = open_trace(path("amg_n4"))
    back = goal.parse(goal_writer.to_text(trace, skip_unsupported=True), "amg_n4.goal")
    direct = replay(trace, packet_job(4), skip_unsupported=True)
    via_goal = replay(back, packet_job(4))
    assert via_goal["packets"] == direct["packets"]
    assert abs(via_goal["predicted_s"] - direct["predicted_s"]) < 1e-9
    for a, b in zip(direct["per_rank"], via_goal["per_rank"]):
        assert abs(a["finish_s"] - b["finish_s"]) < 1e-9, a["rank"]


# -- the writer and the reader on a hand-built trace -----------------------------------------------------
def hand_built():
    """Four ranks: blocking and nonblocking point-to-point with gaps, a Sendrecv, a Comm_split into
    pairs with an Allreduce on each pair and a Bcast on COMM_WORLD."""
    t = MemoryTrace("hand", 4)
    for r in range(4):
        b = t.builder(r)
        peer = r ^ 1
        b.add(Op.INIT, "MPI_Init", 1.0)                      # start-up: dropped
        b.add(Op.IRECV, "MPI_Irecv", 2e-6, peer=peer, tag=3, nbytes=6000, request=10)
        b.add(Op.ISEND, "MPI_Isend", 1e-6, peer=peer, tag=3, nbytes=6000, request=11)
        b.add(Op.WAIT, "MPI_Wait", 4e-6, request=11)
        b.add(Op.WAITALL, "MPI_Waitall", 1e-6, aux=[10])
        b.add(Op.SENDRECV, "MPI_Sendrecv", 3e-6, peer=(r + 1) % 4, tag=5, nbytes=100,
              aux=[(r - 1) % 4, 5, 100])
        b.add(Op.COMM_SPLIT, "MPI_Comm_split", 0.0, aux=[2, r // 2, -r])
        b.add(Op.ALLREDUCE, "MPI_Allreduce", 5e-6, comm=2, nbytes=64, op=3)
        b.add(Op.BCAST, "MPI_Bcast", 1e-6, root=1, nbytes=20000)
        if r == 0:
            b.add(Op.SEND, "MPI_Send", 2e-6, peer=3, tag=9, nbytes=10)
        if r == 3:
            b.add(Op.RECV, "MPI_Recv", 0.0, peer=oprecord.ANY_SOURCE, tag=9, nbytes=10)
        b.add(Op.LOCAL, "MPI_Finalize", 7e-6)
    return t


def assert_labels_defined_before_use(text):
    """LogGOPSim's txt2bin looks a dependency's labels up when it reads the line: they must come before."""
    defined = set()
    for line in text.splitlines():
        words = line.split()
        if line.startswith("rank "):
            defined = set()
        elif len(words) >= 2 and words[0].endswith(":"):
            defined.add(words[0][:-1])
        elif len(words) == 3 and words[1] in ("requires", "irequires"):
            assert words[0] in defined and words[2] in defined, line


def test_writer_then_reader_round_trip_of_a_hand_built_trace():
    trace = hand_built()
    text = goal_writer.to_text(trace)
    assert_labels_defined_before_use(text)
    back = goal.parse(text, "hand.goal")
    assert back.num_ranks == 4
    direct, via_goal = replay(trace, job_on(4, 1e-7, 2e-7)), replay(back, job_on(4, 1e-7, 2e-7))
    assert via_goal["predicted_s"] == pytest.approx(direct["predicted_s"], rel=1e-12)
    assert [e["finish_s"] for e in via_goal["per_rank"]] == pytest.approx(
        [e["finish_s"] for e in direct["per_rank"]], rel=1e-12)
    assert via_goal["network"]["messages"] == direct["network"]["messages"]
    # writing the schedule read back gives the same schedule
    assert goal_writer.to_text(back).split("\n")[2:] == text.split("\n")[2:]
    rank0 = text.split("rank 0 {")[1].split("}")[0]
    assert "calc 2000\n" in rank0 and "irequires" in rank0 and "from 1 tag 3" in rank0
    assert "to 3 tag 9" in rank0                              # COMM_WORLD tags are kept


def probing():
    """Rank 0 probes for rank 1's message (Iprobe of ANY_SOURCE that succeeded, after one that did not),
    asks its size and receives it; then probes for rank 2's (Probe) and receives it with Irecv and Wait."""
    t = MemoryTrace("probing", 3)
    builders = [t.builder(r) for r in range(3)]
    for b in builders:
        b.add(Op.INIT, "MPI_Init", 0.0)
    b = builders[0]
    b.add(Op.IPROBE, "MPI_Iprobe", 0.5e-6, peer=oprecord.ANY_SOURCE, tag=5, flag=0)
    b.add(Op.IPROBE, "MPI_Iprobe", 0.5e-6, peer=oprecord.ANY_SOURCE, tag=5, flag=1)
    b.add(Op.LOCAL, "MPI_Get_count", 2e-6)
    b.add(Op.RECV, "MPI_Recv", 3e-6, peer=1, tag=5, nbytes=100)
    b.add(Op.PROBE, "MPI_Probe", 1e-6, peer=2, tag=6)
    b.add(Op.IRECV, "MPI_Irecv", 1e-6, peer=2, tag=6, nbytes=50, request=4)
    b.add(Op.WAIT, "MPI_Wait", 0.5e-6, request=4)
    builders[1].add(Op.SEND, "MPI_Send", 20e-6, peer=0, tag=5, nbytes=100)
    builders[2].add(Op.SEND, "MPI_Send", 40e-6, peer=0, tag=6, nbytes=50)
    for b in builders:
        b.add(Op.LOCAL, "MPI_Finalize", 1e-6)
    return t


def test_a_probe_that_found_a_message_waits_for_the_receive_that_takes_it():
    """The receive is posted at the probe, which waits for it, as replay's probe waits for the message;
    with send and receive overheads the times are replay's and the closed form's."""
    o_s, o_r = 0.5e-6, 0.3e-6
    trace = probing()
    buf = io.StringIO()
    stats = goal_writer.write(trace, buf)
    text = buf.getvalue()
    assert stats["dropped"] == {"MPI_Iprobe (unsuccessful)": 1}
    assert stats["recvs"] == 2
    assert text.split("rank 0 {\n")[1].split("}")[0].splitlines() == [
        "l1: calc 1000",                        # the gaps up to the probe that succeeded
        "l2: recv 100b from 1 tag 5",           # the Recv's receive, posted at the probe
        "l2 requires l1",
        "l3: calc 6000",                        # the gaps of Get_count, Recv and Probe, once it has arrived
        "l3 requires l2",
        "l4: recv 50b from 2 tag 6",            # the Irecv's receive, posted at the Probe
        "l4 requires l3",
        "l5: calc 2500",                        # the Irecv's, Wait's and Finalize's gaps
        "l5 requires l4"]
    back = goal.parse(text, "probing.goal")
    direct, via_goal = replay(trace, job_on(3, o_s, o_r)), replay(back, job_on(3, o_s, o_r))
    L, B = LATENCY_S, BANDWIDTH_BPS
    second = 40e-6 + o_s + L + 50 / B                        # rank 2's message has arrived at rank 0
    assert 20e-6 + o_s + L + 100 / B + 5e-6 + o_r + 1e-6 < second
    rank0_end = second + 1.5e-6 + o_r + 1e-6                 # the probe waited for it: Irecv, Wait, Finalize
    assert direct["per_rank"][0]["finish_s"] == pytest.approx(rank0_end, rel=1e-12)
    assert [e["finish_s"] for e in via_goal["per_rank"]] == pytest.approx(
        [e["finish_s"] for e in direct["per_rank"]], rel=1e-12)
    assert via_goal["network"]["messages"] == direct["network"]["messages"] == 2


def test_a_probe_whose_message_no_later_receive_takes_is_left_out_and_counted():
    t = MemoryTrace("unreceived", 2)
    t.builder(0).add(Op.PROBE, "MPI_Probe", 0.0, peer=1, tag=5)
    t.builder(0).add(Op.RECV, "MPI_Recv", 0.0, peer=1, tag=6, nbytes=8)      # another tag: not the probed one
    t.builder(0).add(Op.IPROBE, "MPI_Iprobe", 0.0, peer=oprecord.PROC_NULL, tag=5, flag=1)   # returns at once
    t.builder(1).add(Op.SEND, "MPI_Send", 0.0, peer=0, tag=6, nbytes=8)
    buf = io.StringIO()
    stats = goal_writer.write(t, buf)
    assert stats["dropped"] == {"MPI_Probe (its message is not received after it)": 1}
    assert stats["recvs"] == 1 and "recv 8b from 1 tag 6" in buf.getvalue()


def test_convert_writes_goal_and_opstream_and_nothing_on_error(tmp_path, capsys):
    saved = opstream.save(hand_built(), tmp_path / "hand.opstream")
    out = tmp_path / "hand.goal"
    assert main(["convert", saved, str(out)]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"ppt convert: wrote {out} (GOAL text, 4 ranks")
    assert goal.load(out).num_ranks == 4
    folder = tmp_path / "again.opstream"
    assert main(["convert", str(out), str(folder)]) == 0
    assert opstream.is_saved(folder)
    assert "op-stream folder" in capsys.readouterr().err
    # a trace the writer refuses leaves no file behind
    bad = MemoryTrace("bad", 1)
    bad.builder(0).add(Op.OTHER, "MPI_Win_create", 0.0)
    saved_bad = opstream.save(bad, tmp_path / "bad.opstream")
    target = tmp_path / "bad.goal"
    assert main(["convert", saved_bad, str(target)]) == 2
    assert "MPI_Win_create" in capsys.readouterr().err
    assert not target.exists() and not [p for p in os.listdir(tmp_path) if p.startswith(".goal-")]


def test_a_collective_one_rank_never_calls_is_named():
    t = MemoryTrace("bad", 2)
    t.builder(0).add(Op.BARRIER, "MPI_Barrier", 0.0, comm=COMM_WORLD)
    with pytest.raises(TraceError, match=r"MPI_Barrier .*never called by world rank\(s\) \[1\]"):
        goal_writer.to_text(t)


def test_a_relayed_ring_is_written_message_by_message():
    """NCCL's ring all-gather relays streams whose lengths only their senders know: every member sends
    its own pieces and forwards those of the P-2 members before it, each message as many bytes as the
    piece it carries, and ends holding every piece."""
    from ppt.mpi.collectives.algorithms import nccl_allgather
    pieces, ends = [1, 3, 2, 4], {}

    def member(c):
        own = [(c.me, q) for q in range(pieces[c.me])]
        ends[c.me] = c.run(nccl_allgather(c.me, 4, len(own)), own, [10 * c.me + q for q in range(len(own))])
    prims = goal_writer._run("WORLD", "MPI_Allgather", {me: member for me in range(4)})
    for me in range(4):
        before = [(me - k) % 4 for k in range(3)]           # itself and the two members it relays for
        sends = [prim[2] for prim in prims[me] if prim[0] == "send"]
        assert sorted(sends) == sorted(10 * o + q for o in before for q in range(pieces[o]))
        assert sorted(ends[me]) == sorted((o, q) for o in range(4) for q in range(pieces[o]))

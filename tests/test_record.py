"""``ppt record``: a real run under mpiexec becomes an op-stream trace whose calls are the program's own,
and the shipped sample traces replay with every message received."""
import json
import struct
import subprocess
from collections import Counter

import numpy as np
import pytest

from ppt.cli.main import main as cli
from ppt.errors import TraceError
from ppt.oprecord import ANY_SOURCE, PROC_NULL, Op
from ppt.record import build, rankfile
from ppt.traces import bundled, opstream
from ppt.traces.formats import open_trace


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A cache of its own, so the recording library is built by the test."""
    monkeypatch.setenv("PPT_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def compiled(name, folder):
    """Sample program ``name`` built with the wheel's mpicc into ``folder``."""
    exe = folder / name
    subprocess.run([build.mpi_tool("mpicc"), "-O1", "-o", str(exe), str(bundled.PROGRAMS / f"{name}.c"), "-lm"],
                   check=True)
    return exe


def printed_counts(out: str) -> dict:
    """Rank -> Counter of the calls the program counted itself ('counts rank=R MPI_X=n ...' lines)."""
    counts = {}
    for line in out.splitlines():
        if line.startswith("counts rank="):
            _, head, *calls = line.split()
            counts[int(head.split("=")[1])] = Counter({c.split("=")[0]: int(c.split("=")[1]) for c in calls})
    return counts


def recorded_counts(trace) -> dict:
    counts = {}
    for rank in range(trace.num_ranks):
        ops, _, calls = trace.read_rank(rank)
        counts[rank] = Counter(calls[i] for i in ops["call"])
    return counts


def replay_json(capture, trace, *argv) -> dict:
    assert cli(["replay", str(trace), "--json", *argv]) == 0
    return json.loads(capture.readouterr().out)


@pytest.mark.mpiexec
def test_a_live_recording_holds_the_calls_the_program_counted_and_replays(tmp_path, cache, capfd):
    exe = compiled("halo3d", tmp_path)
    out = tmp_path / "halo.opstream"
    assert cli(["record", "-n", "4", "-o", str(out), str(exe), "3", "4"]) == 0
    printed = capfd.readouterr()
    assert f"wrote {out}" in printed.err and list(cache.glob("record/libpptrecord-*.so"))
    trace = opstream.load(out)
    expected = printed_counts(printed.out)
    assert sorted(expected) == [0, 1, 2, 3] and expected[0]["MPI_Isend"] == 18
    assert recorded_counts(trace) == expected
    ops, _, calls = trace.read_rank(0)
    sends = ops[ops["kind"] == Op.ISEND]
    assert set(sends["nbytes"]) == {4 * 4 * 8} and (sends["peer"] >= PROC_NULL).all()
    assert (ops["gap_cpu_s"][1:] >= 0).all() and (np.diff(ops["start_s"]) >= 0).all()
    result = replay_json(capfd, out, "--system", "edison", "--network", "analytic")
    assert result["calls"] == dict(sum(expected.values(), Counter()))
    assert result["predicted_s"] > 0 and all(r["unreceived_messages"] == 0 for r in result["per_rank"])


#: A program that starts an MPI_Iallreduce of 64 doubles, computes about 20 ms, then waits for it.
OVERLAP_C = r"""
#include <mpi.h>
#include <time.h>
int main(int argc, char **argv)
{
    double x[64] = {1.0}, y[64];
    MPI_Request request;
    MPI_Init(&argc, &argv);
    MPI_Iallreduce(x, y, 64, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &request);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1e9 + (t.tv_nsec - t0.tv_nsec) < 2e7);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
"""


@pytest.mark.mpiexec
def test_a_recorded_iallreduce_replays_overlapping_the_compute_before_its_wait(tmp_path, cache, capsys):
    """MPI_Iallreduce is recorded with its bytes and the request its MPI_Wait names; replayed, the all-reduce runs
    during the recorded compute, so the Wait costs less than the same trace with a blocking Allreduce in its
    place (the Wait then a local call), by about the all-reduce's time."""
    source = tmp_path / "overlap.c"
    source.write_text(OVERLAP_C)
    subprocess.run([build.mpi_tool("mpicc"), "-O1", "-o", str(tmp_path / "overlap"), str(source)], check=True)
    out = tmp_path / "overlap.opstream"
    assert cli(["record", "-n", "2", "-o", str(out), str(tmp_path / "overlap")]) == 0
    capsys.readouterr()
    trace = opstream.load(out)
    blocking = opstream.MemoryTrace("blocking", 2)
    for rank in range(2):
        ops, aux, calls = trace.read_rank(rank)
        (start,) = ops[ops["kind"] == Op.IALLREDUCE]
        (wait,) = ops[ops["kind"] == Op.WAIT]
        assert calls[start["call"]] == "MPI_Iallreduce" and start["nbytes"] == 64 * 8 and start["op"] == 3
        assert wait["request"] == start["request"] != 0 and wait["gap_wall_s"] >= 0.02
        builder = blocking.builder(rank)
        for op in ops:
            kind = {Op.IALLREDUCE: Op.ALLREDUCE, Op.WAIT: Op.LOCAL}.get(op["kind"], op["kind"])
            builder.add(int(kind), calls[op["call"]], float(op["gap_wall_s"]), float(op["gap_cpu_s"]),
                        call_s=float(op["call_s"]), start_s=float(op["start_s"]), comm=int(op["comm"]),
                        op=int(op["op"]), nbytes=int(op["nbytes"]))
    options = ["--system", "edison", "--network", "analytic", "--compute-clock", "wall"]
    started = replay_json(capsys, out, *options)
    folder = opstream.save(blocking, tmp_path / "blocking.opstream")
    waited = replay_json(capsys, folder, *options)
    allreduce_s = [w["comm_s"] - s["comm_s"] for s, w in zip(started["per_rank"], waited["per_rank"])]
    assert all(0 < saved < 1e-3 for saved in allreduce_s), allreduce_s
    assert started["calls"]["MPI_Iallreduce"] == waited["calls"]["MPI_Iallreduce"] == 2


@pytest.mark.mpiexec
def test_mpi4py_matched_probes_become_the_probe_and_the_receive_they_stand_for(tmp_path, cache, capsys):
    script = tmp_path / "pickled.py"
    script.write_text("from mpi4py import MPI\ncomm = MPI.COMM_WORLD\n"
                      "if comm.rank == 0:\n    comm.send({'x': 1}, dest=1, tag=7)\n"
                      "else:\n    comm.recv(source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG)\n")
    out = tmp_path / "pickled.opstream"
    assert cli(["record", "-n", "2", "-o", str(out), str(script)]) == 0
    ops, _, calls = opstream.load(out).read_rank(1)
    (receive,) = ops[ops["kind"] == Op.RECV]
    (probe,) = ops[ops["kind"] == Op.PROBE]
    assert calls[receive["call"]] == "MPI_Mrecv" and calls[probe["call"]] == "MPI_Mprobe"
    assert (receive["peer"], receive["tag"], probe["peer"], probe["tag"]) == (0, 7, 0, 7)
    result = replay_json(capsys, out, "--system", "edison", "--network", "analytic")
    assert all(r["unreceived_messages"] == 0 for r in result["per_rank"])


def one_line_error(capsys, argv, *words):
    assert cli(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and all(w in err for w in words), err


@pytest.mark.mpiexec
def test_a_program_that_fails_leaves_nothing_behind(tmp_path, cache, capsys):
    script = tmp_path / "fails.py"
    script.write_text("import sys\nsys.exit(3)\n")
    one_line_error(capsys, ["record", "-n", "2", "-o", str(tmp_path / "t"), str(script)], "status 3", "nothing")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "fails.py"]


def test_programs_ppt_record_cannot_run_are_refused_before_running(tmp_path, capsys, monkeypatch):
    out = str(tmp_path / "t")
    one_line_error(capsys, ["record", "-o", out, str(tmp_path / "missing")], "not found")
    fortran = tmp_path / "solver"
    fortran.write_bytes(b"\x7fELF" + b"\0" * 60 + b"libgfortran.so.5\0libmpi.so.12\0")
    fortran.chmod(0o755)
    one_line_error(capsys, ["record", "-o", out, str(fortran)], "Fortran", "no Fortran bindings")
    openmpi = tmp_path / "app"
    openmpi.write_bytes(b"\x7fELF" + b"\0" * 60 + b"libmpi.so.40\0")
    openmpi.chmod(0o755)
    one_line_error(capsys, ["record", "-o", out, str(openmpi)], "another MPI", "libmpi.so.40")
    script = tmp_path / "prog.py"
    script.write_text("pass\n")
    monkeypatch.setattr("sys.executable", str(tmp_path / "nowhere" / "python"))
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    one_line_error(capsys, ["record", "-o", out, str(script)], "mpicc not found")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app", "prog.py", "solver"]


def test_a_rank_that_did_not_reach_finalize_is_refused(tmp_path):
    names = b"MPI_Init\0MPI_Send\0"
    header = rankfile.MAGIC + struct.pack("<4i", rankfile.VERSION, 0, 1, 2) + names
    header += b"\0" * (-len(header) % 8)
    record = np.zeros(1, rankfile.RECORD)
    (tmp_path / "rank-000000.rec").write_bytes(header + record.tobytes())
    (tmp_path / "rank-000000.aux").write_bytes(b"")
    with pytest.raises(TraceError, match="did not reach MPI_Finalize"):
        rankfile.read(tmp_path, 0)
    end = np.zeros(1, rankfile.RECORD)
    end["call"] = rankfile.END
    (tmp_path / "rank-000000.rec").write_bytes(header + record.tobytes() + end.tobytes())
    assert rankfile.read(tmp_path, 0).names == ("MPI_Init", "MPI_Send")


# -- the shipped samples -------------------------------------------------------------------------------
def p2p(trace):
    """(messages, bytes) sent and received over all ranks, per communicator handle, by the op streams, and
    the bytes of every send call (to MPI_PROC_NULL too, which replay counts as sent)."""
    sent, received, calls = Counter(), Counter(), 0
    for rank in range(trace.num_ranks):
        for chunk in trace.stream(rank):
            aux = chunk.aux_list()
            for op in chunk.ops:
                kind, comm = int(op["kind"]), int(op["comm"])
                calls += int(op["nbytes"]) if kind in (Op.SEND, Op.ISEND, Op.SENDRECV) else 0
                if kind in (Op.SEND, Op.ISEND, Op.SENDRECV) and op["peer"] != PROC_NULL:
                    sent[comm, "messages"] += 1
                    sent[comm, "bytes"] += int(op["nbytes"])
                if kind in (Op.RECV, Op.IRECV) and op["peer"] != PROC_NULL:
                    received[comm, "messages"] += 1
                    received[comm, "bytes"] += int(op["nbytes"])
                if kind == Op.SENDRECV and aux[op["aux_start"]] != PROC_NULL:
                    received[comm, "messages"] += 1
                    received[comm, "bytes"] += aux[op["aux_start"] + 2]
    return sent, received, calls


@pytest.mark.parametrize("name", bundled.names())
def test_every_message_of_a_sample_is_received_in_the_trace_and_in_its_replay(name, capsys):
    trace = opstream.load(bundled.path(name))
    sent, received, send_bytes = p2p(trace)
    assert sent == received
    assert bundled.program(name).is_file()
    first = replay_json(capsys, f"sample:{name}", "--system", "edison", "--network", "analytic")
    again = replay_json(capsys, f"sample:{name}", "--system", "edison", "--network", "analytic")
    assert first["predicted_s"] == again["predicted_s"] > 0
    assert first["calls"] == dict(trace.calls()) and first["ranks"] == trace.num_ranks
    assert first["bytes_p2p"] == send_bytes
    assert all(r["unreceived_messages"] == 0 for r in first["per_rank"])


def test_the_master_takes_results_from_any_worker():
    ops, _, calls = opstream.load(bundled.path("master_worker_n6")).read_rank(0)
    receives = ops[ops["kind"] == Op.RECV]
    assert len(receives) > 5 and (receives["peer"] == ANY_SOURCE).all()


def test_a_sample_replays_on_a_packet_network(capsys):
    analytic = replay_json(capsys, "sample:cg_n8", "--system", "fattree-4-3", "--network", "analytic",
                           "--ranks-per-node", "1")
    packet = replay_json(capsys, "sample:cg_n8", "--system", "fattree-4-3", "--network", "packet",
                         "--ranks-per-node", "1")
    assert packet["packets"] > 0 and packet["mean_hops"] > 1
    assert packet["calls"] == analytic["calls"] and packet["bytes_p2p"] == analytic["bytes_p2p"]
    assert packet["predicted_s"] > 0 and all(r["unreceived_messages"] == 0 for r in packet["per_rank"])


def test_an_unknown_sample_is_one_line_naming_the_samples(capsys):
    one_line_error(capsys, ["trace-info", "sample:nope"], "no sample trace 'nope'", "cg_n8")


def test_samples_lists_every_shipped_trace(capsys):
    assert cli(["samples", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["samples"]
    assert [s["name"] for s in listed] == [f"sample:{n}" for n in bundled.names() + bundled.dumpi_names()]
    assert all(s["ranks"] == open_trace(s["folder"]).num_ranks for s in listed)
    assert {s["name"] for s in listed} >= {"sample:dumpi/halo3d_n8", "sample:halo3d_n8"}


def test_a_sweep_replays_samples_by_rank_count(capsys):
    assert cli(["sweep", "replay", "sample:cg_n{ranks}", "--ranks", "8,16", "--system", "edison",
                "--network", "analytic", "--ranks-per-node", "1", "--compute-clock", "cpu", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [int(r["ranks"]) for r in rows] == [8, 16]
    assert rows[1]["calls.MPI_Sendrecv"] == 2 * rows[0]["calls.MPI_Sendrecv"]
    assert 0 < rows[1]["predicted_s"] < rows[0]["predicted_s"]       # the same problem on twice the ranks

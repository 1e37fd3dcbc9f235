"""The op-stream form: builder, folder form, and replay of every DUMPI set (the shipped samples, the shared real traces
when present) through it."""
import json
import math
import zipfile
from pathlib import Path

import numpy as np
import pytest

from ppt.cli.main import main
from ppt.errors import ConfigError, TraceError
from ppt.mpi import MPIJob
from ppt.mpi.settings import MPISettings
from ppt.traces.readers.dumpi import TraceSet
from ppt.oprecord import ANY_SOURCE, AUX_LEN, AUX_START, CALL, COMM_WORLD, KIND, NBYTES, OP_DTYPE, PEER, Op
from ppt.traces.opstream import MemoryTrace, OpStreamBuilder, load, save
from ppt.traces.replay import replay

from mpi_helpers import BANDWIDTH_BPS, EAGER_B, LATENCY_S, network
from shared_traces import MANIFEST, SETS, needs_real, path


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def without_trace(out: str) -> str:
    """The JSON a command printed, less the input's path (which names the form read)."""
    got = json.loads(out)
    got.pop("trace")
    got.get("provenance", {}).pop("wall_s", None)
    got.get("provenance", {}).pop("command", None)
    return json.dumps(got, sort_keys=True)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """Every DUMPI set saved in the folder form, by name."""
    root = tmp_path_factory.mktemp("opstreams")
    return {name: save(TraceSet(path(name)), root / name) for name in SETS}


@pytest.mark.parametrize("name", SETS)
def test_a_saved_op_stream_replays_and_summarizes_exactly_as_its_dumpi_trace(capsys, monkeypatch, saved, name):
    monkeypatch.setenv("PPT_QUIET", "1")
    argv = ["--system", "fattree-4-3", "--network", "analytic", "--ranks-per-node", "1", "--json"]
    code, direct, _ = cli(capsys, "replay", str(path(name)), *argv)
    assert code == 0
    code, through, _ = cli(capsys, "replay", str(saved[name]), *argv)
    assert code == 0
    assert without_trace(through) == without_trace(direct)
    assert json.loads(through)["calls"] == MANIFEST[name]["calls_all_ranks"]
    assert json.loads(through)["trace"].startswith(str(saved[name]))
    code, info_direct, _ = cli(capsys, "trace-info", str(path(name)), "--json")
    code, info_through, _ = cli(capsys, "trace-info", str(saved[name]), "--json")
    assert without_trace(info_through) == without_trace(info_direct)
    assert json.loads(info_through)["footer_counts_match"]


def test_the_dumpi_translation_of_the_samples_resolves_bytes_peers_and_handles():
    """halo3d_n8: 2 KiB halo messages and an allreduce of a double on the communicator Cart_create made (DUMPI's
    first user communicator); master_worker_n6: the master's receives are from ANY_SOURCE."""
    halo = np.concatenate([c.ops for c in TraceSet(path("halo3d_n8")).stream(0)])
    (cart,) = halo[halo["kind"] == Op.CART_CREATE]
    assert cart["comm"] == COMM_WORLD
    for kind, nbytes in ((Op.ISEND, 2048), (Op.IRECV, 2048), (Op.ALLREDUCE, 8)):
        ops = halo[halo["kind"] == kind]
        assert len(ops) and set(ops["comm"]) == {4} and set(ops["nbytes"]) == {nbytes}
    master = np.concatenate([c.ops for c in TraceSet(path("master_worker_n6")).stream(0)])
    recvs = master[master["kind"] == Op.RECV]
    assert len(recvs) and set(recvs["peer"]) == {ANY_SOURCE}


@needs_real
def test_the_dumpi_translation_resolves_bytes_peers_and_handles():
    """npb_ft_W_n4: Alltoall on the communicator Comm_split made; osu_latency_n2: Send/Recv of doubles on WORLD."""
    ft = TraceSet(path("npb_ft_W_n4"))
    ops = np.concatenate([c.ops for c in ft.stream(0)])
    split = ops[ops["kind"] == Op.COMM_SPLIT]
    alltoall = ops[ops["kind"] == Op.ALLTOALL]
    assert len(split) == 2 and len(alltoall) == 8
    assert set(alltoall["comm"]) <= {4, 5} and COMM_WORLD not in set(alltoall["comm"])
    assert (alltoall["nbytes"] > 0).all() and (alltoall["nbytes"] % 16 == 0).all()   # double complex
    osu = TraceSet(path("osu_latency_n2"))
    chunks = list(osu.stream(1))
    rows = [(c.calls[r[CALL]], r) for c in chunks for r in c.rows()]
    recvs = [r for name, r in rows if name == "MPI_Recv"]
    assert len(recvs) == MANIFEST["osu_latency_n2"]["calls_all_ranks"]["MPI_Recv"] // 2
    assert {r[PEER] for r in recvs} == {0} and all(r[KIND] == Op.RECV for r in recvs)
    first = chunks[0].ops[0]
    assert first["gap_wall_s"] == first["gap_cpu_s"] == pytest.approx(first["start_s"] - osu.first_call_s())


def test_builder_cuts_chunks_and_keeps_aux_and_call_names_with_their_ops():
    b = OpStreamBuilder(chunk_ops=2)
    got = [b.add(Op.INIT, "MPI_Init", call_s=1e-3),
           b.add(Op.WAITALL, "MPI_Waitall", gap_wall_s=2e-3, gap_cpu_s=1e-3, start_s=3e-3, aux=[7, 8, 9]),
           b.add(Op.ALLTOALLV, "MPI_Alltoallw", gap_wall_s=-1e-6, aux=[16, 0, 32]),
           b.add(Op.IRECV, "MPI_Irecv", peer=ANY_SOURCE, nbytes=64, request=11, gap_wall_s=4e-3),
           b.add(Op.OTHER, "MPI_File_open")]
    last = b.finish()
    first, second = got[1], got[3]
    assert [c is None for c in got] == [True, False, True, False, True] and b.finish() is None
    assert first.ops.dtype == OP_DTYPE and len(first) == len(second) == 2 and len(last) == 1
    assert first.calls == ("MPI_Init", "MPI_Waitall")
    assert second.calls[:4] == ("MPI_Init", "MPI_Waitall", "MPI_Alltoallw", "MPI_Irecv")
    waitall = first.rows()[1]
    assert first.aux_list()[waitall[AUX_START]:waitall[AUX_START] + waitall[AUX_LEN]] == [7, 8, 9]
    alltoallw, irecv = second.rows()
    assert second.aux_list()[alltoallw[AUX_START]:][:alltoallw[AUX_LEN]] == [16, 0, 32]
    assert (irecv[PEER], irecv[NBYTES], second.ops["request"][1]) == (ANY_SOURCE, 64, 11)
    assert last.calls[last.rows()[0][CALL]] == "MPI_File_open"
    # after MPI_Init: 2 ms + 4 ms by the wall clock (a negative gap counts 0), 1 ms + 4 ms on the CPU
    assert (b.compute_wall_s, b.compute_cpu_s) == pytest.approx((6e-3, 5e-3))
    assert b.has_init and b.other == {"MPI_File_open"} and b.ops == 5
    assert (b.first_start_s, b.last_stop_s) == (0.0, 3e-3)


def test_saved_trace_streams_the_same_ops_in_any_chunk_size(tmp_path):
    trace = MemoryTrace("mixed", 2, chunk_ops=3)
    for rank in range(2):
        b = trace.builder(rank)
        b.add(Op.INIT, "MPI_Init", start_s=0.5, call_s=0.25)
        for i in range(7):
            b.add(Op.WAITSOME, "MPI_Testsome", gap_wall_s=1e-3 * i, start_s=1.0 + i, aux=[1, 2, 3, i % 3][: 2 + i % 3],
                  flag=i % 2)
        b.add(Op.OTHER, "MPI_Win_fence", start_s=9.0)
    folder = save(trace, tmp_path / "mixed")
    back = load(folder)
    assert back.num_ranks == 2 and back.calls() == trace.calls() and back.span() == (0.5, 9.0)
    assert not back.translates("MPI_Win_fence") and back.translates("MPI_Testsome") and back.has_init(1)
    assert back.compute_gaps() == trace.compute_gaps()
    assert trace.compute_gaps()[1] == pytest.approx((21e-3, 21e-3))     # 0 + 1 + ... + 6 ms after MPI_Init
    for rank in range(2):
        want = _flat(trace.stream(rank))
        assert _flat(back.stream(rank)) == want == _flat(back.stream(rank, chunk_ops=2))
        assert len(want) == 9 and want[3] == ("MPI_Testsome", Op.WAITSOME, 2e-3, 0, [1, 2, 3, 2])


def _flat(chunks):
    """(call name, kind, wall gap, flag, aux values) of every op."""
    out = []
    for c in chunks:
        aux = c.aux_list()
        out += [(c.calls[r[CALL]], r[KIND], r[9], r[7], aux[r[AUX_START]:r[AUX_START] + r[AUX_LEN]]) for r in c.rows()]
    return out


def test_save_refuses_a_folder_in_use_and_leaves_nothing_when_the_trace_fails(tmp_path):
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="not an empty folder"):
        save(MemoryTrace("t", 1), tmp_path / "used")

    class Broken(MemoryTrace):
        def stream(self, rank):
            raise TraceError("rank file damaged")
    with pytest.raises(TraceError):
        save(Broken("t", 1), tmp_path / "new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["used"]


def _small(tmp_path):
    trace = MemoryTrace("small", 2)
    for rank in range(2):
        trace.builder(rank).add(Op.INIT, "MPI_Init")
        trace.builder(rank).add(Op.BARRIER, "MPI_Barrier", gap_wall_s=1e-3)
    return Path(save(trace, tmp_path / "small"))


def assert_one_line(capsys, folder, *words):
    code, out, err = cli(capsys, "trace-info", str(folder))
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert all(w in err for w in words), err


def test_a_truncated_rank_file_is_one_line(capsys, tmp_path):
    folder = _small(tmp_path)
    rank_file = folder / "rank-0001.npz"
    rank_file.write_bytes(rank_file.read_bytes()[:200])
    assert_one_line(capsys, folder, "rank-0001.npz", "truncated")


def test_a_rank_file_whose_ops_disagree_with_the_meta_file_is_one_line(capsys, tmp_path):
    folder = _small(tmp_path)
    meta = json.loads((folder / "opstream.json").read_text())
    meta["ranks"][0]["ops"] = 3
    (folder / "opstream.json").write_text(json.dumps(meta))
    assert_one_line(capsys, folder, "rank-0000.npz", "2 ops", "says 3")


@pytest.mark.parametrize("field, value, words", [("aux_len", 5, ("aux values lie outside",)),
                                                 ("kind", 99, ("kind 99",)), ("call", 7, ("call table",))])
def test_an_op_outside_its_arrays_or_kinds_is_one_line(capsys, tmp_path, field, value, words):
    folder = _small(tmp_path)
    with np.load(folder / "rank-0000.npz") as z:
        ops, aux, calls = z["ops"].copy(), z["aux"], z["calls"]
    ops[field][1] = value
    np.savez(folder / "rank-0000.npz", ops=ops, aux=aux, calls=calls)
    assert_one_line(capsys, folder, "rank-0000.npz", *words)


@pytest.mark.parametrize("change, words", [
    ({"version": 99}, ("version 99", "reads version 1")),
    ({"format": "something-else"}, ("does not describe an op-stream trace",)),
    ({"num_ranks": 3}, ("3 ranks",)),
])
def test_a_meta_file_of_another_version_or_shape_is_one_line(capsys, tmp_path, change, words):
    folder = _small(tmp_path)
    meta = json.loads((folder / "opstream.json").read_text())
    (folder / "opstream.json").write_text(json.dumps(dict(meta, **change)))
    assert_one_line(capsys, folder, "opstream.json", *words)


def test_a_missing_rank_file_is_one_line(capsys, tmp_path):
    folder = _small(tmp_path)
    (folder / "rank-0001.npz").unlink()
    assert_one_line(capsys, folder, "rank-0001.npz", "missing")


def test_a_rank_file_without_its_arrays_is_one_line(capsys, tmp_path):
    folder = _small(tmp_path)
    with zipfile.ZipFile(folder / "rank-0000.npz", "w") as z:
        z.writestr("ops.npy", b"")
    assert_one_line(capsys, folder, "rank-0000.npz", "lacks ops, aux or calls")


# -- a hand-built op-stream on the analytic network -----------------------------------------------
def pingpong(reps: int, nbytes: int, compute_s: float) -> MemoryTrace:
    """Rank 0 computes ``compute_s`` then sends ``nbytes`` to rank 1, which sends them back; ``reps`` times."""
    trace = MemoryTrace("pingpong", 2)
    for rank in range(2):
        b = trace.builder(rank)
        b.add(Op.INIT, "MPI_Init", call_s=0.5)          # start-up: dropped
        for _ in range(reps):
            if rank == 0:
                b.add(Op.SEND, "MPI_Send", gap_wall_s=compute_s, peer=1, tag=5, nbytes=nbytes)
                b.add(Op.RECV, "MPI_Recv", peer=1, tag=6, nbytes=nbytes)
            else:
                b.add(Op.RECV, "MPI_Recv", peer=ANY_SOURCE, tag=5, nbytes=nbytes)
                b.add(Op.SEND, "MPI_Ssend", peer=0, tag=6, nbytes=nbytes)
        b.add(Op.LOCAL, "MPI_Finalize")
    return trace


@pytest.mark.parametrize("nbytes", [0, 1000, EAGER_B + 1])
def test_a_hand_built_ping_pong_takes_its_closed_form_time(nbytes):
    """LogGP: each eager message takes latency + bytes / bandwidth + o_send + o_recv; a rendezvous one
    (above the eager limit) three latencies and its two 64-byte control messages besides."""
    from ppt.mpi.constants import CONTROL_B
    reps, compute_s, o_send, o_recv = 5, 3e-6, 0.7e-6, 0.4e-6
    eager = nbytes <= EAGER_B
    overheads = (o_send + o_recv) if eager else 0.0
    one_way = (LATENCY_S + nbytes / BANDWIDTH_BPS + overheads if eager
               else 3 * LATENCY_S + (2 * CONTROL_B + nbytes) / BANDWIDTH_BPS)
    settings = MPISettings(EAGER_B, o_send, o_recv) if eager else MPISettings(EAGER_B)
    job = MPIJob(network(2), 2, 1, comm=None, settings=settings)
    got = replay(pingpong(reps, nbytes, compute_s), job)
    assert got["predicted_s"] == pytest.approx(reps * (compute_s + 2 * one_way), rel=1e-12)
    assert got["calls"] == {"MPI_Init": 2, "MPI_Send": reps, "MPI_Recv": 2 * reps, "MPI_Ssend": reps,
                            "MPI_Finalize": 2}
    assert got["bytes_p2p"] == 2 * reps * nbytes and got["compute_clock"] == "wall"
    assert [e["startup_dropped_s"] for e in got["per_rank"]] == [0.5, 0.5]
    assert math.isclose(got["per_rank"][0]["compute_s"], reps * compute_s, rel_tol=1e-12)


def test_an_op_the_reader_could_not_express_is_refused_unless_skipped():
    trace = MemoryTrace("rma", 1)
    trace.builder(0).add(Op.INIT, "MPI_Init")
    trace.builder(0).add(Op.OTHER, "MPI_Win_fence", gap_wall_s=1e-3)
    with pytest.raises(TraceError, match=r"unsupported MPI calls in trace: MPI_Win_fence x1; rerun with --skip"):
        replay(trace, MPIJob(network(1), 1, 1, comm=None))
    got = replay(trace, MPIJob(network(1), 1, 1, comm=None), skip_unsupported=True)
    assert got["skipped_calls"] == {"MPI_Win_fence": 1} and got["calls"] == {"MPI_Init": 1}
    assert got["predicted_s"] == pytest.approx(1e-3)


@pytest.mark.parametrize("where", ["ppt/mpi/engine/core/mpicore.h", "docs/op-stream.md"])
def test_the_op_record_has_the_layout_of_the_c_struct_the_engine_runs(where):
    import ctypes
    import re
    text = (Path(__file__).resolve().parents[1] / where).read_text()
    body = re.search(r"typedef struct ppt_op \{(.*?)\} ppt_op_t;", text, re.S).group(1)
    types = {"int16_t": ctypes.c_int16, "int32_t": ctypes.c_int32, "int64_t": ctypes.c_int64, "double": ctypes.c_double}
    fields = [(name.strip(), types[ctype]) for ctype, names in re.findall(r"(\w+) ([^;]+);", body)
              for name in names.split(",")]

    class COp(ctypes.Structure):
        _fields_ = fields
    assert [name for name, _ in fields] == list(OP_DTYPE.names)
    assert ctypes.sizeof(COp) == OP_DTYPE.itemsize == 88
    assert all(getattr(COp, name).offset == OP_DTYPE.fields[name][1] for name in OP_DTYPE.names)

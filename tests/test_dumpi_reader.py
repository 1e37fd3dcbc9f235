"""DUMPI reader against the shipped DUMPI samples, and the shared real traces (../shared/traces) when present, and
their MANIFEST.json."""
import functools
import json
import os
from collections import Counter

import pytest

from ppt.cli.main import main
from ppt.errors import TraceError
from ppt.traces.readers import libundumpi
from ppt.traces.readers.dumpi import TraceSet
from ppt.traces.info import summarize

from shared_traces import MANIFEST, SETS, needs_real, path, real


def trace(name):
    return TraceSet(path(name))


@functools.lru_cache(maxsize=None)
def summary(name):
    return summarize(trace(name))


@pytest.mark.parametrize("name", SETS)
def test_call_counts_match_manifest_and_footer(name):
    ts = trace(name)
    footer = Counter()
    for rank in range(ts.ranks):
        footer.update(ts.footer_counts(rank))
    assert ts.ranks == MANIFEST[name]["ranks"]
    assert summary(name)["calls"] == MANIFEST[name]["calls_all_ranks"]
    assert dict(footer) == MANIFEST[name]["calls_all_ranks"]
    assert summary(name)["footer_counts_match"]


@pytest.mark.parametrize("name", SETS)
def test_point_to_point_bytes_match_manifest(name):
    p2p = MANIFEST[name]["p2p"]
    got = summary(name)
    assert (got["p2p_messages"], got["p2p_bytes"], got["p2p_recv_posted_bytes"]) == \
        (p2p["sent_msgs"], p2p["sent_bytes"], p2p["recv_posted_bytes"])


@pytest.mark.parametrize("name", SETS)
def test_collective_bytes_match_manifest(name):
    assert summary(name)["collective_bytes"] == MANIFEST[name]["collective_payload_bytes"]["values"]


@pytest.mark.parametrize("name", SETS)
def test_span_fits_inside_measured_run(name):
    # A real trace's calls happen inside the mpirun wall time that was measured around them; a sample's
    # span is the one of the op-stream sample it was written from.
    entry = MANIFEST[name]
    if "wall_time_s_measured" in entry:
        assert 0 < summary(name)["span_s"] < entry["wall_time_s_measured"]
    else:
        assert 0 < summary(name)["span_s"] == pytest.approx(entry["span_s"], abs=2e-9)


@pytest.mark.parametrize("name", SETS)
def test_builtin_datatype_sizes_are_lp64(name):
    # DUMPI ids (constants.h): CHAR 2, BYTE 5, INT 9, DOUBLE 14; x86-64 sizes 1, 1, 4, 8 bytes.
    ts = trace(name)
    for rank in range(ts.ranks):
        sizes = ts.datatype_sizes(rank)
        assert (sizes[2], sizes[5], sizes[9], sizes[14]) == (1, 1, 4, 8)


@pytest.mark.parametrize("name", ["halo3d_n8", *real("amg_n4", "snap_mswp_n4", "hpccg_n4")])
def test_request_arguments_are_consistent(name):
    """Completed requests were created earlier; *some/ *any outputs index real requests."""
    ts = trace(name)
    creators = {"MPI_Isend", "MPI_Irecv"}
    for rank in range(ts.ranks):
        created = set()
        last_stop = float("-inf")
        for rec in ts.records(rank):
            a = rec.args
            assert rec.wall_start <= rec.wall_stop and rec.wall_start >= last_stop
            last_stop = rec.wall_stop
            if rec.name in creators:
                created.add(a["request"])
            requests = a.get("requests") or ([a["request"]] if "request" in a else [])
            if "requests" in a:
                assert len(requests) == a["count"]
            assert all(r in created for r in requests if r != libundumpi.REQUEST_NULL), rec
            if rec.name in ("MPI_Testsome", "MPI_Waitsome"):
                assert len(a["indices"]) == a["outcount"]
                assert all(0 <= i < a["count"] and requests[i] != libundumpi.REQUEST_NULL
                           for i in a["indices"])


@needs_real
def test_communicator_arguments_of_amg():
    """Comm_create over a Group_incl: members get a new comm of that size, the others COMM_NULL."""
    ts = trace("amg_n4")
    for rank in range(ts.ranks):
        made = {}
        for rec in ts.records(rank):
            made.setdefault(rec.name, []).append(rec.args)
        (group,), (incl,), (create,) = made["MPI_Comm_group"], made["MPI_Group_incl"], \
            made["MPI_Comm_create"]
        assert incl["group"] == group["group"] and create["group"] == incl["newgroup"]
        assert len(incl["ranks"]) == incl["count"] < ts.ranks
        if rank in incl["ranks"]:
            assert create["newcomm"] > libundumpi.COMM_SELF
            assert all(a["comm"] == create["newcomm"] and a["commsize"] == incl["count"]
                       for a in made["MPI_Allgatherv"])
        else:
            assert create["newcomm"] == libundumpi.COMM_NULL and "MPI_Allgatherv" not in made


@pytest.mark.parametrize("name, first_call", [("halo3d_n8", "MPI_Init"),
                                              *real(("snap_mswp_n4", "MPI_Init_thread"))])
def test_partial_read_closes_its_file(name, first_call):
    ts = trace(name)
    before = len(os.listdir("/proc/self/fd"))
    records = ts.records(0)
    first = next(records)
    assert first.name == first_call
    records.close()
    assert len(os.listdir("/proc/self/fd")) == before


@pytest.mark.parametrize("name", ["master_worker_n6", *real("hpccg_n4")])
def test_cli_json_matches_summary_and_stderr_stays_clean(capfd, name):
    assert main(["trace-info", str(path(name)), "--json"]) == 0
    out, err = capfd.readouterr()
    assert err == ""
    got = json.loads(out)
    assert got["calls"] == MANIFEST[name]["calls_all_ranks"]
    assert got["p2p_bytes"] == MANIFEST[name]["p2p"]["sent_bytes"]


def assert_one_line_trace_error(path, *words):
    with pytest.raises(TraceError) as err:
        TraceSet(path)
    assert "\n" not in str(err.value)
    assert all(w in str(err.value) for w in words), str(err.value)


def test_missing_rank_file_is_reported(copied_set):
    folder, _, bins = copied_set
    bins[2].unlink()
    assert_one_line_trace_error(folder, "missing", bins[2].name)


def test_truncated_rank_file_is_reported(copied_set):
    folder, _, bins = copied_set
    data = bins[1].read_bytes()
    bins[1].write_bytes(data[: len(data) // 2])
    assert_one_line_trace_error(folder, "truncated", bins[1].name)


def test_meta_naming_more_ranks_than_files_is_reported(copied_set):
    folder, meta, bins = copied_set
    n = len(bins)
    meta.write_text(meta.read_text().replace(f"numprocs={n}", f"numprocs={2 * n}"))
    assert_one_line_trace_error(meta, f"{2 * n} ranks", "missing")


# -- damaged traces ------------------------------------------------------------------------

def body_range(data):
    """(first record byte, footer byte) of one rank file, from its index record."""
    import struct
    positions = struct.unpack(">7Q", data[-56:])
    return positions[4] + 8, positions[5]


def assert_names_damage(exc, path):
    msg = str(exc)
    assert "\n" not in msg and path.name in msg and "rank " in msg and "byte offset " in msg, msg


FUZZ_SEED, FUZZ_CASES = 20261123, 90


def test_fuzzed_traces_raise_one_line_or_read_the_same(copied_set):
    """Random byte flips, zeroed blocks and truncations of a real trace (fixed seed).

    Each case must raise a one-line TraceError naming the file, rank and byte offset, or
    give the undamaged summary.  The one exception: a single flipped byte inside the
    records may turn one recorded value into another plausible one (a count of 5 into
    13); nothing in the format can tell such a value from a real one, so the calls must
    still be the undamaged ones and only values may differ.
    """
    import random
    folder, _, bins = copied_set
    ref = summarize(TraceSet(folder))
    original = {b: b.read_bytes() for b in bins}
    rng = random.Random(FUZZ_SEED)
    outcomes = Counter()
    for _ in range(FUZZ_CASES):
        path = rng.choice(bins)
        data = bytearray(original[path])
        kind = rng.choice(["flip", "zero", "truncate"])
        offset = rng.randrange(len(data))
        if kind == "flip":
            data[offset] ^= rng.randrange(1, 256)
        elif kind == "zero":
            n = min(rng.randrange(1, 64), len(data) - offset)
            data[offset:offset + n] = bytes(n)
        else:
            del data[offset:]
        path.write_bytes(bytes(data))
        try:
            got = summarize(TraceSet(folder))
        except TraceError as exc:
            assert_names_damage(exc, path)
            outcomes["error"] += 1
        else:
            if got == ref:
                outcomes["same"] += 1
            else:
                first, footer = body_range(original[path])
                assert kind == "flip" and first <= offset < footer, (kind, offset, got, ref)
                assert got["calls"] == ref["calls"] and got["ranks"] == ref["ranks"]
                outcomes["value changed"] += 1
        finally:
            path.write_bytes(original[path])
    assert outcomes["error"] > FUZZ_CASES // 3 and outcomes["same"] > 0, outcomes


def damage(path, offset, data=b"\xff\xff"):
    raw = bytearray(path.read_bytes())
    raw[offset:offset + len(data)] = data
    path.write_bytes(bytes(raw))


def test_function_without_reader_is_caught_before_libundumpi_asserts(copied_set):
    folder, _, bins = copied_set
    first, _ = body_range(bins[1].read_bytes())
    damage(bins[1], first, (128).to_bytes(2, "big"))   # MPI_Pcontrol: libundumpi has no reader
    with pytest.raises(TraceError) as err:
        summarize(TraceSet(folder))
    assert_names_damage(err.value, bins[1])
    assert "function id 128" in str(err.value)


def test_argument_damage_that_kills_libundumpi_is_reported(copied_set):
    """MPI_Init's argc read as 2**31-1: libundumpi reads argv past the end and aborts (in the child)."""
    folder, _, bins = copied_set
    first, _ = body_range(bins[1].read_bytes())
    damage(bins[1], first + 29, b"\x7f\xff\xff\xff")
    with pytest.raises(TraceError) as err:
        summarize(TraceSet(folder))
    assert_names_damage(err.value, bins[1])
    assert f"byte offset {first}" in str(err.value)


def test_function_id_out_of_range_names_its_offset(copied_set):
    folder, _, bins = copied_set
    first, _ = body_range(bins[2].read_bytes())
    damage(bins[2], first)                     # the first record's function id: 0xffff
    with pytest.raises(TraceError) as err:
        list(TraceSet(folder).records(2))
    assert f"byte offset {first}" in str(err.value) and "function id 65535" in str(err.value)


def test_time_jump_in_the_last_call_is_caught(copied_set):
    """A flipped seconds field in the last call once gave a span of hours instead of 0.19 s."""
    folder, _, bins = copied_set
    ts = TraceSet(folder)
    offsets = []
    import ppt.traces.readers.dumpi as dumpi
    spans = {}
    for _ in dumpi.read_chunks(str(bins[0]), 0, ts.ranks, None, spans):
        pass
    last_at = spans[0][3]
    raw = bins[0].read_bytes()
    config = raw[last_at + 2]
    wall_stop = last_at + 5 + 12 * bool(config & 0x04) + 6
    damage(bins[0], wall_stop, bytes([raw[wall_stop] ^ 0xd4]))
    with pytest.raises(TraceError) as err:
        summarize(TraceSet(folder))
    assert_names_damage(err.value, bins[0])
    assert f"byte offset {last_at}" in str(err.value)


def test_footer_counts_must_match_the_records(copied_set):
    from ppt.traces.readers import libundumpi as lu
    folder, _, bins = copied_set
    raw = bins[3].read_bytes()
    footer = body_range(raw)[1]
    send = next(i for i, n in lu.function_labels().items() if n == "MPI_Barrier")
    at = footer + 8 + 4 * send
    damage(bins[3], at, (int.from_bytes(raw[at:at + 4], "big") + 1).to_bytes(4, "big"))
    with pytest.raises(TraceError) as err:
        summarize(TraceSet(folder))
    assert_names_damage(err.value, bins[3])
    assert "footer counts" in str(err.value)


def test_file_of_another_rank_or_set_is_caught(copied_set):
    folder, _, bins = copied_set
    bins[1].write_bytes(bins[2].read_bytes())
    with pytest.raises(TraceError) as err:
        summarize(TraceSet(folder))
    assert_names_damage(err.value, bins[1])
    assert "another rank" in str(err.value)


def test_meta_with_fewer_ranks_than_the_files_is_caught(copied_set):
    folder, meta, bins = copied_set
    meta.write_text(meta.read_text().replace(f"numprocs={len(bins)}", f"numprocs={len(bins) // 2}"))
    with pytest.raises(TraceError) as err:
        summarize(TraceSet(folder))
    assert "another trace set" in str(err.value) and "\n" not in str(err.value)


def test_empty_rank_file_and_folder_without_meta(copied_set, tmp_path):
    folder, _, bins = copied_set
    bins[0].write_bytes(b"")
    assert_one_line_trace_error(folder, bins[0].name, "rank 0", "truncated")
    assert_one_line_trace_error(tmp_path, "no .meta file")


def test_cli_on_damaged_set_exits_2_with_one_line(copied_set):
    import subprocess
    import sys
    folder, _, bins = copied_set
    first, _ = body_range(bins[1].read_bytes())
    damage(bins[1], first + 300, bytes(40))
    proc = subprocess.run([sys.executable, "-m", "ppt.cli.main", "trace-info", str(folder)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert bins[1].name in proc.stderr and "rank 1" in proc.stderr and "byte offset" in proc.stderr


def test_cpu_timestamps_going_backwards_are_caught(copied_set):
    """The CPU clock is checked as the wall clock is: replay may read its gaps."""
    folder, _, bins = copied_set
    import ppt.traces.readers.dumpi as dumpi
    spans = {}
    for _ in dumpi.read_chunks(str(bins[0]), 0, len(bins), None, spans):
        pass
    last_at = spans[0][3]
    assert bins[0].read_bytes()[last_at + 2] & 0x04         # the record has CPU times, first
    damage(bins[0], last_at + 5 + 2, bytes(4))             # CPU start: 0 ns, before the previous call's end
    with pytest.raises(TraceError) as err:
        summarize(TraceSet(folder))
    assert_names_damage(err.value, bins[0])
    assert f"byte offset {last_at}" in str(err.value) and "CPU timestamps go backwards" in str(err.value)


# -- compute gaps on the wall and the CPU clock --------------------------------------------

@pytest.mark.parametrize("name, low, high", real(("npb_is_W_n4", 0.25, 0.35), ("osu_latency_n2", 0.9, 1.0)))
def test_trace_info_gives_the_compute_gaps_on_both_clocks_and_their_ratio(capsys, name, low, high):
    got = summary(name)
    assert 0 < got["compute_cpu_s"] < got["compute_wall_s"] < got["span_s"] * got["ranks"]
    assert got["cpu_wall_ratio"] == pytest.approx(got["compute_cpu_s"] / got["compute_wall_s"])
    assert low < got["cpu_wall_ratio"] < high
    assert main(["trace-info", str(path(name))]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("compute "))
    assert f"(CPU/wall {got['cpu_wall_ratio']:.3f})" in line and f"{got['compute_cpu_s']:.6f} s CPU" in line


def test_a_rank_without_cpu_times_has_no_cpu_total():
    from ppt.traces.readers.dumpi import Record, _Gaps
    for cpu_step, expected in ((0.0, None), (1e-3, 2e-3)):
        gaps = _Gaps()
        for i, name in enumerate(["MPI_Comm_rank", "MPI_Init", "MPI_Comm_rank", "MPI_Finalize"]):
            gaps.add(Record(name, 0, i * 2e-3, i * 2e-3, i * cpu_step, i * cpu_step, {}))
        wall, cpu = gaps.totals()
        assert wall == pytest.approx(4e-3) and cpu == (None if expected is None else pytest.approx(expected))

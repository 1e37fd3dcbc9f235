"""DUMPI reader against the shared real traces (../shared/traces) and their MANIFEST.json."""
import functools
import json
import os
from collections import Counter

import pytest

from ppt.cli.main import main
from ppt.errors import TraceError
from ppt.traces import libundumpi
from ppt.traces.dumpi import TraceSet
from ppt.traces.info import summarize

from shared_traces import MANIFEST, TRACES
SETS = sorted(MANIFEST)


def trace(name):
    return TraceSet(TRACES / MANIFEST[name]["folder"])


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
    # The traced calls happen inside the mpirun wall time that was measured around them.
    assert 0 < summary(name)["span_s"] < MANIFEST[name]["wall_time_s_measured"]


@pytest.mark.parametrize("name", SETS)
def test_builtin_datatype_sizes_are_lp64(name):
    # DUMPI ids (constants.h): CHAR 2, BYTE 5, INT 9, DOUBLE 14; x86-64 sizes 1, 1, 4, 8 bytes.
    ts = trace(name)
    for rank in range(ts.ranks):
        sizes = ts.datatype_sizes(rank)
        assert (sizes[2], sizes[5], sizes[9], sizes[14]) == (1, 1, 4, 8)


@pytest.mark.parametrize("name", ["amg_n4", "snap_mswp_n4", "hpccg_n4"])
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


def test_partial_read_closes_its_file():
    ts = trace("snap_mswp_n4")
    before = len(os.listdir("/proc/self/fd"))
    records = ts.records(0)
    first = next(records)
    assert first.name == "MPI_Init_thread"
    records.close()
    assert len(os.listdir("/proc/self/fd")) == before


def test_cli_json_matches_summary_and_stderr_stays_clean(capfd):
    name = "hpccg_n4"
    assert main(["trace-info", str(TRACES / name), "--json"]) == 0
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
    folder, meta, _ = copied_set
    meta.write_text(meta.read_text().replace("numprocs=4", "numprocs=8"))
    assert_one_line_trace_error(meta, "8 ranks", "missing")

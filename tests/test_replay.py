"""DUMPI replay on the simulated MPI, against the shipped DUMPI samples and the shared real traces (../shared/traces)
when present.

Validation with the ideal network (1 ns latency, infinite bandwidth): the
traces were recorded with 4 ranks oversubscribed on 2 cores, so most of their
span is time inside MPI calls (waiting for peers that were descheduled, ~50 ms
of MPI_Finalize while DUMPI writes its files, and a real ~20 us message
latency).  None of that is compute, so the ideal replay cannot reproduce the
full span (it gives 5-83 % of it for these traces).  What it must reproduce,
rank by rank, is the window the trace fixes:

* lower bound: the rank's own compute, i.e. the sum of its gaps after its
  MPI_Init ended (start-up dropped; with it kept, from the trace's first call)
  -- no compute is lost;
* upper bound: when the rank started MPI_Finalize in the trace, counted from
  the earliest end of MPI_Init of any rank (from the first call with start-up
  kept) -- a call can only wait for calls its peers issued earlier in their
  recorded order, so on a network faster than the traced one every call starts
  no later than it did when traced, shifted by the least start-up dropped (the
  ideal network uses the traced library's 4 KiB eager limit, so sends wait for
  receivers exactly when they did).  Tolerance: 1 us plus 1 ns per record for
  the ideal network's latency.
"""
import functools
import json
import math
from collections import Counter

import pytest

from ppt.cli.main import main
from ppt.errors import ConfigError, TraceError
from ppt.hardware.systems import load_system
from ppt.machine import Machine
from ppt.mpi import MPIJob
from ppt.mpi.settings import MPISettings
from ppt.traces.readers import dumpi_ops
from ppt.traces import replay as replay_mod
from ppt.traces.readers.dumpi import Record, TraceSet
from ppt.traces.ideal import IDEAL_EAGER_B, ideal_network
from ppt.traces.replay import RankReplay, replay

from mpi_helpers import network

from shared_traces import MANIFEST, SETS, needs_real, path, real
#: One system per network family with a packet model (small ones: the test builds each).
FAMILY_SYSTEMS = ["torus-16x16x16", "hopper", "bgq-midplane", "dragonfly-booksim", "darter",
                  "fattree-4-3", "slimfly-3k"]


def trace(name):
    return TraceSet(path(name))


def ideal_job(ranks):
    return MPIJob(ideal_network(ranks), ranks, 1, comm=None, settings=MPISettings(IDEAL_EAGER_B))


@functools.lru_cache(maxsize=None)
def ideal_replay(name, compute_scale=1.0, keep_startup=False, clock="auto"):
    ts = trace(name)
    return replay(ts, ideal_job(ts.ranks), compute_scale, keep_startup=keep_startup, compute_clock=clock)


def positive(x):
    return x if x > 0.0 else 0.0


@functools.lru_cache(maxsize=None)
def records(name):
    """Every rank's records, read once per trace."""
    ts = trace(name)
    return {r: list(ts.records(r)) for r in range(ts.ranks)}


@functools.lru_cache(maxsize=None)
def cpu_compute(name, keep_startup=False):
    """Per rank, the positive CPU-clock gaps replay counts (the lead-in before a kept start-up's first
    call is wall-clock time)."""
    recs = records(name)
    start = min(rs[0].wall_start for rs in recs.values())
    out = []
    for rs in recs.values():
        init = next(i for i, r in enumerate(rs) if r.name in ("MPI_Init", "MPI_Init_thread"))
        after = rs if keep_startup else rs[init:]
        out.append((positive(rs[0].wall_start - start) if keep_startup else 0.0)
                   + sum(positive(b.cpu_start - a.cpu_stop) for a, b in zip(after, after[1:])))
    return out


@functools.lru_cache(maxsize=None)
def windows(name, keep_startup=False):
    """Per rank (own compute by the wall clock, trace time of MPI_Finalize's start, records) from where
    replay starts the rank's clock (the end of its MPI_Init, or with start-up kept the trace's first call),
    the latest Finalize bound shifted by the least start-up, and the recorded span."""
    recs = records(name)
    start = min(rs[0].wall_start for rs in recs.values())
    out = []
    for rs in recs.values():
        assert rs[-1].name == "MPI_Finalize"
        init = next(i for i, r in enumerate(rs) if r.name in ("MPI_Init", "MPI_Init_thread"))
        first = 0 if keep_startup else init
        anchor = start if keep_startup else rs[init].wall_stop
        after = rs[first:] if keep_startup else rs[init:]
        compute = (rs[0].wall_start - start if keep_startup else 0.0) + \
            sum(b.wall_start - a.wall_stop for a, b in zip(after, after[1:]))
        out.append((compute, rs[-1].wall_start - anchor, len(rs), anchor - start))
    shift = min(o[3] for o in out)
    out = [(compute, finalize + anchor_shift - shift, records)
           for (compute, finalize, records, anchor_shift) in out]
    span = max(rs[-1].wall_stop for rs in recs.values()) - start
    return out, span


@pytest.mark.parametrize("name", SETS)
def test_replayed_calls_and_bytes_are_the_traces(name):
    got = ideal_replay(name)
    assert got["calls"] == MANIFEST[name]["calls_all_ranks"] == dict(replay_mod.trace_calls(trace(name)))
    assert got["records"] == sum(MANIFEST[name]["calls_all_ranks"].values())
    assert got["bytes_p2p"] == MANIFEST[name]["p2p"]["sent_bytes"]
    assert got["skipped_calls"] == {}


@pytest.mark.parametrize("keep_startup", [False, True])
@pytest.mark.parametrize("name", SETS)
def test_ideal_replay_stays_in_the_window_the_trace_fixes(name, keep_startup):
    # The window holds for wall-clock gaps: the CPU clock's are shorter where ranks waited for a core.
    got = ideal_replay(name, keep_startup=keep_startup, clock="wall")
    bounds, span = windows(name, keep_startup)
    assert got["trace_s"] == pytest.approx(span, abs=1e-9)
    for entry, (compute, finalize, records) in zip(got["per_rank"], bounds):
        slack = 1e-6 + 1e-9 * records
        assert compute - 1e-9 <= entry["finish_s"] <= finalize + slack, entry["rank"]
        assert entry["compute_s"] == pytest.approx(compute, rel=1e-9, abs=1e-12)
    assert got["predicted_s"] < span


@pytest.mark.parametrize("name", ["halo3d_n8", *real("hpccg_n4")])
def test_compute_scale_scales_the_gaps_and_zero_removes_them(name):
    bounds, _ = windows(name)
    none = ideal_replay(name, 0.0, clock="wall")
    assert none["predicted_s"] < 1e-4 and all(e["compute_s"] == 0.0 for e in none["per_rank"])
    double = ideal_replay(name, 2.0, clock="wall")
    for entry, (compute, finalize, records) in zip(double["per_rank"], bounds):
        assert 2 * compute - 1e-9 <= entry["finish_s"] <= 2 * finalize + 1e-6 + 1e-9 * records


@pytest.mark.parametrize("name", SETS)
def test_analytic_replay_completes_every_trace(name):
    machine = Machine(load_system("fattree-4-3"), network_kind="analytic")
    ts = trace(name)
    got = replay(ts, MPIJob.on_machine(machine, ts.ranks, ranks_per_node=1, mapping="random", seed=3, comm=None))
    assert got["calls"] == MANIFEST[name]["calls_all_ranks"]
    assert got["packets"] > 0 and got["mean_hops"] > 0
    computes = [c for c, _, _ in windows(name)[0]] if got["compute_clock"] == "wall" else cpu_compute(name)
    assert all(e["finish_s"] >= compute - 1e-9 for e, compute in zip(got["per_rank"], computes))


@pytest.mark.parametrize("name", ["halo3d_n8", *real("hpccg_n4")])
@pytest.mark.parametrize("system", FAMILY_SYSTEMS)
def test_packet_replay_on_every_network_family(system, name):
    ts = trace(name)
    machine = Machine(load_system(system), network_kind="packet")
    got = replay(ts, MPIJob.on_machine(machine, ts.ranks, ranks_per_node=1, mapping="random", seed=1, comm=None))
    bounds, _ = windows(name)
    assert got["calls"] == MANIFEST[name]["calls_all_ranks"]
    assert got["bytes_p2p"] == MANIFEST[name]["p2p"]["sent_bytes"]
    assert got["packets"] > 0 and got["mean_hops"] > 0
    assert got["predicted_s"] >= max(c for c, _, _ in bounds) - 1e-9


# -- compute clock: wall-clock or CPU gaps -------------------------------------------------------
#: Recorded with more ranks (4) than cores (2), and the ranks lost their core between calls.
OVERSUBSCRIBED = "npb_is_W_n4"
#: Recorded with as many ranks (2) as cores.
DEDICATED = "osu_latency_n2"


@pytest.mark.parametrize("name", SETS)
def test_compute_gaps_are_the_positive_gaps_after_mpi_init_on_each_clock(name):
    wall = [c for c, _, _ in windows(name)[0]]
    got = trace(name).compute_gaps()
    assert [w for w, _ in got] == pytest.approx(wall, rel=1e-9, abs=1e-12)
    assert [c for _, c in got] == pytest.approx(cpu_compute(name), rel=1e-9, abs=1e-12)


@needs_real
def test_auto_takes_the_cpu_clock_where_the_recording_was_oversubscribed_only():
    over, dedicated = replay_mod.choose_clock(trace(OVERSUBSCRIBED)), replay_mod.choose_clock(trace(DEDICATED))
    assert over["clock"] == "cpu" and over["cpu_wall_ratio"] < 0.5 < replay_mod.OVERSUBSCRIBED_CPU_SHARE
    assert dedicated["clock"] == "wall" and dedicated["cpu_wall_ratio"] > 0.9 > replay_mod.OVERSUBSCRIBED_CPU_SHARE
    assert over["compute_cpu_s"] < over["compute_wall_s"]
    assert "0.298 < 0.85" in over["reason"] and "\n" not in over["reason"]
    for clock in ("wall", "cpu"):
        forced = replay_mod.choose_clock(trace(OVERSUBSCRIBED), clock)
        assert (forced["clock"], forced["requested"]) == (clock, clock)
        assert forced["cpu_wall_ratio"] == over["cpu_wall_ratio"]


def test_a_trace_without_cpu_times_replays_the_wall_clock():
    class NoCpuTimes:
        meta_path = "set.meta"

        def compute_gaps(self):
            return [(1e-3, None), (2e-3, None)]
    got = replay_mod.choose_clock(NoCpuTimes())
    assert (got["clock"], got["cpu_wall_ratio"], got["compute_cpu_s"]) == ("wall", None, None)
    assert "no CPU times" in got["reason"]
    assert replay_mod.choose_clock(NoCpuTimes(), "wall")["clock"] == "wall"
    with pytest.raises(ConfigError, match="without CPU times: use --compute-clock wall"):
        replay_mod.choose_clock(NoCpuTimes(), "cpu")


@needs_real
def test_cpu_clock_replays_the_cpu_gaps_and_reports_both_totals():
    cpu, wall = ideal_replay(OVERSUBSCRIBED, clock="cpu"), ideal_replay(OVERSUBSCRIBED, clock="wall")
    auto = ideal_replay(OVERSUBSCRIBED)
    assert auto["predicted_s"] == cpu["predicted_s"]
    assert (auto["compute_clock"], auto["compute_clock_requested"]) == ("cpu", "auto")
    assert (cpu["compute_clock"], wall["compute_clock"]) == ("cpu", "wall")
    for got in (cpu, wall):
        # both totals whichever clock replays, per rank and over all ranks
        assert got["compute_wall_s"] == pytest.approx(sum(c for c, _, _ in windows(OVERSUBSCRIBED)[0]))
        assert got["compute_cpu_s"] == pytest.approx(sum(cpu_compute(OVERSUBSCRIBED)))
        assert got["compute_cpu_s"] < 0.5 * got["compute_wall_s"]
        assert got["compute_cpu_s"] / got["compute_wall_s"] == pytest.approx(got["cpu_wall_ratio"])
        assert got["calls"] == MANIFEST[OVERSUBSCRIBED]["calls_all_ranks"]
    for entry, wall_entry, compute in zip(cpu["per_rank"], wall["per_rank"], cpu_compute(OVERSUBSCRIBED)):
        assert entry["compute_s"] == pytest.approx(compute, rel=1e-9, abs=1e-12)
        assert entry["compute_cpu_s"] == pytest.approx(compute, rel=1e-9, abs=1e-12)
        assert wall_entry["compute_s"] == pytest.approx(entry["compute_wall_s"], rel=1e-9, abs=1e-12)
        assert entry["compute_cpu_s"] < entry["compute_wall_s"]
    assert cpu["predicted_s"] < 0.5 * wall["predicted_s"]


@needs_real
def test_the_phase_a_program_times_with_mpi_wtime_is_predicted_beside_its_recorded_length():
    cpu, wall = ideal_replay(OVERSUBSCRIBED, clock="cpu"), ideal_replay(OVERSUBSCRIBED, clock="wall")
    recorded = []
    for rs in records(OVERSUBSCRIBED).values():
        stamps = [r.wall_start for r in rs if r.name == "MPI_Wtime"]
        recorded.append(stamps[-1] - stamps[0])
    for got in (cpu, wall):
        assert [e["recorded_wtime_span_s"] for e in got["per_rank"]] == pytest.approx(recorded, abs=1e-12)
        assert got["recorded_wtime_span_s"] == pytest.approx(max(recorded), abs=1e-12)
        # NPB IS prints the slowest rank's timer, to 2 decimals
        reported = MANIFEST[OVERSUBSCRIBED]["program_reported_timing"]["time_in_seconds"]
        assert got["recorded_wtime_span_s"] == pytest.approx(reported, abs=0.005)
        assert 0 < got["wtime_span_s"] < got["predicted_s"]
    assert cpu["wtime_span_s"] < wall["wtime_span_s"]
    snap = ideal_replay("snap_mswp_n4")      # Fortran under Open MPI: no Wtime records
    assert snap["wtime_span_s"] is None and snap["recorded_wtime_span_s"] is None


@pytest.mark.parametrize("name", ["halo3d_n8", *real(DEDICATED)])
def test_cpu_clock_with_startup_kept_counts_the_lead_in_as_wall_clock_time(name):
    got = ideal_replay(name, keep_startup=True, clock="cpu")
    for entry, compute in zip(got["per_rank"], cpu_compute(name, keep_startup=True)):
        assert entry["compute_s"] == pytest.approx(compute, rel=1e-9, abs=1e-12)
    assert got["calls"] == MANIFEST[name]["calls_all_ranks"]


def test_rank_replay_reads_the_gaps_on_its_clock():
    def timed(name, wall_start, wall_stop, cpu_start, cpu_stop):
        return Record(name, 0, wall_start, wall_stop, cpu_start, cpu_stop, {"comm": 2, "rank": 0})
    # 4 ms of wall-clock gap of which 1 ms on the CPU, then 2 ms of both
    records = [timed("MPI_Comm_rank", 0, 0, 0, 0), timed("MPI_Comm_rank", 4 * MS, 4 * MS, 1 * MS, 1 * MS),
               timed("MPI_Comm_rank", 6 * MS, 6 * MS, 3 * MS, 3 * MS)]
    for clock, finish in (("wall", 6 * MS), ("cpu", 3 * MS)):
        job = MPIJob(network(1), 1, 1, comm=None)
        got = job.run(lambda mpi: RankReplay(mpi, clock=clock).run(dumpi_ops.record_stream(records, SIZES), keep_startup=True))
        assert got.per_rank[0]["finish_s"] == pytest.approx(finish)
        assert (got.returns[0]["compute_wall_s"], got.returns[0]["compute_cpu_s"]) == pytest.approx((6 * MS, 3 * MS))


def test_every_replayed_call_is_a_dumpi_function():
    from ppt.traces.readers import libundumpi
    assert set(dumpi_ops.OPS) <= set(libundumpi.function_labels().values())


# -- recorded outcomes of completion calls (synthetic records on a 1 us / 1 GB/s network) -------
MS = 1e-3
SIZES = (0,) * 14 + (8,)      # datatype 14 = DOUBLE, 8 bytes
DOUBLE = 14


def rec(name, at_s, **args):
    return Record(name, 0, at_s, at_s, at_s, at_s, args)


def run_records(per_rank, algorithms=None):
    """Replay one synthetic record list per rank (no MPI_Init: gaps count from 0); returns the JobResult."""
    def main(mpi):
        return RankReplay(mpi).run(dumpi_ops.record_stream(per_rank[mpi.rank], SIZES, mpi.rank), keep_startup=True)
    job = MPIJob(network(len(per_rank)), len(per_rank), 1, algorithms=algorithms, comm=None)
    return job.run(main)


def send(at, tag, dest=1):
    return rec("MPI_Send", at, count=1, datatype=DOUBLE, dest=dest, tag=tag, comm=2)


def irecv(at, tag, request, source=0):
    return rec("MPI_Irecv", at, count=1, datatype=DOUBLE, source=source, tag=tag, comm=2, request=request)


def test_failed_test_does_not_wait_and_successful_test_does():
    sender = [send(1 * MS, tag=0)]
    receiver = [irecv(0, 0, request=7), rec("MPI_Test", 0, request=7, flag=0, status=None),
                rec("MPI_Test", 0.5 * MS, request=7, flag=1, status=None)]
    got = run_records([sender, receiver])
    # Waiting in the first Test would end at 1.5 ms, not waiting in the second at 0.5 ms.
    assert got.per_rank[1]["finish_s"] == pytest.approx(1 * MS, abs=1e-5)
    assert got.calls["MPI_Test"] == 2


def test_waitsome_completes_only_the_recorded_indices():
    sender = [send(2 * MS, tag=2), send(5 * MS, tag=1)]
    receiver = [irecv(0, 1, request=4), irecv(0, 2, request=5),
                rec("MPI_Waitsome", 0, count=2, requests=[4, 5], outcount=1, indices=[1]),
                rec("MPI_Comm_rank", 1 * MS, comm=2, rank=1)]
    got = run_records([sender, receiver])
    # Waitsome returns with the tag-2 message (2 ms), then 1 ms of compute; all: 6 ms, none: 1 ms.
    assert got.per_rank[1]["finish_s"] == pytest.approx(3 * MS, abs=1e-5)
    assert got.calls == {"MPI_Send": 2, "MPI_Irecv": 2, "MPI_Waitsome": 1, "MPI_Comm_rank": 1}


@pytest.mark.parametrize("flag, finish_ms", [(1, 6.0), (0, 5.0)])
def test_iprobe_waits_for_its_message_only_if_it_found_one(flag, finish_ms):
    sender = [send(5 * MS, tag=3)]
    receiver = [rec("MPI_Iprobe", 0, source=-1, tag=3, comm=2, flag=flag, status=None),
                rec("MPI_Recv", 1 * MS, count=1, datatype=DOUBLE, source=0, tag=3, comm=2, status=None)]
    got = run_records([sender, receiver])
    assert got.per_rank[1]["finish_s"] == pytest.approx(finish_ms * MS, abs=1e-5)


def test_v_collectives_and_send_variants_keep_their_names_and_sizes():
    scatterv = dict(commrank=0, commsize=3, sendcounts=[0, 3, 5], displs=[0, 0, 3], sendtype=DOUBLE,
                    recvcount=0, recvtype=DOUBLE, root=0, comm=2)
    ranks = [[rec("MPI_Scatterv", 0, **scatterv)] for _ in range(3)]
    ranks[0].append(rec("MPI_Ssend", 0, count=2, datatype=DOUBLE, dest=1, tag=0, comm=2))
    ranks[1].append(rec("MPI_Recv", 0, count=2, datatype=DOUBLE, source=0, tag=0, comm=2, status=None))
    got = run_records(ranks, algorithms={"scatter": "linear"})
    assert got.calls == {"MPI_Scatterv": 3, "MPI_Ssend": 1, "MPI_Recv": 1}
    assert got.network["bytes"] == (3 + 5) * 8 + 2 * 8


# -- command line ----------------------------------------------------------------------------
def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code, err, *words):
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("ppt: error:") and "Traceback" not in err
    assert all(w in err for w in words), err


@pytest.mark.parametrize("name, clock", [("halo3d_n8", "wall"), *real(("npb_is_W_n4", "cpu"))])
def test_cli_json_has_the_promised_fields(capsys, monkeypatch, name, clock):
    monkeypatch.setenv("PPT_QUIET", "1")
    code, out, err = run_cli(capsys, "replay", str(path(name)), "--system", "fattree-4-3",
                             "--network", "analytic", "--ranks-per-node", "1", "--json")
    assert code == 0 and err == ""
    got = json.loads(out)
    assert {"ranks", "predicted_s", "trace_s", "calls", "bytes_p2p", "packets", "mean_hops",
            "per_rank", "compute_clock", "compute_clock_requested", "cpu_wall_ratio", "compute_wall_s",
            "compute_cpu_s"} <= set(got)
    assert got["calls"] == MANIFEST[name]["calls_all_ranks"] and len(got["per_rank"]) == MANIFEST[name]["ranks"]
    assert got["trace_s"] == pytest.approx(windows(name)[1], abs=1e-9)
    assert (got["compute_clock"], got["compute_clock_requested"]) == (clock, "auto")
    assert 0 < got["compute_cpu_s"] < got["compute_wall_s"]
    assert all({"compute_wall_s", "compute_cpu_s"} <= set(e) for e in got["per_rank"])


@pytest.mark.parametrize("name, clock", [("master_worker_n6", "wall"),
                                         *real((OVERSUBSCRIBED, "cpu"), (DEDICATED, "wall"))])
def test_cli_says_in_one_line_which_clock_auto_took_and_why(capsys, monkeypatch, name, clock):
    monkeypatch.delenv("PPT_QUIET", raising=False)
    code, out, err = run_cli(capsys, "replay", str(path(name)), "--system", "edison", "--network", "ideal",
                             "--ranks-per-node", "1", "--json")
    assert code == 0
    ratio = json.loads(out)["cpu_wall_ratio"]
    lines = [line for line in err.splitlines() if line.startswith("compute clock")]
    assert len(lines) == 1 and lines[0].startswith(f"compute clock {clock} (") and f"{ratio:.3f}" in lines[0]
    assert json.loads(out)["compute_clock"] == clock


@pytest.mark.parametrize("value", ["0", "-1", "inf", "-inf", "nan", "1e400", "two"])
def test_bad_compute_scale_is_one_line_error(capsys, value):
    code, _, err = replay_cli(capsys, path("samplesort_n8"), f"--compute-scale={value}")
    assert_one_line_error(code, err, "--compute-scale", repr(value))


def test_library_refuses_an_infinite_compute_scale():
    ts = trace("samplesort_n8")
    for scale in (math.inf, math.nan, -1.0):
        with pytest.raises(ConfigError, match="compute scale"):
            replay(ts, ideal_job(ts.ranks), scale)


def test_compute_clock_option_and_its_help_follow_the_library(capsys):
    from ppt.cli.traces import replay as replay_cli_mod
    from ppt.cli.main import build_parser
    assert replay_cli_mod.CLOCKS == replay_mod.COMPUTE_CLOCKS
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices["replay"]
    action = next(a for a in sub._actions if a.dest == "compute_clock")
    assert str(replay_mod.OVERSUBSCRIBED_CPU_SHARE) in action.help and action.default == "auto"
    code, _, err = run_cli(capsys, "replay", "--job-list", "jobs.json", "--system", "fattree-4-3",
                           "--compute-clock", "cpu")
    assert_one_line_error(code, err, "--job-list replaces --compute-clock")


def replay_cli(capsys, path, *extra):
    return run_cli(capsys, "replay", str(path), "--system", "fattree-4-3", "--network", "analytic", *extra)


def test_missing_rank_file(capsys, copied_set):
    folder, _, bins = copied_set
    bins[3].unlink()
    assert_one_line_error(*replay_cli(capsys, folder)[::2], "missing", bins[3].name)


def test_truncated_rank_file(capsys, copied_set):
    folder, _, bins = copied_set
    bins[0].write_bytes(bins[0].read_bytes()[:1000])
    assert_one_line_error(*replay_cli(capsys, folder)[::2], "truncated", bins[0].name)


def test_meta_naming_more_ranks_than_files(capsys, copied_set):
    folder, meta, bins = copied_set
    n = len(bins)
    meta.write_text(meta.read_text().replace(f"numprocs={n}", f"numprocs={n + 2}"))
    assert_one_line_error(*replay_cli(capsys, meta)[::2], f"{n + 2} ranks", "missing")


@pytest.mark.parametrize("name, maker, listed", [
    ("halo3d_n8", "MPI_Cart_create", "MPI_Comm_size x8, MPI_Cart_create x8"),
    *real(("npb_ft_W_n4", "MPI_Comm_split", "MPI_Comm_split x8, MPI_Comm_size x5"))])
def test_unsupported_calls_are_refused_by_name_and_count(capsys, monkeypatch, name, maker, listed):
    # No trace holds a call replay lacks: take two away.
    monkeypatch.delitem(dumpi_ops.OPS, "MPI_Comm_size")
    monkeypatch.delitem(dumpi_ops.OPS, maker)
    code, _, err = replay_cli(capsys, path(name))
    assert_one_line_error(code, err, f"unsupported MPI calls in trace: {listed}", "--skip-unsupported")
    # Skipping them: the calls on the communicator the left-out call made cannot be replayed.
    code, _, err = replay_cli(capsys, path(name), "--skip-unsupported")
    assert_one_line_error(code, err, "communicator 4", "skipped")


def test_skipped_calls_are_reported_and_left_out(monkeypatch):
    monkeypatch.delitem(dumpi_ops.OPS, "MPI_Comm_size")
    ts = trace("samplesort_n8")
    got = replay(ts, ideal_job(ts.ranks), skip_unsupported=True)
    expected = Counter(MANIFEST["samplesort_n8"]["calls_all_ranks"])
    assert got["skipped_calls"] == {"MPI_Comm_size": expected.pop("MPI_Comm_size")}
    assert got["calls"] == dict(expected)


def test_skip_unsupported_works_from_the_records(capsys, monkeypatch):
    """A call the footer does not list (e.g. user-function enter/exit records) is still skipped."""
    monkeypatch.delitem(dumpi_ops.OPS, "MPI_Comm_size")
    footer_only = replay_mod.trace_calls

    def without_comm_size(trace):
        calls = footer_only(trace)
        del calls["MPI_Comm_size"]
        return calls
    monkeypatch.setattr(replay_mod, "trace_calls", without_comm_size)
    ts = trace("samplesort_n8")
    got = replay(ts, ideal_job(ts.ranks), skip_unsupported=True)
    assert got["skipped_calls"] == {"MPI_Comm_size": MANIFEST["samplesort_n8"]["calls_all_ranks"]["MPI_Comm_size"]}
    # Without the flag the record-level refusal recommends it; with it, no error ever does.
    with pytest.raises(TraceError, match="--skip-unsupported"):
        replay(ts, ideal_job(ts.ranks))


@pytest.mark.parametrize("name", ["halo3d_n8", *real("hpccg_n4", "osu_latency_n2")])
def test_startup_dropped_is_each_ranks_time_to_the_end_of_mpi_init_and_mpi_time_is_the_recorded(name):
    got = ideal_replay(name, clock="wall")
    kept = ideal_replay(name, keep_startup=True, clock="wall")
    recs = records(name)
    start = min(rs[0].wall_start for rs in recs.values())
    for entry, kept_entry in zip(got["per_rank"], kept["per_rank"]):
        rs = recs[entry["rank"]]
        init = next(i for i, r in enumerate(rs) if r.name in ("MPI_Init", "MPI_Init_thread"))
        assert entry["startup_dropped_s"] == pytest.approx(rs[init].wall_stop - start, abs=1e-9)
        assert entry["recorded_mpi_s"] == pytest.approx(sum(r.wall_stop - r.wall_start for r in rs[init + 1:]),
                                                        abs=1e-9)
        assert kept_entry["startup_dropped_s"] == 0.0
        # what was dropped is exactly the compute the kept replay adds before MPI_Init ended
        pre = (rs[0].wall_start - start) + sum(b.wall_start - a.wall_stop for a, b in zip(rs[:init], rs[1:init + 1]))
        assert kept_entry["compute_s"] - entry["compute_s"] == pytest.approx(pre, abs=1e-9)
    assert got["startup"] == "dropped" and kept["startup"] == "kept"
    assert got["calls"] == kept["calls"] == MANIFEST[name]["calls_all_ranks"]


def test_replay_cli_keeps_startup_on_request(capsys):
    argv = ["replay", str(path("master_worker_n6")), "--system", "edison", "--network",
            "ideal", "--ranks-per-node", "1", "--json"]
    assert main(argv) == 0 and main(argv + ["--keep-startup"]) == 0
    dropped, kept = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert dropped["startup"] == "dropped" and kept["startup"] == "kept"
    assert all(e["startup_dropped_s"] > 0 for e in dropped["per_rank"])


def test_replay_says_how_many_nodes_it_uses_and_warns_about_a_one_node_job(capsys, monkeypatch):
    monkeypatch.delenv("PPT_QUIET", raising=False)
    folder = str(path("master_worker_n6"))
    assert main(["replay", folder, "--system", "edison", "--network", "ideal", "--json"]) == 0
    err = capsys.readouterr().err
    assert "6 ranks on 1 node" in err and "warning: the whole job sits on one node" in err
    assert main(["replay", folder, "--system", "edison", "--network", "ideal", "--ranks-per-node", "1", "--json"]) == 0
    err = capsys.readouterr().err
    assert "6 ranks on 6 nodes" in err and "warning" not in err


def test_replay_progress_reports_records_over_all_ranks_and_simulated_time():
    from ppt.progress import Progress
    shown = []
    progress = Progress("replay", interval_s=0.0)
    progress.show = lambda n, total, unit, postfix, digits=0: shown.append((n, total, unit, postfix))
    ts = trace("halo3d_n8")        # more records per rank than replay takes between two progress checks
    records = sum(MANIFEST["halo3d_n8"]["calls_all_ranks"].values())
    replay(ts, ideal_job(ts.ranks), progress=progress)
    assert shown and all(total == records and unit == "records over all ranks" and "simulated" in postfix
                         for _, total, unit, postfix in shown)
    done = [n for n, *_ in shown]
    assert done == sorted(done) and done[-1] <= records

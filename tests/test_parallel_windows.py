"""Parallel runs on 2, 3 and 4 simulation ranks print the serial output, whether the blocks keep the
dragonfly groups whole (synthetic traffic: 100 ns windows, the global links' latency) or split one (a
small job's ranks shared out -- a model, a replay, an mpi4py program: 10 ns windows, the local
links'), and ``ppt bench parallel`` reports what the windows cost."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mpi_helpers import synthetic_trace
from ppt.bench import parallel as bench
from ppt.cli.main import main
from ppt.engine.exchange import STATS_VARIABLE

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "mpi4py"
#: The model of a small job: 24 ranks, 2 a node, on the first 3 routers of one dragonfly group.
MODEL = """
def main(mpi):
    comm = mpi.COMM_WORLD
    mpi.compute([("fALU", 10**4 * (comm.rank + 1))])
    right, left = (comm.rank + 1) % comm.size, (comm.rank - 1) % comm.size
    got = comm.sendrecv(("from", comm.rank), right, source=left, nbytes=100000)
    return comm.allreduce(comm.rank, nbytes=8), got
"""
TRAFFIC = ["traffic", "dragonfly-booksim", "--load", "0.5", "--routing", "ugal", "--warmup", "2e-7", "--time", "6e-7"]


def _mpiexec() -> str:
    found = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")
    if not found:
        pytest.skip("mpiexec not installed")
    return found


def _run(argv, processes, tmp_path):
    """``ppt argv --json`` on ``processes`` ranks: (its JSON text, rank 0's window statistics or None)."""
    prefix = str(tmp_path / f"stats{processes}")
    env = dict(os.environ, PPT_QUIET="1", **{STATS_VARIABLE: prefix})
    command = [sys.executable, "-m", "ppt.cli.main", *argv, "--json"]
    if processes > 1:
        command = [_mpiexec(), "-n", str(processes), *command]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    stats = [json.loads(open(f"{prefix}.{rank}").read()) for rank in range(processes)] if processes > 1 else None
    return bench.comparable(done.stdout), stats


@pytest.mark.mpiexec
def test_traffic_on_whole_groups_runs_100_ns_windows_and_prints_the_serial_json(tmp_path):
    serial, _ = _run(TRAFFIC, 1, tmp_path)
    for processes in (2, 3, 4):
        parallel, (stats, *_) = _run(TRAFFIC, processes, tmp_path)
        assert parallel == serial
        assert stats["lookahead_s"] == pytest.approx(100e-9)
        assert 0 < stats["windows"] <= 20     # 8 of 100 ns, a few cut short where the run stops to read
                                              # its counters; 10 ns windows would be 80


@pytest.mark.mpiexec
def test_a_small_job_split_inside_a_group_prints_the_serial_json(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    argv = ["run", str(tmp_path / "model.py"), "--system", "dragonfly-booksim", "--ranks", "24",
            "--ranks-per-node", "2", "--network", "packet"]
    serial, _ = _run(argv, 1, tmp_path)
    for processes in (2, 3):
        parallel, stats = _run(argv, processes, tmp_path)
        assert parallel == serial
        assert stats[0]["lookahead_s"] == pytest.approx(10e-9)     # the group's local links are cut
        assert all(rank["events"] > 0 for rank in stats)           # no rank holds the whole job alone


@pytest.mark.mpiexec
@pytest.mark.parametrize("kind", ["replay", "exec"])
def test_a_replay_and_a_program_on_three_ranks_print_the_serial_json(tmp_path, kind):
    # 16 ranks, 1 a node, on the 4 routers of one group's first half: three simulation ranks split them
    if kind == "replay":
        argv = ["replay", str(synthetic_trace(tmp_path / "trace", 500))]
    else:
        argv = ["exec", str(EXAMPLES / "jacobi.py"), "-n", "16", "--compute", "none"]
    argv += ["--system", "dragonfly-booksim", "--network", "packet", "--ranks-per-node", "1"]
    serial, _ = _run(argv, 1, tmp_path)
    parallel, stats = _run(argv, 3, tmp_path)
    assert parallel == serial
    assert stats[0]["lookahead_s"] == pytest.approx(10e-9)
    assert all(rank["events"] > 0 for rank in stats)


@pytest.mark.mpiexec
def test_bench_parallel_reports_windows_waits_and_identical_output():
    rows = bench.measure("tiny", TRAFFIC, [2], log=lambda _: None)
    (row,) = rows
    assert row["identical"] and row["ranks"] == 2
    assert row["windows"] > 0 and row["events_per_window"] > 0 and row["exchange_bytes_per_window"] > 0
    assert len(row["wait_s"]) == 2 and row["events_max_over_mean"] >= 1.0
    assert row["speedup"] == pytest.approx(row["serial_s"] / row["parallel_s"])


@pytest.mark.parametrize("argv, message", [
    (["bench", "parallel", "--processes", "1"], "each rank count must be at least 2"),
    (["bench", "engine", "--quick"], "--quick applies to 'ppt bench parallel' only"),
    (["bench", "parallel", "--columns", "speedup,bogus"], "--columns bogus: no such column"),
    (["bench", "engine", "--columns", "ratio"], "--columns applies to 'ppt bench mpi' and 'ppt bench parallel'"),
])
def test_bench_parallel_refuses_bad_options_in_one_line(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_bench_parallel_under_mpiexec_says_to_run_it_without(capsys, monkeypatch):
    monkeypatch.setenv("PMI_RANK", "0")          # as a launcher's process sees it
    argv, message = ["bench", "parallel", "--quick"], "without mpiexec: it starts its own"
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def _workload(**changes):
    from ppt.bench.projection import Workload
    base = dict(name="w", loop_s=100.0, windows=1000, bytes_per_window=0.0, cut_share=0.5, window_cost_s=0.0,
                startup_s=0.0, imbalance={k: 1.0 for k in (2, 16, 64, 128)},
                cut_share_at={k: 0.5 for k in (2, 16, 64, 128)})
    return Workload(**{**base, **changes})


def test_projection_is_amdahl_with_window_costs():
    from ppt.bench.projection import parallel_s, speedup
    free = dict(latency_s=0.0, peer_s=0.0)
    assert speedup(_workload(), 16, **free) == pytest.approx(16.0)            # perfect split, free windows
    assert speedup(_workload(imbalance={16: 1.25}), 16, **free) == pytest.approx(16 / 1.25)
    assert speedup(_workload(startup_s=10.0), 16, **free) == pytest.approx(110 / (10 + 100 / 16))
    # each window pays c + a + o (K - 1) + the crossing bytes over K links
    w = _workload(window_cost_s=1e-4, bytes_per_window=8e6, cut_share_at={16: 0.25})
    expected = 100 / 16 + 1000 * (1e-4 + 3e-6 + 2e-6 * 15 + 8e6 * 0.5 / (16 * 1e9))
    assert parallel_s(w, 16, latency_s=3e-6, peer_s=2e-6, bandwidth_Bps=1e9) == pytest.approx(expected)


def test_projection_table_falls_off_where_windows_cost_more_than_they_split():
    from ppt.bench.projection import RANKS, WORKLOADS, table
    rows = table()
    assert [row["workload"] for row in rows] == [w.name for w in WORKLOADS]
    for row in rows:
        gains = [row[f"K={k}"] for k in RANKS]
        assert all(1.0 < g < k for g, k in zip(gains, RANKS)) and gains == sorted(gains)
    loop_only, with_startup = rows[0], rows[1]
    assert all(with_startup[f"K={k}"] < loop_only[f"K={k}"] for k in RANKS)

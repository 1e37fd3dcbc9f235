"""Job mixes under mpiexec (on the compiled MPI engine, traffic jobs and samples included): each
simulation process simulates its part of the network and the mix's JSON is byte-identical to a serial
run's."""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from test_jobs import DEADLOCK, EXCHANGE, SMALL_DRAGONFLY

#: An MPI job that never leaves its node pairs, so its ranks sit on both processes' routers.
SPREAD = {"name": "spread", "kind": "script", "script": "exchange.py", "ranks": 12, "ranks_per_node": 1}


def _mpiexec():
    found = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")
    if not found:
        pytest.skip("mpiexec not installed")
    return found


def same_bytes(text: str) -> str:
    """``text`` with any wall-clock time (``"wall_s": ...``, never the same twice) blanked, byte for byte
    otherwise."""
    return re.sub(r'"wall_s": [-+0-9.eE]+', '"wall_s": 0', text)


def run_both(tmp_path: Path, jobs: list, *extra):
    """``ppt run --job-list`` serially and under ``mpiexec -n 2``: both completed processes (a serial run's
    ``samples.npz``, if it writes one, is then ``serial.npz``)."""
    (tmp_path / "exchange.py").write_text(EXCHANGE)
    (tmp_path / "deadlock.py").write_text(DEADLOCK)
    (tmp_path / "jobs.json").write_text(json.dumps({"jobs": jobs}))
    env = dict(os.environ, PPT_QUIET="1")
    cmd = [sys.executable, "-m", "ppt.cli.main", "run", *SMALL_DRAGONFLY, "--job-list", "jobs.json", *extra]
    serial = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    if (tmp_path / "samples.npz").exists():
        (tmp_path / "samples.npz").rename(tmp_path / "serial.npz")
    parallel = subprocess.run([_mpiexec(), "-n", "2", *cmd], capture_output=True, text=True, env=env, timeout=300,
                              cwd=tmp_path)
    return serial, parallel


@pytest.mark.mpiexec
def test_a_job_mix_split_over_two_processes_prints_the_serial_json(tmp_path):
    background = {"name": "bg", "kind": "traffic", "pattern": "ur", "load": 0.3, "ranks": 40}
    second = {"name": "late", "kind": "script", "script": "exchange.py", "ranks": 6, "ranks_per_node": 2}
    serial, parallel = run_both(tmp_path, [SPREAD, background, second], "--allocation", "random", "--json")
    assert serial.returncode == 0 and parallel.returncode == 0, serial.stderr + parallel.stderr
    out = json.loads(serial.stdout)
    assert same_bytes(parallel.stdout) == same_bytes(serial.stdout)
    # the jobs' nodes lie in both halves of the 72-node network, so both processes simulated ranks
    nodes = [n for job in out["jobs"] for n in job["nodes"]]
    assert min(nodes) < 36 <= max(nodes) and all(job["packets"] > 0 for job in out["jobs"])
    # the traffic stopped one lookahead after the last rank finished, then drained
    assert out["predicted_s"] < out["span_s"] < out["predicted_s"] + 2e-6


@pytest.mark.mpiexec
def test_a_sampled_mix_beside_traffic_writes_the_serial_samples_in_parallel(tmp_path):
    background = {"name": "bg", "kind": "traffic", "pattern": "ur", "load": 0.2, "process": "bernoulli", "ranks": 50}
    serial, parallel = run_both(tmp_path, [SPREAD, background], "--allocation", "random", "--json",
                                "--sample-every", "1e-6", "--samples", "samples.npz")
    assert serial.returncode == 0 and parallel.returncode == 0, serial.stderr + parallel.stderr
    assert same_bytes(parallel.stdout) == same_bytes(serial.stdout)
    out = json.loads(serial.stdout)
    assert out["network"]["packets"] == out["network"]["packets_injected"] > 0
    ours, theirs = np.load(tmp_path / "serial.npz"), np.load(tmp_path / "samples.npz")
    assert sorted(ours.files) == sorted(theirs.files) and len(ours["t_s"]) > 3
    assert all(np.array_equal(ours[name], theirs[name]) for name in ours.files)


@pytest.mark.mpiexec
def test_a_deadlock_beside_traffic_is_the_same_report_in_parallel(tmp_path):
    app = {"name": "app", "kind": "script", "script": "deadlock.py", "ranks": 4, "ranks_per_node": 1}
    background = {"name": "bg", "kind": "traffic", "pattern": "ur", "load": 0.5, "ranks": "rest"}
    serial, parallel = run_both(tmp_path, [app, background], "--allocation", "random", "--json")
    assert serial.returncode == parallel.returncode == 2
    assert serial.stderr.startswith("ppt: error: deadlock at t=") and serial.stderr.count("\n") == 1
    assert serial.stderr in parallel.stderr and parallel.stdout == serial.stdout == ""


@pytest.mark.mpiexec
@pytest.mark.parametrize("network_kind", ["packet", "analytic"])
def test_a_mix_of_mpi_jobs_on_the_compiled_engine_prints_the_serial_json_in_parallel(tmp_path, network_kind):
    """No traffic job: the mix runs on the compiled engine, every job's ranks in one engine per process."""
    second = {"name": "late", "kind": "script", "script": "exchange.py", "ranks": 6, "ranks_per_node": 2}
    serial, parallel = run_both(tmp_path, [SPREAD, second], "--allocation", "random", "--network", network_kind,
                                "--json")
    assert serial.returncode == 0 and parallel.returncode == 0, serial.stderr + parallel.stderr
    assert same_bytes(parallel.stdout) == same_bytes(serial.stdout)
    nodes = [n for job in json.loads(serial.stdout)["jobs"] for n in job["nodes"]]
    assert min(nodes) < 36 <= max(nodes)


@pytest.mark.mpiexec
def test_a_deadlock_in_a_mix_of_mpi_jobs_is_the_same_report_in_parallel(tmp_path):
    app = {"name": "app", "kind": "script", "script": "deadlock.py", "ranks": 4, "ranks_per_node": 1}
    serial, parallel = run_both(tmp_path, [SPREAD, app], "--allocation", "random", "--json")
    assert serial.returncode == parallel.returncode == 2
    assert serial.stderr.startswith("ppt: error: deadlock at t=") and serial.stderr.count("\n") == 1
    assert serial.stderr in parallel.stderr and parallel.stdout == serial.stdout == ""

"""Parallel speed: a network and an application workload run serially and under ``mpiexec -n K``, in the
same run, with each rank's window statistics and a check that every output is the serial one."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from ppt.engine.exchange import STATS_VARIABLE
from ppt.errors import PPTError

#: The workloads: name and the ``ppt`` command line (without --json).
WORKLOADS = {
    "network": ["traffic", "dragonfly-3k", "--pattern", "ur", "--routing", "ugal", "--load", "0.5",
                "--warmup", "5e-6", "--time", "50e-6", "--no-early-stop"],
    "application": ["snap", "edison", "--study", "1", "--cores", "384"],
}
#: Smaller workloads of the same kinds (``--quick``): a few seconds each.
QUICK_WORKLOADS = {
    "network": ["traffic", "dragonfly-3k", "--pattern", "ur", "--routing", "ugal", "--load", "0.5",
                "--warmup", "1e-6", "--time", "5e-6", "--no-early-stop"],
    "application": ["snap", "edison", "--study", "1", "--cores", "192"],
}


def mpiexec() -> str:
    """The mpiexec beside this Python, else on the PATH; a PPTError if there is none."""
    found = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")
    if not found:
        raise PPTError("ppt bench parallel needs mpiexec (pip install mpich)")
    return found


def comparable(text: str) -> str:
    """A command's JSON output without its wall times (the only field a parallel run may change)."""
    return re.sub(r'"wall_s": [-+0-9.eE]+', '"wall_s": 0', text)


def _run(argv: list[str], ranks: int, stats_prefix: str | None) -> tuple[str, float]:
    """Run ``ppt argv --json`` on ``ranks`` simulation ranks: (its stdout, wall seconds)."""
    command = [sys.executable, "-m", "ppt.cli.main", *argv, "--json"]
    if ranks > 1:
        command = [mpiexec(), "-n", str(ranks), *command]
    env = dict(os.environ, PPT_QUIET="1")
    env.pop(STATS_VARIABLE, None)
    if stats_prefix:
        env[STATS_VARIABLE] = stats_prefix
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    wall_s = time.perf_counter() - start
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise PPTError(f"'ppt {' '.join(argv)}' on {ranks} rank(s) failed (exit status {done.returncode}): {last}")
    return done.stdout, wall_s


def _rank_stats(prefix: str, ranks: int) -> list[dict]:
    stats = []
    for rank in range(ranks):
        with open(f"{prefix}.{rank}") as f:
            stats.append(json.load(f))
    return stats


def measure(name: str, argv: list[str], ranks: list[int], log=print) -> list[dict]:
    """One row per rank count of ``ranks`` (each above 1): the serial and parallel wall times of workload
    ``name`` (``ppt argv``), speed-up, efficiency, per-window figures, each rank's waiting, and whether
    the parallel output is the serial one."""
    log(f"{name}: ppt {' '.join(argv)} serially ...")
    serial_out, serial_s = _run(argv, 1, None)
    rows = []
    with tempfile.TemporaryDirectory(prefix="ppt-bench-parallel-") as tmp:
        for k in ranks:
            log(f"{name}: mpiexec -n {k} ...")
            prefix = os.path.join(tmp, f"stats-{k}")
            out, wall_s = _run(argv, k, prefix)
            stats = _rank_stats(prefix, k)
            windows = max(s["windows"] for s in stats)
            events = sum(s["events"] for s in stats)
            rows.append({
                "workload": name, "command": "ppt " + " ".join(argv), "ranks": k,
                "serial_s": serial_s, "parallel_s": wall_s, "speedup": serial_s / wall_s,
                "efficiency": serial_s / wall_s / k, "identical": comparable(out) == comparable(serial_out),
                "windows": windows, "window_s": stats[0]["lookahead_s"],
                "events_per_window": events / windows if windows else 0.0,
                "events_max_over_mean": max(s["events"] for s in stats) * k / events if events else 0.0,
                "exchange_bytes_per_window": sum(s["bytes_sent"] for s in stats) / windows if windows else 0.0,
                "run_s": [s["run_s"] for s in stats], "exchange_s": [s["exchange_s"] for s in stats],
                "wait_s": [s["wait_s"] for s in stats],
            })
    return rows

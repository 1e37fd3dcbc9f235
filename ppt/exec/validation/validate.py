"""A program run for real under ``mpiexec`` and predicted by ``ppt exec``, on this host (``ppt validate``).

:func:`measure` alternates, ``repeats`` times, a real run (:func:`real_run`:
``mpiexec -n N`` of the program inside the timing wrapper
:mod:`ppt.exec.validation.timed`, which leaves interpreter start-up, imports and
``MPI_Init`` out) and a prediction (:func:`predicted_run`: ``ppt exec ...
--json`` in a process of its own, its ``predicted_s``).  The host may be
shared, so before each real run it waits (up to ``quiet_wait_s``) for the
other processes to leave the run's cores free, and during the run it samples
how many other processes want a core (:mod:`ppt.exec.validation.hostload`).

The prediction is compared with the real **minimum** (the run least disturbed
by other processes; ``ppt calibrate`` fits the preset to minimum times too),
and with the real ranks' CPU time: MPICH's ranks poll while they wait, so on
an idle host a rank's CPU time is the run's elapsed time, while on a busy one
it stays near what the run would take alone.
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from ppt.errors import PPTError
from ppt.exec.validation import hostload
from ppt.hardware import mpirun

#: Mean number of other processes wanting a core during the fastest run above which it is called disturbed.
BUSY = 0.5


def real_run(mpiexec: str, program: str, args, ranks: int, timeout_s: float) -> dict:
    """One real run: ``elapsed_s``, ``cpu_s`` (the largest CPU time of a rank) and ``others`` (the mean
    number of other processes that wanted a core meanwhile)."""
    with tempfile.TemporaryDirectory(prefix="ppt-validate-") as folder:
        result = Path(folder) / "elapsed.json"
        cmd = [mpiexec, "-n", str(ranks), sys.executable, "-m", "ppt.exec.validation.timed", str(result), program, *args]
        with hostload.Contention(ranks) as watch:
            mpirun.run(cmd, timeout_s, f"{Path(program).name} under 'mpiexec -n {ranks}'", _quiet_env())
        try:
            timed = json.loads(result.read_text())
        except (OSError, ValueError):
            raise PPTError(f"{Path(program).name} under 'mpiexec -n {ranks}' ended without its time "
                           "(did it call MPI.Finalize or os._exit?)") from None
    return {"elapsed_s": timed["elapsed_s"], "cpu_s": max(timed["cpu_s"]), "others": watch.mean()}


def predicted_run(program: str, args, ranks: int, system: str, seed: int, timeout_s: float) -> float:
    """``predicted_s`` of ``ppt exec PROGRAM ARGS -n RANKS --system SYSTEM --seed SEED``, s."""
    cmd = [sys.executable, "-m", "ppt.cli.main", "exec", "-n", str(ranks), "--system", system, "--seed", str(seed),
           "--json", program, "--", *args]
    out, _ = mpirun.run(cmd, timeout_s, f"ppt exec {Path(program).name} -n {ranks}", _quiet_env())
    try:
        return float(json.loads(out.strip().splitlines()[-1])["predicted_s"])
    except (ValueError, IndexError, KeyError):
        raise PPTError(f"ppt exec {Path(program).name} -n {ranks} printed no prediction") from None


def measure(program: str, args, ranks: int, repeats: int, system: str = "host", seed: int = 0,
            timeout_s: float = 300.0, quiet_wait_s: float = 5.0, mpiexec: str | None = None, say=None) -> dict:
    """``repeats`` real runs and predictions of ``program``, alternating; one row of times (s) and errors (%).
    ``say(text)``, if given, hears of each pair as it ends."""
    mpiexec = mpiexec or mpirun.find_mpiexec()
    real, cpu, others, predicted, waited = [], [], [], [], 0.0
    for done in range(1, repeats + 1):
        waited += hostload.wait_for_quiet(quiet_wait_s, ranks)
        run = real_run(mpiexec, program, args, ranks, timeout_s)
        real.append(run["elapsed_s"])
        cpu.append(run["cpu_s"])
        others.append(run["others"])
        predicted.append(predicted_run(program, args, ranks, system, seed, timeout_s))
        if say:
            say(f"{done}/{repeats}: real {run['elapsed_s']:.4g} s ({run['others']:.2f} other processes running), "
                f"predicted {predicted[-1]:.4g} s")
    best = real.index(min(real))
    row = {"program": program, "args": list(args), "ranks": ranks, "cores": hostload.cores(),
           "oversubscribed": ranks > hostload.cores(), "real_s": real, "real_cpu_s": cpu,
           "other_runnable": others, "waited_for_quiet_s": waited, "predicted_s": predicted,
           "real_min_s": real[best], "real_median_s": statistics.median(real), "real_cpu_of_min_s": cpu[best],
           "other_runnable_of_min": others[best], "real_cpu_min_s": min(cpu),
           "predicted_median_s": statistics.median(predicted)}
    row["error_pct"] = _error_pct(row["predicted_median_s"], row["real_min_s"])
    row["error_vs_cpu_pct"] = _error_pct(row["predicted_median_s"], row["real_cpu_min_s"])
    return row


def warnings(row: dict) -> list[str]:
    """One line per reason the real times of ``row`` are not what the program takes on an idle host."""
    found = []
    if row["other_runnable_of_min"] > BUSY:
        found.append(f"other processes wanted a core during the fastest real run ({row['other_runnable_of_min']:.2f} "
                     f"on average): its time includes waits for a core; rerun on an idle host")
    if row["oversubscribed"]:
        found.append(f"{row['ranks']} ranks on {row['cores']} cores: real ranks share cores, which the prediction "
                     "(one core per rank) does not model")
    return found


def _error_pct(predicted_s: float, real_s: float) -> float:
    return 100.0 * (predicted_s / real_s - 1.0) if real_s > 0 else float("nan")


def _quiet_env() -> dict:
    """This process's environment, with ppt's progress lines off."""
    return dict(os.environ, PPT_QUIET="1")

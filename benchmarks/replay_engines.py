"""Replay speed of the compiled and the Python MPI engine on a synthetic op-stream trace of N messages.

    python benchmarks/replay_engines.py [--messages 1e7] [--ranks 1024] [--folder DIR] [--python]
                                        [--repeats 3] [--json]

The trace (:mod:`ppt.traces.writers.synthetic`: a 3-D halo exchange of 1 KiB with compute gaps and an
8-byte allreduce per iteration, as many iterations as come closest to N messages) is written as an
op-stream folder -- a temporary one, or ``--folder DIR``, which is written if it does not hold a
trace and replayed as it is if it does, so a large trace is written once -- and replayed from it on
the contention-free analytic network of ``ppt bench mpi`` (:func:`ppt.bench.mpi.analytic_job`), its
gaps on the wall clock, ``--repeats`` times per engine: ``compiled`` always, ``python`` with
``--python`` (hours at 1e7 messages; ``--messages 1e6 --python`` compares the two).

Per engine: wall seconds of the replay (reading the trace folder included, building the job not),
min and median over the repeats; messages/s (point-to-point messages, the allreduce's included, as
the ranks' ``messages_sent`` count them) and records/s (trace records over all ranks) at the min;
events the engine executed; predicted seconds, which the engines must give to the last bit.  The
baseline, measured in the same run as ``ppt bench mpi`` measures it, is the bare compiled event loop
(:func:`ppt.bench.network.bare_loop_events_per_s`) for as many events as the compiled replay executed
with one pending event per rank; ``ratio`` is messages/s over its events/s.  Progress goes to stderr.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
import tempfile
import time

from ppt.bench.mpi import analytic_job
from ppt.bench.network import bare_loop_events_per_s
from ppt.traces import opstream
from ppt.traces.replay import replay_result
from ppt.traces.writers.synthetic import SyntheticTrace

ENGINES = ("compiled", "python")


def log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def ensure_trace(folder: str, ranks: int, messages: int) -> dict:
    """The synthetic trace of ``messages`` on ``ranks`` in ``folder`` (written unless it holds a trace):
    its description and the seconds writing it took (0 when reused)."""
    if opstream.is_saved(folder):
        log(f"reusing the trace in {folder}")
        return {"written_s": 0.0}
    trace = SyntheticTrace.of_messages(ranks, messages)
    log(f"writing {trace.num_ranks:,} ranks x {trace.iterations:,} iterations ({trace.messages:,} messages) "
        f"to {folder} ...")
    began = time.perf_counter()
    opstream.save(trace, folder)
    return {"written_s": time.perf_counter() - began, "iterations": trace.iterations}


def replay_once(folder: str, engine: str) -> dict:
    """One replay of the trace in ``folder`` on ``engine``: wall seconds, messages, records, events, predicted s."""
    trace = opstream.load(folder)
    job = analytic_job(trace.num_ranks)
    began = time.perf_counter()
    result = replay_result(trace, job, compute_clock="wall", engine=engine)
    wall_s = time.perf_counter() - began
    return {"wall_s": wall_s, "messages": sum(r["messages_sent"] for r in result.per_rank),
            "records": sum(ret["records"] for ret in result.returns), "events": result.events,
            "predicted_s": result.predicted_s}


def measure(folder: str, engine: str, repeats: int) -> dict:
    """``repeats`` replays on ``engine``: one result row (rates at the min wall time)."""
    runs = []
    for i in range(repeats):
        log(f"{engine} engine, run {i + 1} of {repeats} ...")
        runs.append(replay_once(folder, engine))
        log(f"  {runs[-1]['wall_s']:.3f} s")
    first, walls = runs[0], [run["wall_s"] for run in runs]
    if any(run["predicted_s"] != first["predicted_s"] for run in runs):
        raise SystemExit(f"the {engine} engine predicted differently across repeats")
    best = min(walls)
    return {"engine": engine, "messages": first["messages"], "records": first["records"],
            "events": first["events"], "wall_s": {"min": best, "median": statistics.median(walls)},
            "messages_per_s": first["messages"] / best, "records_per_s": first["records"] / best,
            "predicted_s": first["predicted_s"]}


def run(args, folder: str) -> dict:
    """The trace in ``folder`` (written if need be) measured on the engines ``args`` asks for."""
    written = ensure_trace(folder, args.ranks, int(args.messages))
    ranks = opstream.load(folder).num_ranks
    rows = [measure(folder, engine, args.repeats) for engine in ENGINES if engine == "compiled" or args.python]
    compiled = rows[0]
    log(f"bare compiled loop, {compiled['events']:,} events at {ranks:,} pending ...")
    baseline = bare_loop_events_per_s(ranks, compiled["events"], args.repeats)
    for row in rows:
        row["baseline_events_per_s"], row["ratio"] = baseline, row["messages_per_s"] / baseline
    same = len({row["predicted_s"] for row in rows}) == 1
    return {"ranks": ranks, "messages_asked": int(args.messages), "repeats": args.repeats, **written,
            "engines": rows, "predicted_equal": same}


def table(found: dict) -> str:
    """The result as an aligned table."""
    lines = [f"{found['ranks']:,} ranks, {found['engines'][0]['messages']:,} messages, "
             f"{found['engines'][0]['records']:,} records; min/median of {found['repeats']} repeats",
             f"{'engine':9s} {'wall min s':>10s} {'median s':>9s} {'messages/s':>11s} {'records/s':>10s} "
             f"{'events':>11s} {'bare loop ev/s':>14s} {'ratio':>6s} {'predicted s':>12s}"]
    for row in found["engines"]:
        lines.append(f"{row['engine']:9s} {row['wall_s']['min']:10.3f} {row['wall_s']['median']:9.3f} "
                     f"{row['messages_per_s']:11.4g} {row['records_per_s']:10.4g} {row['events']:11,d} "
                     f"{row['baseline_events_per_s']:14.4g} {row['ratio']:6.3f} {row['predicted_s']:12.9g}")
    if len(found["engines"]) > 1:
        lines.append("predicted equal to the last bit: " + ("yes" if found["predicted_equal"] else "NO"))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=float, default=1e7, help="messages in the trace (default 1e7)")
    parser.add_argument("--ranks", type=int, default=1024, help="ranks of the trace (default 1024)")
    parser.add_argument("--folder", default=None,
                        help="op-stream folder to replay, written first unless it holds a trace (default: a "
                             "temporary folder, removed after)")
    parser.add_argument("--python", action="store_true", help="replay on the Python engine as well (slow)")
    parser.add_argument("--repeats", type=int, default=3, help="replays per engine (default 3)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    if args.folder is not None:
        found = run(args, args.folder)
    else:
        with tempfile.TemporaryDirectory(prefix="replay-engines-") as tmp:
            found = run(args, os.path.join(tmp, "trace"))
    if args.json:
        command = " ".join(["python", "benchmarks/replay_engines.py"] + [shlex.quote(a) for a in sys.argv[1:]])
        print(json.dumps({**found, "command": command}, indent=1))
    else:
        print(table(found))
    if not found["predicted_equal"]:
        sys.exit(1)


if __name__ == "__main__":
    main()

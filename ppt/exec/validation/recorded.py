"""The closed loop through ``ppt record``: a program recorded under the real ``mpiexec``, its recording replayed
on the ``host`` preset, and the recording's MPI calls set against those ``ppt exec`` counts for the same program.

:func:`check` records the program (``ppt record -n N``), replays the recording (``ppt replay TRACE --system
host --compute-clock cpu --json``) and runs it once more under ``ppt exec --compute none --json`` for its call
counts.  ``--compute-clock cpu`` charges each gap between two calls the CPU time the recording rank used in
it, as ``ppt exec --system host`` charges a rank the CPU time of its own code between calls; the wall clock
would also charge the time a rank waited for a core on a shared host.

Which calls are compared (:func:`compared`): the point-to-point, probe, completion (wait, test) and
collective calls, those whose op kind is one of :data:`COMPARED_KINDS`.  The rest appear only in the
recording: ``MPI_Init_thread`` and ``MPI_Finalize`` (mpi4py's import and exit), ``MPI_Comm_rank`` and
``MPI_Comm_size`` (``comm.rank``, ``Get_size()``; mpi4py also asks the size inside its collectives), and the
``MPI_Comm_dup``/``MPI_Comm_free`` of mpi4py's pickled reductions; ``ppt exec`` does not count them.

mpi4py's pickled ``recv`` is an ``MPI_Mprobe`` then an ``MPI_Mrecv`` of the message found, which ``ppt exec``
counts as one ``MPI_Recv``: each ``MPI_Mrecv`` is compared as an ``MPI_Recv`` and ``MPI_Mprobe`` is left
out (:data:`MPI4PY_FOLDS`).  mpi4py's other lowercase collectives are made of several MPI calls (``gather``:
``MPI_Gather`` of the sizes, then ``MPI_Gatherv``; ``bcast``: two ``MPI_Bcast``; ``reduce`` and
``allreduce``: point-to-point messages on a duplicate of the communicator, plus two ``MPI_Bcast`` for
``allreduce``), where ``ppt exec`` counts one call: those counts differ, and :func:`differences` says by how
much.  Seconds throughout.
"""
from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

from ppt.errors import PPTError
from ppt.exec.validation.validate import _quiet_env
from ppt.hardware import mpirun
from ppt.oprecord import BLOCKING_COLLECTIVES, NONBLOCKING_COLLECTIVES, Op
from ppt.traces import opstream
from ppt.traces.callkinds import kind_of

#: Op kinds whose calls both the recording and ``ppt exec`` count: point-to-point, probes, completions, collectives.
COMPARED_KINDS = frozenset({*range(Op.SEND, Op.TESTSOME + 1), *BLOCKING_COLLECTIVES, *NONBLOCKING_COLLECTIVES})
#: Recorded call -> the call ``ppt exec`` counts for it (None: not counted): mpi4py's pickled ``recv``.
MPI4PY_FOLDS = {"MPI_Mrecv": "MPI_Recv", "MPI_Mprobe": None}


def compared(calls) -> Counter:
    """The calls of ``calls`` (name -> count) that are compared, recorded names folded to ``ppt exec``'s."""
    out = Counter()
    for name, count in calls.items():
        name = MPI4PY_FOLDS.get(name, name)
        if name is not None and kind_of(name) in COMPARED_KINDS and count:
            out[name] += int(count)
    return out


def differences(recorded: list, executed: list) -> dict:
    """Per rank (as a string) the compared calls whose counts differ: name -> recorded minus ``ppt exec``'s."""
    out = {}
    for rank, (rec, ex) in enumerate(zip(recorded, executed)):
        diff = {name: rec.get(name, 0) - ex.get(name, 0) for name in sorted(set(rec) | set(ex))
                if rec.get(name, 0) != ex.get(name, 0)}
        if diff:
            out[str(rank)] = diff
    if len(recorded) != len(executed):
        out["ranks"] = {"recorded": len(recorded), "executed": len(executed)}
    return out


def recorded_calls(trace) -> list:
    """Per rank, a Counter of every call of an op-stream ``trace`` by name."""
    counts = []
    for rank in range(trace.num_ranks):
        ops, _, names = trace.read_rank(rank)
        counts.append(Counter(names[i] for i in ops["call"]))
    return counts


def _ppt(argv, timeout_s: float, what: str) -> dict:
    """The last stdout line of ``ppt ARGV`` (a JSON object), run in a process of its own with progress off."""
    out, _ = mpirun.run([sys.executable, "-m", "ppt.cli.main", *argv], timeout_s, what, _quiet_env())
    try:
        return json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise PPTError(f"{what} printed no JSON result") from None


def record(program: str, args, ranks: int, out: str, timeout_s: float) -> None:
    """``ppt record -n RANKS -o OUT PROGRAM ARGS`` (the program's output is dropped)."""
    mpirun.run([sys.executable, "-m", "ppt.cli.main", "record", "-n", str(ranks), "-o", str(out), program, *args],
               timeout_s, f"ppt record -n {ranks} {Path(program).name}", _quiet_env())


def replay(trace: str, system: str, timeout_s: float) -> dict:
    """``ppt replay TRACE --system SYSTEM --compute-clock cpu --json``'s result."""
    return _ppt(["replay", str(trace), "--system", system, "--compute-clock", "cpu", "--json"], timeout_s,
                f"ppt replay {Path(trace).name} --system {system}")


def executed_calls(program: str, args, ranks: int, system: str, timeout_s: float) -> list:
    """Per rank, the calls ``ppt exec PROGRAM ARGS -n RANKS --compute none --json`` counted."""
    result = _ppt(["exec", "-n", str(ranks), "--system", system, "--compute", "none", "--json", program, "--", *args],
                  timeout_s, f"ppt exec {Path(program).name} -n {ranks} --compute none")
    return [Counter(r["calls"]) for r in result["per_rank"]]


def check(program: str, args, ranks: int, folder: str, system: str = "host", timeout_s: float = 300.0) -> dict:
    """Record ``program`` into a new folder in ``folder``, replay it on ``system`` and compare its calls with ``ppt
    exec``'s: ``replay_predicted_s``, ``recorded_calls`` and ``executed_calls`` (per rank, the compared calls),
    ``counts_equal`` and ``count_differences`` (:func:`differences`), ``recorded_only_calls`` (the calls
    not compared, summed over the ranks), the replay's ``compute_clock`` and ``replay_unreceived_messages`` (messages
    sent in the replay that no receive took: 0 for a whole recording)."""
    out = Path(tempfile.mkdtemp(prefix="record-", dir=folder)) / "recording"   # a new one on each try
    record(program, args, ranks, str(out), timeout_s)
    every = recorded_calls(opstream.load(out))
    result = replay(str(out), system, timeout_s)
    recorded = [compared(c) for c in every]
    executed = [compared(c) for c in executed_calls(program, args, ranks, system, timeout_s)]
    only = sum((Counter({n: c for n, c in calls.items() if n not in MPI4PY_FOLDS and kind_of(n) not in COMPARED_KINDS})
                for calls in every), Counter())
    diff = differences(recorded, executed)
    return {"replay_predicted_s": float(result["predicted_s"]), "compute_clock": "cpu",
            "replay_unreceived_messages": sum(int(r["unreceived_messages"]) for r in result["per_rank"]),
            "recorded_calls": [dict(sorted(c.items())) for c in recorded],
            "executed_calls": [dict(sorted(c.items())) for c in executed],
            "counts_equal": not diff, "count_differences": diff, "recorded_only_calls": dict(sorted(only.items()))}


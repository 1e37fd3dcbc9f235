"""Memory per simulated MPI rank of whole runs: a model, an mpi4py program and a trace replay.

Each kind runs in a fresh process at a small and at a large rank count (default 1,000 and 100,000),
16 ranks per node of a contention-free analytic network (1 us, 10 GB/s), and reports the process's
peak resident set (``ru_maxrss``); bytes per rank are the growth from the small run to the large one
divided by the ranks added, so the interpreter, the code and the network's fixed part cancel out.

``model``
    ``main(mpi)``: one 8-byte allreduce, then ``mpi.sleep(1e-6)`` (every rank's greenlet alive);
``exec``
    an unmodified mpi4py program (``benchmarks/programs/allreduce_once.py``: one ``allreduce`` of its
    rank), ``--compute none``;
``replay``
    the synthetic op-stream trace of ``ppt bench mpi`` (a 1 KiB halo with the 6 neighbours of a 3-D grid
    and an 8-byte allreduce), 2 iterations, gaps on the wall clock.

    python benchmarks/memory_per_rank.py [--ranks 1000,100000] [--kinds model,exec,replay] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
KINDS = ("model", "exec", "replay")
RANKS_PER_NODE = 16


def model(mpi):
    mpi.COMM_WORLD.allreduce(1, nbytes=8)
    mpi.sleep(1e-6)


def job(ranks: int):
    from ppt.interconnects.networks.analytic import AnalyticNetwork
    from ppt.mpi import MPIJob
    return MPIJob(AnalyticNetwork(-(-ranks // RANKS_PER_NODE), latency_s=1e-6, bandwidth_Bps=10e9), ranks,
                  RANKS_PER_NODE, comm=None)


def run_kind(kind: str, ranks: int) -> dict:
    """Run ``kind`` at ``ranks`` in this process: its predicted and wall seconds and peak resident set."""
    start = time.perf_counter()
    if kind == "model":
        result = job(ranks).run(model)
    elif kind == "exec":
        from ppt.exec.runner import ExecOptions, exec_program
        result = exec_program(job(ranks), ExecOptions(str(HERE / "programs" / "allreduce_once.py"),
                                                      compute="none")).result
    else:
        from ppt.traces.replay import replay_result
        from ppt.traces.writers.synthetic import SyntheticTrace
        result = replay_result(SyntheticTrace(ranks, 2), job(ranks), compute_clock="wall")
    return {"kind": kind, "ranks": ranks, "predicted_s": result.predicted_s,
            "wall_s": time.perf_counter() - start,
            "peak_rss_B": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}


def measure(kind: str, ranks: int) -> dict:
    done = subprocess.run([sys.executable, __file__, "--one", kind, str(ranks)], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{kind} at {ranks} ranks failed: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", default="1000,100000", help="small,large rank counts")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--json", help="also write the rows to this file")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)       # kind, ranks: one run, in-process
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(run_kind(args.one[0], int(args.one[1]))))
        return
    small, large = (int(r) for r in args.ranks.split(","))
    rows = []
    print(f"{'kind':<8}{'ranks':>9}{'peak MB':>10}{'wall s':>9}{'bytes/rank':>12}", flush=True)
    for kind in args.kinds.split(","):
        low, high = measure(kind, small), measure(kind, large)
        per_rank = (high["peak_rss_B"] - low["peak_rss_B"]) / (large - small)
        rows.append({"kind": kind, "small": low, "large": high, "bytes_per_rank": per_rank})
        for run in (low, high):
            print(f"{kind:<8}{run['ranks']:>9,}{run['peak_rss_B'] / 1e6:>10.1f}{run['wall_s']:>9.1f}"
                  f"{'' if run is low else f'{per_rank:>12,.0f}'}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()

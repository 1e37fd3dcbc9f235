"""Memory per simulated MPI rank, with and without a greenlet.

    python benchmarks/rank_memory.py [--ranks 100000] [--ranks-per-node 16] [--block sleep] [--json]

Three configurations, each measured in fresh Python processes (one for the peak resident set, one for
tracemalloc, whose own bookkeeping would swell the resident set) so that they do not disturb each other:

``baseline``
    the analytic network, its simulation (one NIC entity per node) and the job (``MPIJob``, with its
    rank-to-node map) built, no ranks;
``ranks``
    as baseline, plus every rank's state as ``MPIJob.start`` builds it -- ``Rank`` (with its
    ``RankStats``), the ``MPI`` api object, COMM_WORLD and COMM_SELF, the node's message host --
    without a process: what a trace engine with no greenlet per rank keeps;
``greenlets``
    as baseline, plus ``MPIJob.start`` (ranks and their greenlet processes), then the simulation run
    for 1 ns so every rank has run to its first blocking call (``mpi.sleep(1.0)``, or a barrier with
    ``--block barrier``) and switched out: its greenlet's C stack and Python frames are saved.

Each process builds and runs a 2-rank job first, so code and caches loaded on first use are in
every configuration alike.  Bytes per rank are a configuration's growth over the baseline divided by
the ranks, from the peak resident set (``VmHWM``, see :func:`peak_rss_B`) and from the Python heap tracemalloc traces
(objects alive after a garbage collection).  tracemalloc sees what goes through Python's allocators,
greenlet's saved C stacks included, but not the memory-mapped chunks the interpreter keeps a
greenlet's Python frames in; the resident set counts both.
"""
from __future__ import annotations

import argparse
import gc
import json
import platform
import resource
import shlex
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import greenlet

from ppt.interconnects.networks.analytic import AnalyticNetwork
from ppt.mpi.job import MPIJob
from ppt.mpi.p2p import Rank

CONFIGS = ("baseline", "ranks", "greenlets")
#: The rank program's first blocking call, by ``--block`` name.
BLOCKS = ("sleep", "barrier")
#: Simulated time the greenlets run for, s: every rank starts at 0 and blocks at once.
RUN_S = 1e-9


def sleeper(mpi) -> None:
    """A rank program that blocks at once in a 1 s sleep."""
    mpi.sleep(1.0)


def barrier(mpi) -> None:
    """A rank program that blocks at once in a barrier of COMM_WORLD."""
    mpi.COMM_WORLD.barrier()


def build_job(num_ranks: int, ranks_per_node: int):
    """``(job, sim)``: an analytic network of just enough nodes, its simulation and a job on it."""
    net = AnalyticNetwork(-(-num_ranks // ranks_per_node), latency_s=1e-6, bandwidth_Bps=10e9)
    job = MPIJob(net, num_ranks, ranks_per_node=ranks_per_node, comm=None)
    return job, net.simulation(comm=None, name="rank-memory")


def build_ranks(job, sim) -> list[Rank]:
    """Every rank's state as ``MPIJob.start`` builds it, without starting a process."""
    return job.local_ranks(sim)


def start_ranks(job, sim, block: str = "sleep") -> list[Rank]:
    """``MPIJob.start`` with a program blocking in ``block``, run until every greenlet has switched out."""
    ranks = job.start(sim, sleeper if block == "sleep" else barrier)
    sim.run(until_s=RUN_S)
    return ranks


def peak_rss_B() -> int:
    """Peak resident set of this process image, bytes.

    Linux's ``ru_maxrss`` survives fork and exec, so a child started by a larger process reports its
    parent's peak; the kernel's high-water mark of the new image (``VmHWM``, reset by exec) does not.
    Elsewhere ``ru_maxrss`` (bytes on macOS, KiB on other systems)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def measure(config: str, num_ranks: int, ranks_per_node: int, traced: bool, block: str = "sleep") -> dict:
    """Build ``config`` in this process: ``{"peak_rss_B", "traced_B", "build_s"}`` (``traced_B`` is None
    unless ``traced``; tracemalloc then runs and the peak resident set includes its bookkeeping)."""
    job, sim = build_job(2, 1)                    # warm-up: first-use imports and caches in every config
    start_ranks(job, sim, block)
    sim.run()
    del job, sim
    gc.collect()
    if traced:
        tracemalloc.start()
    wall = time.perf_counter()
    job, sim = build_job(num_ranks, ranks_per_node)
    ranks = []
    if config == "ranks":
        ranks = build_ranks(job, sim)
    elif config == "greenlets":
        ranks = start_ranks(job, sim, block)
        unstarted = sum(r.proc.glet.gr_frame is None for r in ranks)
        if unstarted:
            raise RuntimeError(f"{unstarted} greenlets never ran to a block")
    elif config != "baseline":
        raise ValueError(f"unknown configuration {config!r}; one of {', '.join(CONFIGS)}")
    build_s = time.perf_counter() - wall
    gc.collect()
    traced_B = tracemalloc.get_traced_memory()[0] if traced else None
    assert len(ranks) == (0 if config == "baseline" else num_ranks)
    return {"peak_rss_B": peak_rss_B(), "traced_B": traced_B, "build_s": build_s}


def measure_fresh(config: str, num_ranks: int, ranks_per_node: int, traced: bool, block: str = "sleep") -> dict:
    """:func:`measure` in a new Python process."""
    command = [sys.executable, str(Path(__file__).resolve()), "--measure", config, "--ranks", str(num_ranks),
               "--ranks-per-node", str(ranks_per_node), "--block", block] + (["--traced"] if traced else [])
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"measuring {config} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def measure_all(num_ranks: int, ranks_per_node: int, block: str = "sleep", log=None) -> dict:
    """Every configuration in fresh processes: ``{config: {"peak_rss_B", "traced_B", "build_s"}}``,
    the peak resident set from an untraced process and the traced heap and build time from a traced one."""
    found = {}
    for config in CONFIGS:
        if log:
            log(f"{config}: {num_ranks:,} ranks, {ranks_per_node} per node ...")
        plain = measure_fresh(config, num_ranks, ranks_per_node, False, block)
        traced = measure_fresh(config, num_ranks, ranks_per_node, True, block)
        found[config] = {"peak_rss_B": plain["peak_rss_B"], "traced_B": traced["traced_B"],
                         "build_s": plain["build_s"]}
        if log:
            log(f"{config}: peak RSS {plain['peak_rss_B'] / 1e6:.1f} MB, traced {traced['traced_B'] / 1e6:.1f} MB, "
                f"built in {plain['build_s']:.1f} s")
    return found


def per_rank(found: dict, num_ranks: int) -> dict:
    """Bytes per rank over the baseline, ``{"ranks"|"greenlets"|"greenlet_only": {"rss_B", "traced_B"}}``;
    ``greenlet_only`` is what the greenlet and its process add to a rank (greenlets minus ranks)."""
    base = found["baseline"]
    rows = {config: {"rss_B": (found[config]["peak_rss_B"] - base["peak_rss_B"]) / num_ranks,
                     "traced_B": (found[config]["traced_B"] - base["traced_B"]) / num_ranks}
            for config in CONFIGS[1:]}
    rows["greenlet_only"] = {key: rows["greenlets"][key] - rows["ranks"][key] for key in ("rss_B", "traced_B")}
    return rows


def table(found: dict, num_ranks: int, ranks_per_node: int, block: str) -> str:
    """A readable table of totals and bytes per rank."""
    rows = per_rank(found, num_ranks)
    lines = [f"{num_ranks:,} ranks, {ranks_per_node} per node, first block: {block}; "
             f"Python {platform.python_version()}, greenlet {greenlet.__version__}",
             f"{'configuration':>14} {'peak_RSS_MB':>12} {'traced_MB':>10} {'build_s':>8} {'RSS_B/rank':>11} "
             f"{'traced_B/rank':>14}"]
    for config in CONFIGS:
        entry = found[config]
        extra = rows.get(config)
        lines.append(f"{config:>14} {entry['peak_rss_B'] / 1e6:12.1f} {entry['traced_B'] / 1e6:10.1f} "
                     f"{entry['build_s']:8.2f} " + (f"{extra['rss_B']:11,.0f} {extra['traced_B']:14,.0f}"
                                                    if extra else f"{'':>11} {'':>14}"))
    only = rows["greenlet_only"]
    lines.append(f"{'greenlet only':>14} {'':>12} {'':>10} {'':>8} {only['rss_B']:11,.0f} {only['traced_B']:14,.0f}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=100_000)
    parser.add_argument("--ranks-per-node", type=int, default=16)
    parser.add_argument("--block", choices=BLOCKS, default="sleep",
                        help="the ranks' first blocking call (default sleep: no messages in flight)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--measure", choices=CONFIGS, help=argparse.SUPPRESS)   # one configuration, in-process
    parser.add_argument("--traced", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.ranks, args.ranks_per_node, args.traced, args.block)))
        return
    found = measure_all(args.ranks, args.ranks_per_node, args.block,
                        log=lambda line: print(line, file=sys.stderr, flush=True))
    if args.json:
        command = " ".join(["python", "benchmarks/rank_memory.py"] + [shlex.quote(a) for a in sys.argv[1:]])
        print(json.dumps({"ranks": args.ranks, "ranks_per_node": args.ranks_per_node, "block": args.block,
                          "python": platform.python_version(), "greenlet": greenlet.__version__,
                          "command": command, "totals": found,
                          "per_rank": per_rank(found, args.ranks)}, indent=1))
    else:
        print(table(found, args.ranks, args.ranks_per_node, args.block))


if __name__ == "__main__":
    main()

"""nccl-tests' all_reduce_perf on a GPU system preset: algorithm and bus bandwidth against message size.

    python benchmarks/nccl_allreduce.py [--system dgx-a100] [--nodes 1 2 4] [--algorithm nccl_ring [nccl_tree]]
        [--min-size 1M] [--max-size 1G] [--set network.planes=4 ...] [--plot FILE]

Every node runs one rank per GPU (the preset's ``node.cores``); one all-reduce of each size,
doubling from ``--min-size`` to ``--max-size``, runs on the packet network (1 GiB on 4 DGX A100
nodes, 32 ranks, takes about 3 s).  As nccl-tests reports them (doc/PERFORMANCE.md of
NVIDIA/nccl-tests): algbw = size / time, busbw = algbw x 2(n-1)/n for n ranks, both in GB/s
(10^9 bytes/s).  With several algorithms the table puts their times and bus bandwidths side
by side.  docs/nccl.md compares the curve with published measurements.
"""
from __future__ import annotations

import argparse
import time

from ppt import plotstyle
from ppt.hardware.systems import load_system
from ppt.machine import Machine
from ppt.mpi import MPIJob

#: Size suffixes as nccl-tests reads them (-b 1M, -e 1G): powers of 1024.
UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
#: Bytes per GB in nccl-tests' bandwidth columns.
GB = 1e9


def size_B(text: str) -> int:
    """``1M``-style size in bytes (K, M, G are powers of 1024, as in nccl-tests)."""
    unit = UNITS.get(text[-1].upper())
    return int(text[:-1]) * unit if unit else int(text)


def all_reduce_s(machine: Machine, ranks: int, nbytes: int, algorithm: str) -> float:
    """Predicted seconds of one all-reduce of ``nbytes`` on ``ranks`` ranks, one per GPU."""
    job = MPIJob.on_machine(machine, ranks)
    return job.run(lambda mpi: mpi.COMM_WORLD.allreduce(None, nbytes=nbytes, algorithm=algorithm)).predicted_s


def bus_factor(ranks: int) -> float:
    """nccl-tests' all-reduce correction from algorithm to bus bandwidth, 2(n-1)/n."""
    return 2 * (ranks - 1) / ranks


def sweep(machine: Machine, nodes: list[int], sizes: list[int], algorithm: str) -> list[dict]:
    rows = []
    for count in nodes:
        ranks = count * machine.cores_per_node
        for nbytes in sizes:
            time_s = all_reduce_s(machine, ranks, nbytes, algorithm)
            algbw = nbytes / time_s / GB
            rows.append({"algorithm": algorithm, "nodes": count, "ranks": ranks, "bytes": nbytes,
                         "time_us": time_s * 1e6, "algbw_GBps": algbw, "busbw_GBps": algbw * bus_factor(ranks)})
    return rows


def print_table(rows: list[dict], algorithms: list[str]) -> None:
    """One algorithm: nccl-tests' columns.  Several: time and busbw of each, side by side."""
    if len(algorithms) == 1:
        print("| nodes | GPUs | size (B) | time (us) | algbw (GB/s) | busbw (GB/s) |")
        print("|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            print(f"| {r['nodes']} | {r['ranks']} | {r['bytes']} | {r['time_us']:.1f} | {r['algbw_GBps']:.2f} | "
                  f"{r['busbw_GBps']:.2f} |")
        return
    by_key = {(r["algorithm"], r["nodes"], r["bytes"]): r for r in rows}
    head = " | ".join(f"{a} time (us) | {a} busbw (GB/s)" for a in algorithms)
    print(f"| nodes | GPUs | size (B) | {head} |")
    print("|---:|---:|---:|" + "---:|---:|" * len(algorithms))
    for r in (r for r in rows if r["algorithm"] == algorithms[0]):
        cells = " | ".join(f"{by_key[a, r['nodes'], r['bytes']]['time_us']:.1f} | "
                           f"{by_key[a, r['nodes'], r['bytes']]['busbw_GBps']:.2f}" for a in algorithms)
        print(f"| {r['nodes']} | {r['ranks']} | {r['bytes']} | {cells} |")


def plot(rows: list[dict], title: str, path: str) -> None:
    """Algorithm and bus bandwidth against size, stacked: a colour per node count, a marker and line style per
    algorithm; curves that would hide one another are one line saying so."""
    algorithms = list(dict.fromkeys(r["algorithm"] for r in rows))
    counts = sorted({r["nodes"] for r in rows})
    with plotstyle.figure(path, 2, title=title, sharex=True) as (fig, axes):
        for ax, column, ylabel in zip(axes[:, 0], ("algbw_GBps", "busbw_GBps"),
                                      ("algorithm bandwidth (GB/s)", "bus bandwidth (GB/s)")):
            curves = {}
            for count in counts:
                for algorithm in algorithms:
                    mine = [r for r in rows if r["nodes"] == count and r["algorithm"] == algorithm]
                    label = f"{count} node{'s' if count > 1 else ''} ({mine[0]['ranks']} GPUs)"
                    if len(algorithms) > 1:
                        label = f"{algorithm.removeprefix('nccl_')}, {label}"
                    curves[count, algorithm] = (label, [r["bytes"] for r in mine], [r[column] for r in mine])
            for (count, algorithm), (label, sizes, values) in plotstyle.distinct(curves).items():
                a = algorithms.index(algorithm)
                ax.semilogx(sizes, values, base=2, label=label, color=plotstyle.OKABE_ITO[counts.index(count)],
                            marker=plotstyle.MARKERS[a], linestyle=plotstyle.LINESTYLES[a])
            ax.set(ylabel=ylabel)
        ax.set(xlabel="message size (bytes)")
        plotstyle.legend(fig, ncol=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--system", default="dgx-a100", help="GPU system preset (default dgx-a100)")
    parser.add_argument("--nodes", type=int, nargs="+", default=[1, 2, 4], help="node counts (default 1 2 4)")
    parser.add_argument("--algorithm", nargs="+", default=["nccl_ring"],
                        help="allreduce algorithm(s) (default nccl_ring)")
    parser.add_argument("--min-size", default="1M", help="smallest message, nccl-tests style (default 1M)")
    parser.add_argument("--max-size", default="1G", help="largest message (default 1G)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="preset override, e.g. network.planes=4 (repeatable)")
    parser.add_argument("--plot", metavar="FILE", help="write the two curves to this PNG")
    args = parser.parse_args()
    machine = Machine(load_system(args.system, args.set))
    sizes, nbytes = [], size_B(args.min_size)
    while nbytes <= size_B(args.max_size):
        sizes.append(nbytes)
        nbytes *= 2
    began = time.perf_counter()
    rows = [row for algorithm in args.algorithm for row in sweep(machine, args.nodes, sizes, algorithm)]
    print(f"{args.system}, {machine.cores_per_node} GPUs per node, {', '.join(args.algorithm)}, packet network "
          f"({time.perf_counter() - began:.1f} s wall)\n")
    print_table(rows, args.algorithm)
    if args.plot:
        plot(rows, f"{args.system}: {' vs '.join(args.algorithm)} all-reduce", args.plot)


if __name__ == "__main__":
    main()

"""Flow against packet network on small contending messages: the bound docs/flow-network.md quotes.

``multi_lat``: as OSU's osu_multi_lat, P/2 pairs (rank i with rank i + P/2) ping-pong at once, one rank
per node; on Edison ranks 0-3 sit on one router and 4-7 on the next, so the four pairs share the link
between the two routers.  ``alltoall``: pairwise alltoall of small blocks on 16 ranks over four
routers.  Prints each size's time per iteration on both networks and the flow network's error.
Run: ``python benchmarks/flow_small_messages.py [--system edison] [--iterations 50]``.
"""
from __future__ import annotations

import argparse

from ppt.hardware.systems import load_system
from ppt.machine import Machine
from ppt.mpi import MPIJob

SIZES = [0, 8, 64, 256, 1024, 4096, 16384, 65536]


def multi_lat(mpi, sizes, iterations):
    comm = mpi.COMM_WORLD
    half = comm.size // 2
    me = comm.rank
    peer = me + half if me < half else me - half
    times = []
    for nbytes in sizes:
        comm.barrier()
        start = mpi.wtime()
        for _ in range(iterations):
            if me < half:
                comm.send(None, peer, 1, nbytes)
                comm.recv(peer, 1)
            else:
                comm.recv(peer, 1)
                comm.send(None, peer, 1, nbytes)
        times.append((mpi.wtime() - start) / iterations)
    return times


def alltoall(mpi, sizes, iterations):
    comm = mpi.COMM_WORLD
    times = []
    for nbytes in sizes:
        comm.barrier()
        start = mpi.wtime()
        for _ in range(iterations):
            comm.alltoall(None, nbytes=nbytes)
        times.append((mpi.wtime() - start) / iterations)
    return times


def measure(system: str, program, ranks: int, iterations: int, sizes=SIZES) -> dict:
    out = {}
    for kind in ("packet", "flow"):
        machine = Machine(load_system(system), network_kind=kind)
        result = MPIJob.on_machine(machine, ranks, 1).run(program, sizes, iterations)
        out[kind] = [max(r[i] for r in result.returns) for i in range(len(sizes))]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--system", default="edison")
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="message sizes, bytes")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    worst = 0.0
    for name, program, ranks in (("multi_lat, 8 ranks", multi_lat, 8), ("alltoall, 16 ranks", alltoall, 16)):
        res = measure(args.system, program, ranks, args.iterations, sizes)
        print(f"{name} on {args.system}: size B, packet us, flow us, flow error")
        for size, p, f in zip(sizes, res["packet"], res["flow"]):
            err = f / p - 1
            worst = max(worst, abs(err))
            print(f"  {size:>6} {p * 1e6:9.3f} {f * 1e6:9.3f} {100 * err:+7.1f}%")
    print(f"worst |error| {100 * worst:.1f}%")


if __name__ == "__main__":
    main()

"""Traffic classes inside one job (mpi.class_of): small allreduces beside the same job's halo flood.

    python benchmarks/class_of_halo.py [--systems dragonfly-booksim] [--ranks 128] [--halo-B 1048576]

One MPI job of ``--ranks`` ranks, one per node, placed at random.  In the
"split" layout the odd ranks exchange a ``--halo-B`` halo with the rank
half the job away while the even ranks time 20 8-byte allreduces among
themselves; in the "overlap" layout every rank starts that halo (Isend and
Irecv), times the allreduces, then waits for the halo.  Cases: one class;
collectives in class 1 (equal shares); collectives in class 1 with strict
priority.  Printed per case: the slowest rank's allreduce time (µs) and the
halo's end (the job's predicted time, µs).  Results are in
docs/guide/traffic-classes.md.
"""
from __future__ import annotations

import argparse
import time

from ppt.hardware.systems import load_system
from ppt.machine import Machine
from ppt.mpi import MPIJob

#: (case, network settings, mpi.class_of).
CASES = (("one class", {}, None),
         ("collectives in class 1", {"traffic_classes": 2}, {"collectives": 1}),
         ("... with priority", {"traffic_classes": 2, "class_priority": [0, 1]}, {"collectives": 1}))


def split(mpi, halo_B: int):
    """Odd ranks: the halo; even ranks: the timed allreduces (s)."""
    world = mpi.COMM_WORLD
    comm = world.Split(world.rank % 2, world.rank)
    if world.rank % 2:
        peer = (world.rank + world.size // 2) % world.size
        world.sendrecv(None, peer, source=peer, nbytes=halo_B, sendtag=1, recvtag=1)
        return None
    return allreduces(mpi, comm)


def overlap(mpi, halo_B: int):
    """Every rank: the halo started, the timed allreduces (s), the halo waited for."""
    comm = mpi.COMM_WORLD
    peer = (comm.rank + comm.size // 2) % comm.size
    requests = [comm.irecv(source=peer, tag=1), comm.isend(None, peer, tag=1, nbytes=halo_B)]
    took = allreduces(mpi, comm)
    for request in requests:
        request.wait()
    return took


def allreduces(mpi, comm) -> float:
    """Time of 20 8-byte allreduces on ``comm``, s."""
    start = mpi.Wtime()
    for _ in range(20):
        comm.allreduce(1, nbytes=8)
    return mpi.Wtime() - start


def run_case(system: str, network: dict, class_of, layout, args):
    preset = load_system(system)
    preset["network"].update(network)
    preset["mpi"] = dict(preset.get("mpi", {}), class_of=class_of)
    job = MPIJob.on_machine(Machine(preset, "packet"), args.ranks, 1, "random", seed=1, comm=None)
    result = job.run(layout, args.halo_B)
    return max(r for r in result.returns if r is not None), result.predicted_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", default="dragonfly-booksim")
    parser.add_argument("--ranks", type=int, default=128)
    parser.add_argument("--halo-B", type=int, default=1 << 20)
    args = parser.parse_args()
    for system in args.systems.split(","):
        print(f"\n{system}: {args.ranks} ranks, halo {args.halo_B} B, 20 8-byte allreduces")
        print(f"{'layout':<8} {'case':<24} {'allreduces_us':>13} {'job_us':>9} {'wall_s':>7}")
        for layout in (split, overlap):
            for name, network, class_of in CASES:
                began = time.perf_counter()
                took_s, job_s = run_case(system, network, class_of, layout, args)
                print(f"{layout.__name__:<8} {name:<24} {took_s * 1e6:13.2f} {job_s * 1e6:9.2f} "
                      f"{time.perf_counter() - began:7.1f}", flush=True)


if __name__ == "__main__":
    main()

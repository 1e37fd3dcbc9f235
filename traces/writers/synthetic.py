"""Synthetic op-stream traces: a halo exchange with compute gaps and an allreduce per iteration.

Every rank of a periodic grid (``dims`` dimensions, shaped as MPI_Dims_create shapes it: 1 is a
ring, 3 a 3-D torus of ranks) starts with MPI_Init, then repeats ``iterations`` times:

1. computes for ``compute_s`` times a factor drawn uniformly from ``1 +- imbalance`` (per rank and
   iteration, from ``seed``), the gap before the iteration's first call;
2. posts an MPI_Irecv of ``nbytes`` from each of its ``2 * dims`` neighbours (one step either way
   along every dimension), then an MPI_Isend of ``nbytes`` to each, then one MPI_Waitall on all;
3. calls MPI_Allreduce (sum) of ``allreduce_B`` bytes;

and ends with MPI_Finalize.  The message to the neighbour one step up dimension d is tagged 2d+1,
the one a step down 2d, so each pair of messages between two ranks is told apart however small a
dimension (on a dimension of 2 both neighbours are one rank; of 1, the rank itself).

Streams are made when read, one chunk of whole iterations at a time, so a trace of any size takes
the memory of a chunk: ``save(SyntheticTrace.of_messages(1024, 10_000_000), folder)`` writes a
10 M-message trace.  Run ``python -m ppt.traces.writers.synthetic FOLDER --messages 1e7`` to do so.

Units: seconds and bytes.
"""
from __future__ import annotations

import argparse
import math
from collections import Counter

import numpy as np

from ppt.errors import ConfigError
from ppt.mpi.surface.environment import balanced_factors
from ppt.oprecord import COMM_WORLD, OP_DTYPE, Op
from ppt.traces.opstream import CHUNK_OPS, OpChunk, OpTrace, save

#: The call table of every stream, in the order the ops' ``call`` field indexes it.
CALLS = ("MPI_Init", "MPI_Irecv", "MPI_Isend", "MPI_Waitall", "MPI_Allreduce", "MPI_Finalize")
INIT, IRECV, ISEND, WAITALL, ALLREDUCE, FINALIZE = range(len(CALLS))
#: DUMPI's number of MPI_SUM (the op-stream's predefined ops are DUMPI's).
SUM = 3


def recursive_doubling_messages(ranks: int) -> int:
    """Messages of one allreduce by recursive doubling: P*log2(P) for a power of two P; else the
    2(P - 2^k) ranks beyond the largest power of two 2^k fold in and get the result back."""
    power = 2 ** int(math.log2(ranks))
    return power * int(math.log2(power)) + 2 * (ranks - power)


class SyntheticTrace(OpTrace):
    """The halo-and-allreduce trace of the module docstring, on ``ranks`` ranks for ``iterations``.

    ``messages``: the point-to-point messages its replay sends with the default collective
    algorithms (the allreduce by recursive doubling, as up to 2 KiB per rank it is).
    """

    def __init__(self, ranks: int = 1024, iterations: int = 10, dims: int = 3, nbytes: int = 1024,
                 allreduce_B: int = 8, compute_s: float = 1e-6, imbalance: float = 0.1, seed: int = 0,
                 chunk_ops: int = CHUNK_OPS):
        if ranks < 1 or iterations < 1 or dims < 1:
            raise ConfigError(f"a synthetic trace needs at least 1 rank, iteration and dimension, not "
                              f"{ranks}, {iterations} and {dims}")
        if not 0.0 <= imbalance < 1.0 or compute_s < 0.0:
            raise ConfigError(f"compute {compute_s} s +- {imbalance} must be >= 0 s, +- less than 1")
        self.num_ranks, self.iterations = ranks, iterations
        self.shape = balanced_factors(ranks, dims)
        self.nbytes, self.allreduce_B = nbytes, allreduce_B
        self.compute_s, self.imbalance, self.seed = compute_s, imbalance, seed
        self.meta_path = f"synthetic-halo{dims}d-{ranks}r-{iterations}i"
        #: Ops of one iteration: an irecv and an isend per neighbour, the waitall, the allreduce.
        self.per_iteration = 4 * dims + 2
        self.chunk_iterations = max(1, (chunk_ops - 2) // self.per_iteration)

    @classmethod
    def of_messages(cls, ranks: int, messages: int, **options) -> "SyntheticTrace":
        """The trace with as many iterations as come closest to ``messages`` messages (at least one)."""
        one = cls(ranks, 1, **options).messages
        return cls(ranks, max(1, round(messages / one)), **options)

    @property
    def name(self) -> str:
        return self.meta_path

    @property
    def neighbours(self) -> int:
        return 2 * len(self.shape)

    @property
    def messages(self) -> int:
        return self.iterations * self.num_ranks * self.neighbours + \
            self.iterations * recursive_doubling_messages(self.num_ranks)

    # -- the grid and the gaps ---------------------------------------------------------
    def peers(self, rank: int) -> tuple[list[int], list[int]]:
        """(ranks one step up, ranks one step down) of ``rank``, one per dimension (row-major grid)."""
        coords = np.unravel_index(rank, self.shape)
        up, down = [], []
        for d, size in enumerate(self.shape):
            for step, out in ((1, up), (-1, down)):
                moved = list(coords)
                moved[d] = (moved[d] + step) % size
                out.append(int(np.ravel_multi_index(moved, self.shape)))
        return up, down

    def gaps(self, rank: int) -> np.ndarray:
        """Rank ``rank``'s compute before each iteration, s."""
        rng = np.random.default_rng((self.seed, rank))
        return self.compute_s * rng.uniform(1.0 - self.imbalance, 1.0 + self.imbalance, self.iterations)

    # -- streams ------------------------------------------------------------------------
    def stream(self, rank):
        up, down = self.peers(rank)
        gaps = self.gaps(rank)
        starts = np.concatenate(([0.0], np.cumsum(gaps)))       # trace time each iteration starts, s
        for first in range(0, self.iterations, self.chunk_iterations):
            count = min(self.chunk_iterations, self.iterations - first)
            yield self._chunk(first, count, up, down, gaps, starts)

    def _chunk(self, first: int, count: int, up, down, gaps, starts) -> OpChunk:
        """Iterations ``first`` to ``first + count - 1`` (with MPI_Init before the first, MPI_Finalize
        after the last)."""
        n, per = self.neighbours, self.per_iteration
        head, tail = first == 0, first + count == self.iterations
        ops = np.zeros(head + count * per + tail, OP_DTYPE)
        ops["comm"] = COMM_WORLD
        if head:
            ops["kind"][0], ops["call"][0] = Op.INIT, INIT
        if tail:
            ops["kind"][-1], ops["call"][-1], ops["start_s"][-1] = Op.LOCAL, FINALIZE, starts[-1]
        body = ops[head:head + count * per].reshape(count, per)
        for columns, kind, call, peers, tags in (
                (slice(0, n), Op.IRECV, IRECV, down + up, _tags(len(up), True) + _tags(len(up), False)),
                (slice(n, 2 * n), Op.ISEND, ISEND, up + down, _tags(len(up), True) + _tags(len(up), False))):
            part = body[:, columns]
            part["kind"], part["call"], part["peer"], part["tag"], part["nbytes"] = kind, call, peers, tags, self.nbytes
        requests = np.arange(first * 2 * n, (first + count) * 2 * n, dtype=np.int64)
        body[:, :2 * n]["request"] = requests.reshape(count, 2 * n)
        waitall = body[:, 2 * n]
        waitall["kind"], waitall["call"], waitall["aux_len"] = Op.WAITALL, WAITALL, 2 * n
        waitall["aux_start"] = np.arange(count) * 2 * n
        allreduce = body[:, 2 * n + 1]
        allreduce["kind"], allreduce["call"], allreduce["op"], allreduce["nbytes"] = \
            Op.ALLREDUCE, ALLREDUCE, SUM, self.allreduce_B
        body[:, 0]["gap_wall_s"] = body[:, 0]["gap_cpu_s"] = gaps[first:first + count]
        body["start_s"] = starts[first + 1:first + count + 1, None]     # calls take no recorded time
        return OpChunk(ops, requests, CALLS)

    # -- what the trace tells without reading the streams ---------------------------------
    def calls(self):
        ranks, it, n = self.num_ranks, self.iterations, self.neighbours
        return Counter({"MPI_Init": ranks, "MPI_Irecv": ranks * it * n, "MPI_Isend": ranks * it * n,
                        "MPI_Waitall": ranks * it, "MPI_Allreduce": ranks * it, "MPI_Finalize": ranks})

    def translates(self, call):
        return True

    def has_init(self, rank):
        return True

    def span(self):
        return (0.0, max(total for total, _ in self.compute_gaps()))

    def compute_gaps(self):
        return [(float(total), float(total)) for total in (self.gaps(r).sum() for r in range(self.num_ranks))]


def _tags(dims: int, up: bool) -> list[int]:
    """Tags of the messages travelling up (2d+1) or down (2d) each dimension d."""
    return [2 * d + up for d in range(dims)]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Write a synthetic halo-and-allreduce op-stream trace.")
    parser.add_argument("folder", help="a new folder for the trace")
    parser.add_argument("--ranks", type=int, default=1024)
    parser.add_argument("--messages", type=float, default=1e7, help="messages in total (default 1e7)")
    parser.add_argument("--dims", type=int, default=3, help="grid dimensions: 1 a ring, 3 a 3-D grid (default 3)")
    args = parser.parse_args(argv)
    trace = SyntheticTrace.of_messages(args.ranks, int(args.messages), dims=args.dims)
    save(trace, args.folder)
    print(f"{args.folder}: {trace.num_ranks} ranks, {trace.iterations} iterations, {trace.messages:,} messages")


if __name__ == "__main__":
    main()

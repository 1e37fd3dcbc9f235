"""HPL's work and messages per panel step, counted from its published algorithm.

Sources: the netlib HPL "Algorithm" page (https://www.netlib.org/benchmark/hpl/algorithm.html)
and J. Dongarra, P. Luszczek, A. Petitet, "The LINPACK Benchmark: past, present and future",
Concurrency and Computation 15(9), 2003.  HPL solves a dense N x N system by right-looking
LU with row partial pivoting on a P x Q process grid, the matrix dealt out in NB x NB blocks
cyclically in both dimensions: global block row i lives on process row i mod P, block column
j on process column j mod Q.  Panel step j (j = 0 .. ceil(N/NB) - 1) factors the jb = min(NB,
N - j NB) columns of block column j over rows j NB .. N - 1, and then updates the trailing
matrix (rows and columns (j+1) NB .. N - 1).

Counts are per rank and per step; sizes are those a rank holds of the global range
(:func:`owned`).  Floating-point work is counted as HPL's BLAS calls do it:

* the panel's column c (0-based): a pivot search over the column's local rows, the scaling
  of those rows and its share of the updates (``jb - c - 1`` columns to its right), with the
  memory traffic of HPL's recursive panel factorization (:func:`panel_column_tasklist`);
* U's triangular solve, ``jb^2 n / 2`` multiply-adds over the rank's ``n`` trailing columns
  (:func:`trsm_tasklist`);
* the trailing update C -= L U, a DGEMM of ``m x n x jb`` multiply-adds (:func:`dgemm_tasklist`).

Level-3 work (DGEMM, TRSM) is issued at the processor's measured DGEMM efficiency
(``NodeModel.dgemm_efficiency``): its multiply-adds are divided by it, which stands for what a
tuned DGEMM loses to packing, loop edges and the clock under load.  Its memory traffic is C read
and written once and the L and U panels read once (bytes, ``MEM_BYTES``).
"""
from __future__ import annotations

import math

from ppt.hardware.tasklist import MemAccess, Tasklist

WORD_B = 8
#: Elements per FMA tasklist entry (a machine-independent vector width; each processor splits it into
#: its own vector instructions).
FMA_WIDTH = 8


def panel_steps(n: int, nb: int) -> int:
    """Panel steps of an N x N factorization with NB-column blocks: ceil(N / NB)."""
    return math.ceil(n / nb)


def panel_width(n: int, nb: int, step: int) -> int:
    """Columns of panel ``step`` (NB, the last one what is left)."""
    return min(nb, n - step * nb)


def owned(n: int, nb: int, first_block: int, proc: int, nprocs: int) -> int:
    """Rows (or columns) of global indices ``first_block * nb .. n - 1`` that process ``proc`` of
    ``nprocs`` holds when block b lives on process ``b mod nprocs`` (the last block may be short)."""
    blocks = panel_steps(n, nb)
    start = first_block + (proc - first_block) % nprocs           # the first block it holds
    if start >= blocks:
        return 0
    count = (blocks - 1 - start) // nprocs + 1
    elements = count * nb
    last = blocks - 1
    if (last - start) % nprocs == 0:                               # it holds the short last block
        elements -= nb * blocks - n
    return elements


#: HPL's recursive panel factorization (RFACT): halves (NDIV = 2) down to NBMIN columns, HPL.dat's
#: sample values (NDIVs 2, NBMINs 4).
PANEL_NDIV = 2
PANEL_NBMIN = 4


def panel_levels(jb: int) -> int:
    """Recursion levels of a jb-column panel factored by halves down to :data:`PANEL_NBMIN` columns."""
    return max(0, math.ceil(math.log(jb / PANEL_NBMIN, PANEL_NDIV))) if jb > PANEL_NBMIN else 0


def panel_column_tasklist(rows: int, right: int, jb: int) -> Tasklist:
    """Column work of the panel factorization on ``rows`` local rows, ``right`` of the panel's jb
    columns to its right: the pivot search (a compare per row) and the scaling (a multiply per row)
    as one vector operation each over the column, and the column's share of the updates, ``rows x
    right`` multiply-adds (a right-looking update of the columns to its right, whatever order the
    recursion does it in).

    Memory, as HPL's recursive factorization touches it: within an NBMIN-column leaf the column
    and its leaf neighbours (reuse distance: the leaf, ``rows x NBMIN`` doubles); above the leaves,
    every recursion level reads and writes the panel once (reuse distance: the panel), shared out
    over its columns: ``2 x levels`` column loads per column."""
    if rows <= 0:
        return Tasklist()
    leaf_B = WORD_B * rows * PANEL_NBMIN
    panel_B = WORD_B * rows * jb
    accesses = [MemAccess(2 * min(right, PANEL_NBMIN - 1) + 2, WORD_B * rows, reuse_profile=((leaf_B, 1.0),))]
    levels = panel_levels(jb)
    if levels:
        accesses.append(MemAccess(2 * levels, WORD_B * rows, reuse_profile=((panel_B, 1.0),)))
    return Tasklist(vector_ops=((2, rows),), fma_ops=((right * rows / FMA_WIDTH, FMA_WIDTH),) if right else (),
                    accesses=tuple(accesses))


def dgemm_tasklist(m: int, n: int, k: int, efficiency: float = 1.0) -> Tasklist:
    """C (m x n) -= A (m x k) B (k x n): ``m n k`` multiply-adds at ``efficiency`` of the FMA peak,
    C read and written and A, B read from memory once."""
    if m <= 0 or n <= 0 or k <= 0:
        return Tasklist()
    return Tasklist(fma_ops=((m * n * k / FMA_WIDTH / efficiency, FMA_WIDTH),),
                    stream_bytes=WORD_B * (2 * m * n + m * k + k * n))


def trsm_tasklist(k: int, n: int, efficiency: float = 1.0) -> Tasklist:
    """U (k x n) = L11^-1 U with L11 unit lower triangular (k x k): ``k^2 n / 2`` multiply-adds, U
    read and written once."""
    if k <= 0 or n <= 0:
        return Tasklist()
    return Tasklist(fma_ops=((k * k * n / 2 / FMA_WIDTH / efficiency, FMA_WIDTH),),
                    stream_bytes=WORD_B * (2 * k * n + k * k))


def hpl_flops(n: int) -> float:
    """The flops HPL credits a run of order N with: 2/3 N^3 + 3/2 N^2 (its Gflop/s numerator)."""
    return 2.0 / 3.0 * n ** 3 + 1.5 * n ** 2


def near_square_grid(ranks: int) -> tuple[int, int]:
    """``(P, Q)`` with P x Q = ranks, P <= Q and P as large as that allows (HPL's advice: nearly square,
    P a little smaller)."""
    p = max(d for d in range(1, math.isqrt(ranks) + 1) if ranks % d == 0)
    return p, ranks // p

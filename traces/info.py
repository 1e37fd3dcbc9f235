"""Summary of a trace set from one streaming pass over its op streams (no simulation).

Byte rules (every op carries its bytes resolved by the reader, ``count * size(datatype)`` from the
rank's type table for DUMPI):

* point-to-point: every SEND and ISEND (Send/Bsend/Ssend/Rsend/Isend/Ibsend/Issend/Irsend) is one
  message of its bytes; a SENDRECV (Sendrecv, Sendrecv_replace) sends its bytes and posts the
  bytes it receives; posted receive bytes are those of RECV/IRECV.  Persistent requests (``*_init``
  + Start) are not counted.
* collectives, per call and rank (the data that rank contributes): the op's bytes for BCAST/REDUCE/
  ALLREDUCE/SCAN/EXSCAN/GATHER (Gather, Gatherv)/SCATTER/ALLGATHER/ALLGATHERV/ALLTOALL (a per-peer
  count for Scatter/Alltoall); the sum of its per-rank bytes for ALLTOALLV (Alltoallv, Alltoallw),
  SCATTERV (at its root) and REDUCE_SCATTER; a nonblocking collective's as its blocking kind's.
"""
from __future__ import annotations

from collections import Counter

from ppt.oprecord import AUX_LEN, AUX_START, CALL, KIND, NBYTES, NONBLOCKING, NONBLOCKING_COLLECTIVES, Op

_SENDS = frozenset((Op.SEND, Op.ISEND))
_RECVS = frozenset((Op.RECV, Op.IRECV))
#: Collectives whose bytes are the op's ``nbytes``, and those whose bytes are the sum of its aux values.
_NBYTES_COLLECTIVES = frozenset((Op.BCAST, Op.REDUCE, Op.ALLREDUCE, Op.SCAN, Op.EXSCAN, Op.GATHER, Op.SCATTER,
                                 Op.ALLGATHER, Op.ALLGATHERV, Op.ALLTOALL))
_SUMMED_COLLECTIVES = frozenset((Op.SCATTERV, Op.ALLTOALLV, Op.REDUCE_SCATTER))


def collective_bytes(op, aux) -> int | None:
    """The bytes one rank contributes to collective ``op`` (a row of an :class:`~ppt.traces.opstream.OpChunk`,
    ``aux`` its chunk's aux values), by the rules above; None for a barrier or a non-collective op."""
    kind = op[KIND]
    if kind in NONBLOCKING_COLLECTIVES:     # as its blocking kind
        kind -= NONBLOCKING
    if kind in _NBYTES_COLLECTIVES:
        return op[NBYTES]
    if kind in _SUMMED_COLLECTIVES:
        start = op[AUX_START]
        return sum(aux[start:start + op[AUX_LEN]])
    return None


def summarize(trace) -> dict:
    """Ranks, calls by name, point-to-point and collective bytes, span and compute gaps of op-stream ``trace``.

    Also cross-checks the calls read against the trace's own count (a DUMPI set's footers:
    ``footer_counts_match``).  ``compute_wall_s``/``compute_cpu_s``: the gaps between calls
    after MPI_Init, summed over ranks, by the wall clock and by the CPU clock, and
    ``cpu_wall_ratio`` their ratio (None without gaps or CPU times; well below 1 when ranks shared cores:
    :func:`ppt.traces.replay.choose_clock`).  Bytes in bytes, times in seconds.
    """
    calls, collective = Counter(), Counter()
    messages = sent = posted = 0
    for rank in range(trace.num_ranks):
        for chunk in trace.stream(rank):
            names, aux = chunk.calls, chunk.aux_list()
            for op in chunk.rows():
                name, kind = names[op[CALL]], op[KIND]
                calls[name] += 1
                if kind in _SENDS:
                    messages += 1
                    sent += op[NBYTES]
                elif kind in _RECVS:
                    posted += op[NBYTES]
                elif kind == Op.SENDRECV:
                    messages += 1
                    sent += op[NBYTES]
                    posted += aux[op[AUX_START] + 2]
                else:
                    nbytes = collective_bytes(op, aux)
                    if nbytes is not None:
                        collective[name] += nbytes
    start, stop = trace.span()
    gaps = trace.compute_gaps()
    wall = sum(w for w, _ in gaps)
    cpu = None if any(c is None for _, c in gaps) else sum(c for _, c in gaps)
    return {
        "trace": trace.meta_path,
        "ranks": trace.num_ranks,
        "records": sum(calls.values()),
        "calls": dict(calls.most_common()),
        "footer_counts_match": calls == trace.calls(),
        "p2p_messages": messages,
        "p2p_bytes": sent,
        "p2p_recv_posted_bytes": posted,
        "collective_bytes": dict(collective.most_common()),
        "span_s": stop - start,
        "compute_wall_s": wall,
        "compute_cpu_s": cpu,
        "cpu_wall_ratio": cpu / wall if cpu is not None and wall > 0.0 else None,
    }

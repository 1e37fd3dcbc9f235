"""Summary of a DUMPI trace set from one streaming pass over its records (no simulation).

Byte rules (sizes from each rank's own datatype table):

* point-to-point: every Send/Bsend/Ssend/Rsend/Isend/Ibsend/Issend/Irsend is one message
  of ``count * size(datatype)``; a Sendrecv sends ``sendcount * size(sendtype)`` and a
  Sendrecv_replace ``count * size(datatype)``; posted receive bytes are Recv/Irecv
  ``count * size(datatype)``.  Persistent requests (``*_init`` + Start) are not counted.
* collectives, per call and rank (the data that rank contributes): ``count * size(datatype)``
  for Bcast/Reduce/Allreduce/Scan/Exscan; ``sendcount * size(sendtype)`` for Gather/
  Gatherv/Scatter/Allgather/Allgatherv/Alltoall (a per-peer count for Scatter/Alltoall);
  ``sum(sendcounts) * size(sendtype)`` for Alltoallv and for Scatterv at its root;
  ``sum(recvcounts) * size(datatype)`` for Reduce_scatter; the per-peer sum for Alltoallw.
"""
from __future__ import annotations

from collections import Counter

from ppt.errors import TraceError

_SENDS = {"MPI_Send", "MPI_Bsend", "MPI_Ssend", "MPI_Rsend",
          "MPI_Isend", "MPI_Ibsend", "MPI_Issend", "MPI_Irsend"}
_RECVS = {"MPI_Recv", "MPI_Irecv"}


def _count_size(a, size):
    return a["count"] * size(a["datatype"])


def _send_size(a, size):
    return a["sendcount"] * size(a["sendtype"])


def _sum_sends(a, size):
    return sum(a["sendcounts"] or ()) * size(a["sendtype"])


_COLLECTIVE_BYTES = {
    "MPI_Bcast": _count_size, "MPI_Reduce": _count_size, "MPI_Allreduce": _count_size,
    "MPI_Scan": _count_size, "MPI_Exscan": _count_size,
    "MPI_Gather": _send_size, "MPI_Gatherv": _send_size, "MPI_Scatter": _send_size,
    "MPI_Allgather": _send_size, "MPI_Allgatherv": _send_size, "MPI_Alltoall": _send_size,
    "MPI_Alltoallv": _sum_sends, "MPI_Scatterv": _sum_sends,
    "MPI_Reduce_scatter": lambda a, size: sum(a["recvcounts"]) * size(a["datatype"]),
    "MPI_Alltoallw": lambda a, size: sum(n * size(t) for n, t in zip(a["sendcounts"],
                                                                      a["sendtypes"])),
}


def _sizer(trace_set, rank):
    table = trace_set.datatype_sizes(rank)

    def size(datatype):
        if 0 <= datatype < len(table):
            return table[datatype]
        raise TraceError(f"rank {rank} of {trace_set.meta_path} uses datatype {datatype}, which "
                         f"its type table ({len(table)} entries) lacks: the trace is damaged")
    return size


def summarize(trace_set) -> dict:
    """Ranks, calls by name, point-to-point and collective bytes, span and compute gaps of ``trace_set``.

    Also cross-checks the calls read against the library's footer counts
    (``footer_counts_match``).  ``compute_wall_s``/``compute_cpu_s``: the gaps between calls
    after MPI_Init, summed over ranks, by the wall clock and by the CPU clock, and
    ``cpu_wall_ratio`` their ratio (None without gaps or CPU times; well below 1 when ranks shared cores:
    :func:`ppt.traces.replay.choose_clock`).  Bytes in bytes, times in seconds.
    """
    calls, footer = Counter(), Counter()
    collective = Counter()
    messages = sent = posted = 0
    for rank in range(trace_set.ranks):
        size = _sizer(trace_set, rank)
        footer.update(trace_set.footer_counts(rank))
        for record in trace_set.records(rank):
            name, a = record.name, record.args
            calls[name] += 1
            if name in _SENDS:
                messages += 1
                sent += _count_size(a, size)
            elif name in _RECVS:
                posted += _count_size(a, size)
            elif name == "MPI_Sendrecv":
                messages += 1
                sent += _send_size(a, size)
                posted += a["recvcount"] * size(a["recvtype"])
            elif name == "MPI_Sendrecv_replace":
                messages += 1
                nbytes = _count_size(a, size)
                sent += nbytes
                posted += nbytes
            elif name in _COLLECTIVE_BYTES:
                collective[name] += _COLLECTIVE_BYTES[name](a, size)
    start, stop = trace_set.span()
    gaps = trace_set.compute_gaps()
    wall = sum(w for w, _ in gaps)
    cpu = None if any(c is None for _, c in gaps) else sum(c for _, c in gaps)
    return {
        "trace": trace_set.meta_path,
        "ranks": trace_set.ranks,
        "records": sum(calls.values()),
        "calls": dict(calls.most_common()),
        "footer_counts_match": calls == footer,
        "p2p_messages": messages,
        "p2p_bytes": sent,
        "p2p_recv_posted_bytes": posted,
        "collective_bytes": dict(collective.most_common()),
        "span_s": stop - start,
        "compute_wall_s": wall,
        "compute_cpu_s": cpu,
        "cpu_wall_ratio": cpu / wall if cpu is not None and wall > 0.0 else None,
    }

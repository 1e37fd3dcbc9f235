"""What mpi4py's object layer costs a program per call, from ``ppt calibrate``'s timings of call kinds.

The calibration job (:mod:`ppt.hardware.pingpong_worker`) times, on 2 ranks
of this host, uppercase buffer calls (``Send``/``Recv``, ``Allreduce``, ...)
of 8 bytes and their lowercase twins of a Python float, which pickle the
object on the way out and unpickle it on the way in.  The buffer calls'
cost, wire and mpi4py wrapper together, is what the ping-pong fit gives the
preset's MPI overheads; what a lowercase call costs beyond its twin is
mpi4py's object layer (pickling, the pickle buffer, argument handling):
:func:`with_object_costs` adds it to each lowercase kind as
``object_overhead_s`` (the difference of the minimum times, at least 0; per
one-way message for point-to-point kinds, per call otherwise).

:func:`object_overheads` turns these into the preset's
``mpi.object_overhead_s`` (:mod:`ppt.mpi.settings`), what the model charges
per top-level lowercase call: a one-way message's cost is split evenly
between its sending and its receiving call (``send`` and ``recv``, ``isend``
and ``irecv``), as the ping-pong's overheads are; a collective's cost is its
call's.  Only a Python float was timed, so the cost is per call, not per
pickled byte.
"""
from __future__ import annotations

#: Lowercase (pickling) call kind -> its buffer twin.
TWINS = {"send/recv": "Send/Recv", "isend/irecv+wait": "Isend/Irecv+Wait", "allreduce": "Allreduce",
         "bcast": "Bcast", "reduce": "Reduce", "gather": "Gather", "scatter": "Scatter", "allgather": "Allgather",
         "alltoall": "Alltoall"}
#: Lowercase kind timed -> the calls of ``mpi.object_overhead_s`` that share its cost evenly.
CHARGED = {"send/recv": ("send", "recv"), "isend/irecv+wait": ("isend", "irecv")}
#: Kinds timed per one-way message (half a round trip); the others per call.
ONE_WAY = ("Send/Recv", "send/recv", "Isend/Irecv+Wait", "isend/irecv+wait")


def with_object_costs(calls: list[dict]) -> list[dict]:
    """``calls`` (rows with ``kind`` and ``min_s``) with ``per`` and, on lowercase kinds whose twin was
    timed, ``object_overhead_s`` (s)."""
    best = {row["kind"]: row["min_s"] for row in calls}
    out = []
    for row in calls:
        row = dict(row, per="one-way message" if row["kind"] in ONE_WAY else "call")
        twin = TWINS.get(row["kind"])
        if twin in best:
            row["object_overhead_s"] = max(0.0, row["min_s"] - best[twin])
        out.append(row)
    return out


def object_overheads(calls: list[dict]) -> dict:
    """``mpi.object_overhead_s`` from rows of :func:`with_object_costs`: s per lowercase call, by call kind."""
    costs = {}
    for row in calls:
        if "object_overhead_s" in row:
            shares = CHARGED.get(row["kind"], (row["kind"],))
            costs.update((kind, row["object_overhead_s"] / len(shares)) for kind in shares)
    return costs

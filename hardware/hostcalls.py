"""What mpi4py's object layer and each call's entry cost a program, from ``ppt calibrate``'s timings of call kinds.

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

A buffer call costs more than the messages the model sends for it: mpi4py
turns its arguments into C arrays (an ``Alltoallv``'s counts and
displacements), and the MPI library enters the call and picks its
algorithm.  :func:`with_call_costs` sets each buffer kind of
:data:`CALL_OF_KIND` against what the fitted preset predicts for the same call
(:mod:`ppt.hardware.callmodel`); the remainder, at least 0, becomes
``mpi.call_overhead_s`` (:func:`call_overheads`).

:func:`object_overheads` turns these into the preset's
``mpi.object_overhead_s`` (:mod:`ppt.mpi.settings`), what the model charges
per top-level lowercase call: a one-way message's cost is split evenly
between its sending and its receiving call (``send`` and ``recv``, ``isend``
and ``irecv``), as the ping-pong's overheads are; a collective's cost is its
call's.  Only a Python float was timed, so the cost is per call, not per
pickled byte.
"""
from __future__ import annotations

from ppt.mpi.settings import HOST_CALLS

#: Lowercase (pickling) call kind -> its buffer twin.
TWINS = {"send/recv": "Send/Recv", "isend/irecv+wait": "Isend/Irecv+Wait", "allreduce": "Allreduce",
         "bcast": "Bcast", "reduce": "Reduce", "gather": "Gather", "scatter": "Scatter", "allgather": "Allgather",
         "alltoall": "Alltoall"}
#: Buffer call kind timed (the MPI name without ``MPI_``) -> its MPI call in ``mpi.call_overhead_s``.
CALL_OF_KIND = {name.removeprefix("MPI_"): name for name in HOST_CALLS}
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


def with_call_costs(calls: list[dict], modelled_s: dict) -> list[dict]:
    """``calls`` (rows of :func:`with_object_costs`) with, on the buffer kinds of :data:`CALL_OF_KIND` that
    ``modelled_s`` (s per call, by MPI call) has, ``model_s`` and ``call_overhead_s``: the minimum time less the
    model's, at least 0 (s)."""
    out = []
    for row in calls:
        name = CALL_OF_KIND.get(row["kind"])
        if name in modelled_s:
            row = dict(row, model_s=modelled_s[name], call_overhead_s=max(0.0, row["min_s"] - modelled_s[name]))
        out.append(row)
    return out


def call_overheads(calls: list[dict]) -> dict:
    """``mpi.call_overhead_s`` from rows of :func:`with_call_costs`: s per top-level call, by MPI call."""
    return {CALL_OF_KIND[row["kind"]]: row["call_overhead_s"] for row in calls if "call_overhead_s" in row}

"""The op kind of an MPI call by its name, for any reader or recorder that names calls as MPI does.

DUMPI's table of calls (:data:`ppt.traces.readers.dumpi_ops.OPS`) gives most kinds; :data:`NOT_IN_DUMPI`
adds the calls DUMPI does not trace.
"""
from __future__ import annotations

from ppt.oprecord import BLOCKING_COLLECTIVES, NONBLOCKING, Op
from ppt.traces.readers.dumpi_ops import OPS

#: Calls DUMPI does not trace: matched probes, which the C library records as the probe or receive each
#: stands for (the receive names the source and tag of the message its probe found), and the nonblocking
#: collectives (MPI-3), recorded as their blocking calls are with the request they start: each the
#: nonblocking kind of its blocking call's (MPI_Iallreduce IALLREDUCE, MPI_Ialltoallw IALLTOALLV, ...).
NOT_IN_DUMPI = {"MPI_Mprobe": Op.PROBE, "MPI_Improbe": Op.IPROBE, "MPI_Mrecv": Op.RECV, "MPI_Imrecv": Op.IRECV,
                **{"MPI_I" + name[4:].lower(): Op(kind + NONBLOCKING) for name, (kind, _) in OPS.items()
                   if kind in BLOCKING_COLLECTIVES}}


def kind_of(name: str) -> int:
    """The op kind of call ``name`` (OTHER for a call the op stream cannot express)."""
    entry = OPS.get(name)
    return int(entry[0]) if entry is not None else int(NOT_IN_DUMPI.get(name, Op.OTHER))

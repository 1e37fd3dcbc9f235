"""mpi4py's spellings beside the simulated MPI's own, so one script runs on mpi4py and on PPT.

The simulated MPI's names follow PEP 8 (``comm.split``, ``group.incl``,
``status.source``).  Scripts written for mpi4py say ``comm.Split``,
``group.Incl``, ``status.Get_source()``, ``comm.Allreduce(sendbuf, recvbuf)``;
the decorator :func:`mpi4py_names` gives each class those names from
:data:`MPI4PY_NAMES`, the one place they are listed:

* a string names the PEP 8 attribute it stands for: the same function object,
  so the call is counted and timed under the same MPI name;
* ``_get("attr")`` turns an attribute into mpi4py's ``Get_attr()`` method;
* the buffer calls (``Send``, ``Recv``, ``Bcast``, ``Allreduce``, ...) take
  mpi4py's buffer arguments -- an object, ``[buf, datatype]`` or
  ``[buf, count, datatype]`` -- and, where mpi4py fills a receive buffer,
  copy the received data into it (numpy arrays, bytearrays, lists).  A
  ``None`` buffer or payload (size-only simulation) copies nothing.

A script written for mpi4py then runs on both with no shim::

    def main(MPI):
        comm = MPI.COMM_WORLD
        ...
    if __name__ == "__main__":          # on mpi4py
        from mpi4py import MPI
        main(MPI)
    # on PPT: MPIJob(...).run(main)
"""
from __future__ import annotations

import inspect

import numpy as np

from ppt.mpi.constants import ANY_SOURCE, ANY_TAG
from ppt.mpi.ops import SUM


class Datatype:
    """An MPI datatype: only its name and size in bytes matter to the simulation."""

    __slots__ = ("name", "size")

    def __init__(self, name: str, size: int):
        self.name = name
        self.size = size

    def Get_size(self) -> int:
        return self.size

    def __repr__(self):
        return f"MPI.{self.name}"


#: mpi4py's predefined datatypes, by name.
DATATYPES = {name: Datatype(name, size) for name, size in [
    ("BYTE", 1), ("CHAR", 1), ("SIGNED_CHAR", 1), ("UNSIGNED_CHAR", 1), ("BOOL", 1), ("SHORT", 2),
    ("UNSIGNED_SHORT", 2), ("INT", 4), ("UNSIGNED", 4), ("INT32_T", 4), ("FLOAT", 4), ("LONG", 8),
    ("UNSIGNED_LONG", 8), ("LONG_LONG", 8), ("INT64_T", 8), ("DOUBLE", 8), ("COMPLEX", 16),
    ("DOUBLE_COMPLEX", 16), ("LONG_DOUBLE", 16)]}


class _InPlace:
    """``MPI.IN_PLACE``: the receive buffer holds this rank's contribution."""

    def __repr__(self):
        return "MPI.IN_PLACE"


IN_PLACE = _InPlace()


# -- buffers ------------------------------------------------------------------------
def message(buf):
    """``(data, nbytes)`` of an mpi4py buffer argument (``nbytes`` None: the data's own size)."""
    if isinstance(buf, (list, tuple)) and len(buf) in (2, 3) and isinstance(buf[-1], Datatype):
        if len(buf) == 3:
            return buf[0], int(buf[1]) * buf[-1].size
        return buf[0], None
    return buf, None


def outgoing(buf):
    """``(data, nbytes)`` to send from mpi4py buffer ``buf``: a snapshot, as MPI copies a send buffer.

    Simulated ranks share one address space, so without the copy a rank that
    reuses its buffer would change messages still in flight or held by peers.
    """
    data, nbytes = message(buf)
    if isinstance(data, np.ndarray):
        data = data.copy()
    elif isinstance(data, (bytearray, memoryview)):
        data = bytes(data)
    elif isinstance(data, list):
        data = list(data)
    return data, nbytes


def fill(rank, buf, value) -> None:
    """Copy received ``value`` into mpi4py receive buffer ``buf`` (``rank`` reports a buffer that cannot take it)."""
    target = message(buf)[0]
    if target is None or value is None or target is value:
        return
    if isinstance(target, np.ndarray):
        target[...] = np.asarray(value).reshape(target.shape)
    elif isinstance(target, (bytearray, list, memoryview)):
        target[:] = value
    else:
        raise rank.error(f"cannot receive into a {type(target).__name__}: give a numpy array, "
                         "bytearray or list as the receive buffer")


def _contribution(sendbuf, recvbuf):
    return outgoing(recvbuf if sendbuf is IN_PLACE else sendbuf)


# -- mpi4py's buffer calls of Comm --------------------------------------------------
def _Send(self, buf, dest, tag=0):
    data, nbytes = outgoing(buf)
    self.send(data, dest, tag, nbytes)


def _Isend(self, buf, dest, tag=0):
    data, nbytes = outgoing(buf)
    return self.isend(data, dest, tag, nbytes)


def _Recv(self, buf, source=ANY_SOURCE, tag=ANY_TAG, status=None):
    fill(self._rank, buf, self.recv(source, tag, status))


def _Irecv(self, buf, source=ANY_SOURCE, tag=ANY_TAG):
    req = self.irecv(source, tag)
    req.buffer = buf          # filled when a wait or test retires the request
    return req


def _Sendrecv(self, sendbuf, dest, sendtag=0, recvbuf=None, source=ANY_SOURCE, recvtag=ANY_TAG, status=None):
    data, nbytes = outgoing(sendbuf)
    fill(self._rank, recvbuf, self.sendrecv(data, dest, sendtag, source, recvtag, nbytes, status))


def _Bcast(self, buf, root=0):
    data, nbytes = outgoing(buf) if self.rank == root else message(buf)
    fill(self._rank, buf, self.bcast(data, root, nbytes))


def _Reduce(self, sendbuf, recvbuf, op=SUM, root=0):
    data, nbytes = _contribution(sendbuf, recvbuf)
    result = self.reduce(data, op, root, nbytes)
    if self.rank == root:
        fill(self._rank, recvbuf, result)


def _Allreduce(self, sendbuf, recvbuf, op=SUM):
    data, nbytes = _contribution(sendbuf, recvbuf)
    fill(self._rank, recvbuf, self.allreduce(data, op, nbytes))


# -- small adapters -------------------------------------------------------------------
def _get(attr: str):
    """mpi4py's ``Get_<attr>()`` for attribute or property ``attr``."""
    def get(self):
        return getattr(self, attr)
    get.__name__ = f"Get_{attr}"
    return get


def _Get_count(self, datatype=None) -> int:
    """Elements of ``datatype`` received (bytes if none is given, as mpi4py's default MPI.BYTE)."""
    return self.bytes if datatype is None else self.bytes // datatype.size


#: mpi4py name -> PEP 8 attribute name or function, by class name.  Subclasses inherit them.
MPI4PY_NAMES = {
    "Comm": {
        "Get_rank": _get("rank"), "Get_size": _get("size"), "Get_name": _get("name"),
        "Get_group": _get("group"), "Split": "split", "Dup": "dup", "Free": "free", "Create": "create",
        "Create_cart": "cart_create", "Barrier": "barrier", "Probe": "probe", "Iprobe": "iprobe",
        "Send": _Send, "Isend": _Isend, "Recv": _Recv, "Irecv": _Irecv, "Sendrecv": _Sendrecv,
        "Bcast": _Bcast, "Reduce": _Reduce, "Allreduce": _Allreduce,
    },
    "Cartcomm": {
        "Get_dim": _get("ndim"), "Get_coords": "cart_coords", "Get_cart_rank": "cart_rank", "Shift": "cart_shift",
    },
    "Group": {
        "Get_rank": _get("rank"), "Get_size": _get("size"), "Incl": "incl", "Excl": "excl",
        "Translate_ranks": "translate_ranks", "Free": "free",
    },
    "Status": {
        "Get_source": _get("source"), "Get_tag": _get("tag"), "Get_count": _Get_count, "Get_elements": _Get_count,
    },
    "Request": {
        "Wait": "wait", "Test": "test", "Waitall": "waitall", "Waitany": "waitany", "Waitsome": "waitsome",
        "Testall": "testall", "Testany": "testany", "Testsome": "testsome",
    },
    "MPI": {
        "Wtime": "wtime", "IN_PLACE": IN_PLACE, "Datatype": Datatype, **DATATYPES,
    },
}


def mpi4py_names(cls):
    """Class decorator: add mpi4py's names of ``cls`` (listed in :data:`MPI4PY_NAMES`)."""
    for name, target in MPI4PY_NAMES[cls.__name__].items():
        if isinstance(target, str):
            target = inspect.getattr_static(cls, target)   # keeps staticmethods static
        setattr(cls, name, target)
    return cls

"""mpi4py's uppercase point-to-point calls, requests, statuses and matched messages.

The buffer calls (``Send``, ``Recv``, ``Sendrecv_replace`` ...) copy data
out of and into mpi4py buffer arguments (:mod:`ppt.mpi.surface.buffers.arguments`) around
the simulated MPI's own calls, under the same MPI names.  Request and
status methods return what mpi4py returns: ``Wait`` True, ``Test`` a flag,
``Waitany`` an index, ``Waitsome``/``Testsome`` a list of indices (None if
no request is active).
"""
from __future__ import annotations

from ppt.mpi.surface.core import fast
from ppt.mpi.surface.core.calls import mpi_call
from ppt.mpi.constants import ANY_SOURCE, ANY_TAG, UNDEFINED
from ppt.mpi.surface.buffers.datatypes import DATATYPES

#: The receive buffer a message stands for (None: the data is dropped).
_receiving = fast.receiving
#: ``(payload, nbytes)`` of a send buffer, large data lent to the message (``fast.Lent``).
_outgoing = fast.outgoing_data
#: Copy received data into a receive buffer (None: dropped).
_put = fast.fill_buffer


# -- sends -------------------------------------------------------------------------------
def _blocking_send(name: str, method: str):
    @mpi_call(name)
    def send(self, buf, dest, tag=0):
        data, nbytes = _outgoing(self._rank, buf)
        getattr(self, method)(data, dest, tag, nbytes)
    send.__name__ = method.capitalize()
    return send


def _nonblocking_send(name: str, method: str):
    @mpi_call(name)
    def isend(self, buf, dest, tag=0):
        data, nbytes = _outgoing(self._rank, buf)
        return getattr(self, method)(data, dest, tag, nbytes)
    isend.__name__ = method.capitalize()
    return isend


# -- receives ----------------------------------------------------------------------------
@mpi_call("MPI_Sendrecv")
def Sendrecv(self, sendbuf, dest, sendtag=0, recvbuf=None, source=ANY_SOURCE, recvtag=ANY_TAG, status=None):
    data, nbytes = _outgoing(self._rank, sendbuf)
    target = _receiving(self._rank, recvbuf)
    _put(self._rank, target, self.sendrecv(data, dest, sendtag, source, recvtag, nbytes, status))


@mpi_call("MPI_Sendrecv_replace")
def Sendrecv_replace(self, buf, dest, sendtag=0, source=ANY_SOURCE, recvtag=ANY_TAG, status=None):
    data, nbytes = _outgoing(self._rank, buf)
    _put(self._rank, _receiving(self._rank, buf), self.sendrecv(data, dest, sendtag, source, recvtag, nbytes, status))


@mpi_call("MPI_Isendrecv")
def Isendrecv(self, sendbuf, dest, sendtag=0, recvbuf=None, source=ANY_SOURCE, recvtag=ANY_TAG):
    """Runs as Sendrecv at the call and returns a completed request (no overlap with later work)."""
    Sendrecv(self, sendbuf, dest, sendtag, recvbuf, source, recvtag)
    return self._done()


@mpi_call("MPI_Isendrecv_replace")
def Isendrecv_replace(self, buf, dest, sendtag=0, source=ANY_SOURCE, recvtag=ANY_TAG):
    """As Isendrecv, in one buffer."""
    Sendrecv_replace(self, buf, dest, sendtag, source, recvtag)
    return self._done()


@mpi_call("MPI_Probe")
def Probe(self, source=ANY_SOURCE, tag=ANY_TAG, status=None) -> bool:
    self.probe(source, tag, status)
    return True


@mpi_call("MPI_Iprobe")
def Iprobe(self, source=ANY_SOURCE, tag=ANY_TAG, status=None) -> bool:
    return self.iprobe(source, tag, status) is not None


#: Comm's uppercase point-to-point calls.
COMM = {
    "Send": fast.Send, "Ssend": _blocking_send("MPI_Ssend", "ssend"),
    "Bsend": _blocking_send("MPI_Bsend", "bsend"), "Rsend": _blocking_send("MPI_Rsend", "rsend"),
    "Isend": fast.Isend, "Issend": _nonblocking_send("MPI_Issend", "issend"),
    "Ibsend": _nonblocking_send("MPI_Ibsend", "ibsend"), "Irsend": _nonblocking_send("MPI_Irsend", "irsend"),
    "Recv": fast.Recv, "Irecv": fast.Irecv, "Sendrecv": Sendrecv, "Sendrecv_replace": Sendrecv_replace,
    "Isendrecv": Isendrecv, "Isendrecv_replace": Isendrecv_replace,
    "Probe": Probe, "Iprobe": Iprobe, "Mprobe": "mprobe", "Improbe": "improbe",
}


# -- matched messages ----------------------------------------------------------------------
@mpi_call("MPI_Mrecv")
def _Mrecv(self, buf=None, status=None):
    target = _receiving(self._rank, buf)
    _put(self._rank, target, self.recv(status))


@mpi_call("MPI_Imrecv")
def _Imrecv(self, buf=None):
    target = _receiving(self._rank, buf)
    req = self.irecv()
    req.buffer = target
    return req


MESSAGE = {"Recv": _Mrecv, "Irecv": _Imrecv}


# -- requests ------------------------------------------------------------------------------
def _Wait(self, status=None) -> bool:
    self.wait(status)
    return True


def _Test(self, status=None) -> bool:
    return self.test(status)[0]


def _Get_status(self, status=None) -> bool:
    """Whether the request is complete (filling ``status``), without retiring it."""
    return self._rank.api.request_status(self, status)


def _Free(self) -> None:
    """Drop the handle; the operation still completes (its data is not delivered to a buffer)."""
    self.active = False


def _Waitall(requests, statuses=None) -> bool:
    if requests:
        requests[0].waitall(requests, statuses)
    return True


def _Waitany(requests, status=None) -> int:
    return requests[0].waitany(requests, status)[0] if requests else UNDEFINED


def _Waitsome(requests, statuses=None):
    return requests[0].waitsome(requests, statuses)[0] if requests else None


def _Testall(requests, statuses=None) -> bool:
    return requests[0].testall(requests, statuses)[0] if requests else True


def _Testany(requests, status=None) -> tuple:
    if not requests:
        return UNDEFINED, True
    index, flag, _ = requests[0].testany(requests, status)
    return index, flag


def _Testsome(requests, statuses=None):
    return requests[0].testsome(requests, statuses)[0] if requests else None


REQUEST = {
    "Wait": _Wait, "Test": _Test, "Get_status": _Get_status, "get_status": _Get_status, "Free": _Free,
    "free": _Free, "Waitall": staticmethod(_Waitall), "Waitany": staticmethod(_Waitany),
    "Waitsome": staticmethod(_Waitsome), "Testall": staticmethod(_Testall), "Testany": staticmethod(_Testany),
    "Testsome": staticmethod(_Testsome),
}


# -- statuses ------------------------------------------------------------------------------
def _Get_count(self, datatype=DATATYPES["BYTE"]) -> int:
    """Items of ``datatype`` received (UNDEFINED if the bytes are not a whole number of items)."""
    items, rest = divmod(self.bytes, datatype.size)
    return UNDEFINED if rest else items


def _Get_elements(self, datatype=DATATYPES["BYTE"]) -> int:
    """Basic elements of ``datatype`` received."""
    items, rest = divmod(self.bytes, datatype.dtype.itemsize)
    return UNDEFINED if rest else items


def _setter(attr: str):
    def set_value(self, value):
        setattr(self, attr, value)
    return set_value


def _Set_elements(self, datatype, count: int) -> None:
    self.bytes = int(count) * datatype.dtype.itemsize


STATUS = {
    "Get_source": lambda self: self.source, "Get_tag": lambda self: self.tag, "Get_count": _Get_count,
    "Get_elements": _Get_elements, "Get_error": lambda self: 0, "Is_cancelled": lambda self: False,
    "Set_source": _setter("source"), "Set_tag": _setter("tag"), "Set_error": lambda self, error: None,
    "Set_elements": _Set_elements, "count": property(lambda self: self.bytes), "error": 0, "cancelled": False,
}

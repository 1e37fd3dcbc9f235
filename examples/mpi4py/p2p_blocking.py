"""Blocking point-to-point messages in both mpi4py styles, with the Status of each receive.

Rank 0 sends to every other rank:

* lowercase ``send``/``recv``: any picklable Python object (a dict here);
* uppercase ``Send``/``Recv`` with buffers: a numpy array (datatype
  inferred), ``[buf, MPI.DOUBLE]``, ``[buf, count, MPI.INT]`` (only the first
  ``count`` items) and a ``bytearray`` as ``[buf, MPI.BYTE]``.

Each receiver prints what it got and ``Status.Get_source()``, ``Get_tag()``,
``Get_count(datatype)`` and ``Get_elements``; then every rank replies to rank 0,
which receives the replies in rank order.

Run it::

    mpiexec -n 4 python examples/mpi4py/p2p_blocking.py
    ppt exec examples/mpi4py/p2p_blocking.py -n 4 --system edison
"""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

if rank == 0:
    for dest in range(1, size):
        comm.send({"to": dest, "items": list(range(dest))}, dest=dest, tag=1)
        comm.Send(np.arange(5, dtype="i") * dest, dest=dest, tag=2)
        comm.Send([np.full(3, 0.5 * dest), MPI.DOUBLE], dest=dest, tag=3)
        comm.Send([np.arange(10, dtype="i"), 4, MPI.INT], dest=dest, tag=4)
        comm.Send([bytearray(f"hello {dest}", "ascii"), MPI.BYTE], dest=dest, tag=5)
    for source in range(1, size):
        status = MPI.Status()
        reply = comm.recv(source=source, tag=9, status=status)
        print(f"reply from {status.Get_source()} tag {status.Get_tag()}: {reply}")
else:
    status = MPI.Status()
    obj = comm.recv(source=0, tag=1, status=status)
    print(f"object {obj} from {status.Get_source()} tag {status.Get_tag()}")

    ints = np.zeros(5, dtype="i")
    comm.Recv(ints, source=0, tag=2, status=status)
    print(f"int array {ints.tolist()} count {status.Get_count(MPI.INT)} bytes {status.Get_count()}")

    doubles = np.empty(3)
    comm.Recv([doubles, MPI.DOUBLE], source=0, tag=3, status=status)
    print(f"double array {doubles.tolist()} count {status.Get_count(MPI.DOUBLE)}")

    part = np.full(10, -1, dtype="i")
    comm.Recv([part, 10, MPI.INT], source=0, tag=4, status=status)
    print(f"first 4 of 10: {part.tolist()} count {status.Get_count(MPI.INT)}"
          f" elements {status.Get_elements(MPI.INT)}")

    text = bytearray(16)
    comm.Recv([text, MPI.BYTE], source=0, tag=5, status=status)
    n = status.Get_count(MPI.BYTE)
    print(f"bytes {text[:n].decode('ascii')!r} count {n} tag {status.Get_tag()}")

    comm.send(("ok", rank, int(ints.sum())), dest=0, tag=9)

"""Probe and Iprobe: receive messages whose size and sender are not known in advance.

Every rank except 0 sends rank 0 a message of ``rank + 1`` ints.  Rank 0

* ``Probe``\\ s with ``MPI.ANY_SOURCE``/``MPI.ANY_TAG``, reads the envelope
  from the ``Status`` (``Get_source``, ``Get_tag``, ``Get_count``), allocates
  a buffer of the right size and receives exactly that message;
* then polls with ``Iprobe`` for a second round of messages, which each
  rank sends after a barrier, and receives them with lowercase ``recv``;
* uses matched probes (``Mprobe`` with ``Message.Recv``, ``mprobe`` with
  ``Message.recv``), which dequeue the message they find.

Arrival order depends on timing, so rank 0 prints the envelopes sorted.

Run it::

    mpiexec -n 4 python examples/mpi4py/probe.py
    ppt exec examples/mpi4py/probe.py -n 4 --system edison
"""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

# Round 1: sizes unknown to the receiver, found with a blocking Probe.
if rank == 0:
    envelopes = []
    for _ in range(size - 1):
        status = MPI.Status()
        comm.Probe(source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG, status=status)
        source, tag, count = status.Get_source(), status.Get_tag(), status.Get_count(MPI.INT)
        data = np.empty(count, dtype="i")
        comm.Recv([data, MPI.INT], source=source, tag=tag)
        envelopes.append((source, tag, count, int(data.sum())))
    for source, tag, count, total in sorted(envelopes):
        print(f"Probe: source {source} tag {tag} count {count} sum {total}")
else:
    comm.Send(np.arange(rank + 1, dtype="i"), dest=0, tag=10 + rank)
    print(f"sent {rank + 1} ints with tag {10 + rank}")

comm.Barrier()

# Round 2: Python objects, found by polling Iprobe.
if rank == 0:
    got = []
    status = MPI.Status()
    while len(got) < size - 1:
        if comm.Iprobe(source=MPI.ANY_SOURCE, tag=20, status=status):
            source = status.Get_source()
            got.append((source, comm.recv(source=source, tag=20)))
    print(f"Iprobe: {sorted(got)}")
    # Iprobe on a quiet channel says no.
    print(f"Iprobe with nothing pending: {comm.Iprobe(source=MPI.ANY_SOURCE, tag=99)}")
else:
    comm.send({"rank": rank, "word": "x" * rank}, dest=0, tag=20)

# Round 3: matched probes, which take the message they found out of the queue
# so no other receive can match it first: Mprobe + Message.Recv, mprobe + Message.recv.
if rank != 0:
    comm.Send(np.full(rank, rank, dtype="d"), dest=0, tag=40)
    comm.send(f"object from {rank}", dest=0, tag=41)
else:
    found = []
    for _ in range(size - 1):
        status = MPI.Status()
        msg = comm.Mprobe(source=MPI.ANY_SOURCE, tag=40, status=status)
        data = np.empty(status.Get_count(MPI.DOUBLE))
        msg.Recv(data)
        found.append((status.Get_source(), data.tolist()))
    print(f"Mprobe/Recv: {sorted(found)}")
    texts = sorted(comm.mprobe(source=r, tag=41).recv() for r in range(1, size))
    print(f"mprobe/recv: {texts}")

# Round 4: a lowercase probe before a lowercase recv of a known sender.
if rank == size - 1:
    comm.send(list(range(size)), dest=0, tag=30)
if rank == 0:
    status = MPI.Status()
    comm.probe(source=size - 1, tag=30, status=status)
    print(f"probe: message from {status.Get_source()} tag {status.Get_tag()}:"
          f" {comm.recv(source=size - 1, tag=30)}")

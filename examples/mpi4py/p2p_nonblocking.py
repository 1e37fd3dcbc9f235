"""Nonblocking point-to-point messages and every way to complete them.

* lowercase ``isend``/``irecv`` of Python objects, completed by ``wait()``
  (which returns the received object), by the static ``Request.waitall``
  (which returns a list of them) and by polling ``test()``;
* uppercase ``Isend``/``Irecv`` of numpy buffers completed by
  ``Request.Wait(status)``, ``Request.Waitall``, ``Request.Waitany``,
  ``Request.Waitsome``, ``Request.Testall``, ``Request.Testany`` and
  ``Request.Testsome``;
* a polling loop, ``while not req.Test(): ...``, doing local work while a
  message is in flight.

Completion order under ``Waitany``/``Waitsome`` depends on timing, so those
results are printed sorted: the output is the same on every run.

Run it::

    mpiexec -n 4 python examples/mpi4py/p2p_nonblocking.py
    ppt exec examples/mpi4py/p2p_nonblocking.py -n 4 --system edison
"""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
right, left = (rank + 1) % size, (rank - 1) % size

# 1. Python objects around a ring: irecv first, isend, then wait for both.
rreq = comm.irecv(source=left, tag=1)
sreq = comm.isend({"from": rank, "squares": [rank * rank]}, dest=right, tag=1)
sreq.wait()
print(f"irecv/wait got {rreq.wait()}")

# 1b. Several objects at once: the static lowercase Request.waitall returns them in request order.
rreqs = [comm.irecv(source=left, tag=11), comm.irecv(source=right, tag=12)]
sreqs = [comm.isend(rank * 10, dest=right, tag=11), comm.isend(-rank, dest=left, tag=12)]
got = MPI.Request.waitall(rreqs)
MPI.Request.waitall(sreqs)
print(f"Request.waitall got {got}")

# 2. The same with test(): poll until the object is there.
rreq = comm.irecv(source=right, tag=2)
sreq = comm.isend(f"token-{rank}", dest=left, tag=2)
polls = 0
while True:
    done, msg = rreq.test()
    if done:
        break
    polls += 1
sreq.wait()
print(f"irecv/test got {msg!r}")

# 3. Buffers, one request waited with a Status.
buf = np.zeros(4, dtype="d")
req = comm.Irecv([buf, MPI.DOUBLE], source=left, tag=3)
comm.Isend([np.arange(4, dtype="d") + rank, MPI.DOUBLE], dest=right, tag=3).Wait()
status = MPI.Status()
req.Wait(status)
print(f"Irecv/Wait got {buf.tolist()} from {status.Get_source()} tag {status.Get_tag()}"
      f" count {status.Get_count(MPI.DOUBLE)}")

# 4. Waitall over both directions of the ring, with statuses.
from_left, from_right = np.zeros(2, dtype="i"), np.zeros(2, dtype="i")
reqs = [comm.Irecv(from_left, source=left, tag=4), comm.Irecv(from_right, source=right, tag=5),
        comm.Isend(np.array([rank, 10 * rank], dtype="i"), dest=right, tag=4),
        comm.Isend(np.array([rank, -rank], dtype="i"), dest=left, tag=5)]
statuses = [MPI.Status() for _ in reqs]
MPI.Request.Waitall(reqs, statuses)
print(f"Waitall got left {from_left.tolist()} right {from_right.tolist()}"
      f" sources {[s.Get_source() for s in statuses[:2]]}")

# 5. Waitany: one message from every other rank, retired in whatever order they come.
others = [r for r in range(size) if r != rank]
bufs = {r: np.zeros(1, dtype="i") for r in others}
recvs = [comm.Irecv(bufs[r], source=r, tag=6) for r in others]
sends = [comm.Isend(np.array([100 * rank + r], dtype="i"), dest=r, tag=6) for r in others]
seen = []
for _ in others:
    index = MPI.Request.Waitany(recvs)
    seen.append(others[index])
MPI.Request.Waitall(sends)
print(f"Waitany retired sources {sorted(seen)} values {[int(bufs[r][0]) for r in others]}")

# 6. Waitsome: retire requests in batches until none is left.
bufs = {r: np.zeros(1, dtype="i") for r in others}
recvs = [comm.Irecv(bufs[r], source=r, tag=7) for r in others]
sends = [comm.Isend(np.array([rank], dtype="i"), dest=r, tag=7) for r in others]
retired = []
while len(retired) < len(recvs):
    indices = MPI.Request.Waitsome(recvs)
    retired.extend(indices)
MPI.Request.Waitall(sends)
print(f"Waitsome retired {sorted(retired)} total {sum(int(b[0]) for b in bufs.values())}")

# 7. Testall: poll the whole set.
bufs = {r: np.zeros(1, dtype="i") for r in others}
reqs = [comm.Irecv(bufs[r], source=r, tag=8) for r in others]
reqs += [comm.Isend(np.array([rank + 1], dtype="i"), dest=r, tag=8) for r in others]
while not MPI.Request.Testall(reqs):
    pass
print(f"Testall done, received {sorted(int(b[0]) for b in bufs.values())}")

# 7b. Testany and Testsome: poll for any one, or all that are done so far.
bufs = {r: np.zeros(1, dtype="i") for r in others}
recvs = [comm.Irecv(bufs[r], source=r, tag=10) for r in others]
sends = [comm.Isend(np.array([rank * rank], dtype="i"), dest=r, tag=10) for r in others]
first = None
while first is None:
    index, flag = MPI.Request.Testany(recvs)
    if flag:
        first = others[index]
done = {first}
while len(done) < len(others):
    indices = MPI.Request.Testsome(recvs)
    done.update(others[i] for i in indices or [])
MPI.Request.Waitall(sends)
print(f"Testany/Testsome saw all of {sorted(done)}, sum {sum(int(b[0]) for b in bufs.values())}")

# 8. The classic polling loop: local work while a message is in flight.
got = np.zeros(3, dtype="i")
req = comm.Irecv(got, source=left, tag=9)
comm.Send(np.array([rank, rank, rank], dtype="i"), dest=right, tag=9)
work = 0
while not req.Test():
    work += 1          # local computation would go here
print(f"polling loop got {got.tolist()}")

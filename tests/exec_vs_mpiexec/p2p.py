"""Point-to-point: objects and buffers, blocking and nonblocking, a probe and a status."""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, peer = comm.rank, 1 - comm.rank
if rank == 0:
    comm.send({"step": 1, "data": [1.5, 2.5]}, dest=1, tag=7)
    comm.Send(np.arange(4, dtype="i"), dest=1, tag=8)
else:
    status = MPI.Status()
    comm.Probe(source=0, tag=7, status=status)
    print("probed", status.Get_source(), status.Get_tag())
    print("got", comm.recv(source=0, tag=7))
    buf = np.zeros(4, dtype="i")
    comm.Recv(buf, source=0, tag=8, status=status)
    print("buffer", buf.tolist(), status.Get_count(MPI.INT))
got = np.zeros(3)
comm.Sendrecv(np.full(3, rank + 0.5), dest=peer, sendtag=1, recvbuf=got, source=peer, recvtag=1)
reqs = [comm.isend(f"hello from {rank}", dest=peer, tag=2), comm.irecv(source=peer, tag=2)]
print(rank, "sendrecv", got.tolist(), "waitall", MPI.Request.waitall(reqs))

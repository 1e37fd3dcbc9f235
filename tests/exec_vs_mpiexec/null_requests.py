"""Null requests made with MPI.Request() and MPI.REQUEST_NULL, alone and among active ones."""
from mpi4py import MPI

comm = MPI.COMM_WORLD
peer = 1 - comm.rank
null = MPI.Request()
print(null == MPI.REQUEST_NULL, bool(null), null.Wait(), null.Test(),
      MPI.Request.Waitall([MPI.Request(), MPI.REQUEST_NULL]), MPI.Request.Waitany([MPI.Request()]),
      MPI.Request.Testany([null]), MPI.Request.Waitsome([null]), MPI.Request.Testall([null]))
print(MPI.Comm() == MPI.COMM_NULL, MPI.Group() == MPI.GROUP_NULL, MPI.Op() == MPI.OP_NULL,
      MPI.Datatype() == MPI.DATATYPE_NULL, bool(MPI.Comm()))
reqs = [MPI.Request(), comm.isend(comm.rank, dest=peer), MPI.REQUEST_NULL, comm.irecv(source=peer)]
print(MPI.Request.waitall(reqs), reqs[1] == MPI.REQUEST_NULL, bool(reqs[3]))

"""A deliberately deadlocked program: ranks 0 and 1 both receive first.

    ppt run examples/deadlock.py --system edison --ranks 2 --network analytic
stops with a report naming both ranks and their MPI_Recv calls (exit status 2).
"""


def main(mpi):
    comm = mpi.COMM_WORLD
    peer = 1 - comm.rank
    if comm.rank < 2:
        comm.recv(source=peer, tag=7)
        comm.send(None, dest=peer, tag=7, nbytes=8)

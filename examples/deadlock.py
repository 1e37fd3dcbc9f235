"""A deliberately deadlocked program: ranks 0 and 1 both receive first.

What it teaches: what PPT does when ranks wait for each other forever.  A
blocking ``recv`` waits until a matching message arrives; here both ranks
wait before either sends, so no simulated time can pass.  Instead of hanging,
the run stops with a report naming every blocked rank and the call it waits
in.  Run it::

    ppt run examples/deadlock.py --system edison --ranks 2 --network analytic

It stops with that report (exit status 2).  Swapping ``recv`` and ``send`` on
one of the two ranks fixes it.
"""


def main(mpi):
    comm = mpi.COMM_WORLD
    peer = 1 - comm.rank
    if comm.rank < 2:
        comm.recv(source=peer, tag=7)
        comm.send(None, dest=peer, tag=7, nbytes=8)

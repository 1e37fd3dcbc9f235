"""Smallest ``ppt run`` script: every rank computes, then all ranks sum their ranks.

What it teaches: the shape of every model.  A script defines ``main(mpi)``,
which each simulated rank runs with its own ``mpi`` object (shaped like
mpi4py's ``MPI``); ``mpi.compute`` advances the rank's clock by the time the
node model predicts for a tasklist; collectives carry real Python values
(here the sum of the ranks) and take simulated time on the network; what
``main`` returns is kept per rank.  Run it::

    ppt run examples/hello_allreduce.py --system edison --ranks 48 --network analytic
"""


def main(mpi):
    comm = mpi.COMM_WORLD
    mpi.compute([("fALU", 1_000_000), ("MEM_ACCESS", 100_000, 8, [0.95, 0.9])])
    total = comm.allreduce(comm.rank, op=mpi.SUM)
    assert total == comm.size * (comm.size - 1) // 2
    return total

"""Smallest ``ppt run`` script: every rank computes, then all ranks sum their ranks.

    ppt run examples/hello_allreduce.py --system edison --ranks 48 --network analytic
"""


def main(mpi):
    comm = mpi.COMM_WORLD
    mpi.compute([("fALU", 1_000_000), ("MEM_ACCESS", 100_000, 8, [0.95, 0.9])])
    total = comm.allreduce(comm.rank, op=mpi.SUM)
    assert total == comm.size * (comm.size - 1) // 2
    return total

"""A program of unit tests: unittest.main() runs them on every rank and exits with their status.

Its report goes to stdout, which Python buffers until the rank ends: on stderr, mpiexec would mix the
ranks' progress dots (written without newlines) in an order that changes from run to run.
"""
import sys
import unittest

from mpi4py import MPI


class Ranks(unittest.TestCase):
    def test_allreduce_counts_the_ranks(self):
        self.assertEqual(MPI.COMM_WORLD.allreduce(1), MPI.COMM_WORLD.size)

    def test_rank_0_is_not_rank_1(self):
        self.assertNotEqual(MPI.COMM_WORLD.rank, 1, "rank 1 fails this one")


if __name__ == "__main__":
    unittest.main(testRunner=unittest.TextTestRunner(stream=sys.stdout))

"""A program of unit tests: unittest.main() runs them on every rank and exits with their status.

Its report is written to stdout in one piece when the tests are over: unittest flushes its stream after
every progress dot (written without a newline), so written as it goes the two ranks' dots would mix, under
mpiexec, in an order that changes from run to run.
"""
import io
import sys
import unittest

from mpi4py import MPI


class Ranks(unittest.TestCase):
    def test_allreduce_counts_the_ranks(self):
        self.assertEqual(MPI.COMM_WORLD.allreduce(1), MPI.COMM_WORLD.size)

    def test_rank_0_is_not_rank_1(self):
        self.assertNotEqual(MPI.COMM_WORLD.rank, 1, "rank 1 fails this one")


if __name__ == "__main__":
    report = io.StringIO()
    outcome = unittest.main(testRunner=unittest.TextTestRunner(stream=report), exit=False)
    sys.stdout.write(report.getvalue())
    sys.exit(not outcome.result.wasSuccessful())

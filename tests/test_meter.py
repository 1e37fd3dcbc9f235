"""The CPU meter of ``ppt exec --compute measured``: a rank is charged its own code's CPU time, and not
PPT's own work around its MPI calls (the clock reads, the surface's way in and out of a call)."""
import textwrap

import pytest

from ppt.exec.meter import path_costs
from ppt.exec.runner import ExecOptions, exec_program
from ppt.interconnects.networks.analytic import AnalyticNetwork
from ppt.mpi.job import MPIJob
from ppt.mpi.surface.core.fast import CpuMeter, thread_cpu


def _busy(seconds: float) -> None:
    until = thread_cpu() + seconds
    while thread_cpu() < until:
        pass


def _charged(steps, meter: CpuMeter) -> float:
    """compute_s of a 1-rank job whose rank runs ``steps(meter, rank)`` under ``meter``."""
    out = []

    def main(mpi):
        rank = mpi._rank
        rank.meter = meter
        steps(meter, rank)
        rank.meter = None
        out.append(rank.stats.compute_s)
    MPIJob(AnalyticNetwork(1, 1e-6, 5e9), 1, comm=None).run(main)
    return out[0]


def test_busy_code_is_charged_in_full_at_the_target_speed():
    """20 ms of CPU between start and stop, on a target twice as slow and with no path to take off: 40 ms."""
    def steps(meter, rank):
        meter.start(rank)
        _busy(0.020)
        meter.stop(rank)
    assert 0.0399 <= _charged(steps, CpuMeter(2.0)) <= 0.044      # a coarse CPU clock may overshoot a tick


def test_the_path_is_taken_off_and_what_is_left_over_is_a_credit():
    """With 2 ms of clock reads per interval (on either clock), an empty interval leaves a 2 ms credit that
    the next, 20 ms long, uses up: 20 - 2 - 2 = 16 ms charged, never less than nothing."""
    def steps(meter, rank):
        meter.start(rank)
        meter.stop(rank)
        assert rank.stats.compute_s == 0.0 and rank.meter_credit_s < -0.0019
        meter.start(rank)
        _busy(0.020)
        meter.stop(rank)
    assert 0.0159 <= _charged(steps, CpuMeter(1.0, read_s=0.002, cpu_read_s=0.002)) <= 0.0175


def test_the_path_of_each_common_call_is_measured():
    costs = path_costs()
    assert 0.0 < costs["read_s"] < 1e-4 and 0.0 < costs["cpu_read_s"] < 1e-4
    for name in ("MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Waitall", "MPI_Wait", "MPI_Barrier",
                 "MPI_Allreduce", "MPI_Bcast", "MPI_Alltoall", "MPI_Sendrecv"):
        assert 0.0 <= costs["entry_s"][name] < 1e-4 and 0.0 <= costs["exit_s"][name] < 1e-4, name
    assert 0.0 < costs["default_s"] < 1e-4


LOOP_ONLY = textwrap.dedent("""
    import numpy as np
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    me = comm.Get_rank()
    buf = np.zeros(1)
    for _ in range(3000):
        if me == 0:
            comm.Send(buf, 1, 7)
            comm.Recv(buf, 1, 7)
        else:
            comm.Recv(buf, 0, 7)
            comm.Send(buf, 0, 7)
        requests = [comm.Irecv(buf, 1 - me, 8), comm.Isend(buf, 1 - me, 8)]
        MPI.Request.Waitall(requests)
        comm.Allreduce(MPI.IN_PLACE, buf, op=MPI.SUM)
""")


def _predicted(program, compute: str) -> float:
    job = MPIJob(AnalyticNetwork(2, 1e-6, 5e9), 2, comm=None)
    return exec_program(job, ExecOptions(str(program), compute=compute)).result.predicted_s


def test_a_program_that_only_calls_mpi_is_charged_little_beyond_compute_none(tmp_path):
    """Measured compute of a loop of MPI calls and nothing else: before PPT's own path was taken off, about
    2 us a call (2.4x ``--compute none`` here).  What is left varies with the host's state by a few tenths
    of a microsecond a call from run to run (the aim of 2 % of ``none`` is reached only by some runs: see
    docs/mpi4py-programs.md, "Compute time"), so each try measures the path afresh, the best of five
    counts, and it must be within 0.75 us a call."""
    program = tmp_path / "loop_only.py"
    program.write_text(LOOP_ONLY)
    job = MPIJob(AnalyticNetwork(2, 1e-6, 5e9), 2, comm=None)
    none = exec_program(job, ExecOptions(str(program), compute="none")).result
    calls_per_rank = sum(none.calls.values()) / none.ranks
    best_s = float("inf")
    for _ in range(5):
        path_costs.cache_clear()
        best_s = min(best_s, _predicted(program, "measured"))
        if best_s <= 1.02 * none.predicted_s:
            break
    assert none.predicted_s <= best_s <= none.predicted_s + 0.75e-6 * calls_per_rank


def test_compute_between_calls_is_still_charged(tmp_path):
    """A loop of Python between Barriers, 20 times: each rank is charged what the loop took, as the program
    itself times it on the thread's CPU clock (the host's speed moves by tens of % within seconds on a
    shared VM, so the reference is taken in the same run)."""
    program = tmp_path / "work.py"
    program.write_text(textwrap.dedent("""
        import sys
        from mpi4py import MPI
        from ppt.mpi.surface.core.fast import thread_cpu
        spent = 0.0
        for _ in range(20):
            start = thread_cpu()
            total = 0
            for i in range(100000):
                total += i
            spent += thread_cpu() - start
            MPI.COMM_WORLD.Barrier()
        with open(f"{sys.argv[1]}.{MPI.COMM_WORLD.Get_rank()}", "w") as out:
            out.write(repr(spent))
    """))
    job = MPIJob(AnalyticNetwork(2, 1e-6, 5e9), 2, comm=None)
    spent = tmp_path / "spent"
    result = exec_program(job, ExecOptions(str(program), (str(spent),), compute="measured")).result
    for rank, stats in enumerate(result.per_rank):
        timed_s = float((tmp_path / f"spent.{rank}").read_text())
        assert timed_s > 0.01 and 0.97 * timed_s <= stats["compute_s"] <= 1.1 * timed_s

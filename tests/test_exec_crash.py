"""A rank that ends the whole process under ppt exec (ppt.exec.crash): os._exit(status) and a fatal signal
each print one line naming the rank and the MPI call it was in or made last, keep the ranks' output printed
until then, and end with the status mpiexec (MPICH) gives: the rank's status, or the signal's number."""
import subprocess
import sys
from pathlib import Path

PROGRAMS = Path(__file__).resolve().parent / "exec_crash"


def ppt_exec(name: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ppt.cli.main", "exec", str(PROGRAMS / name), "-n", "2",
                           "--system", "edison", "--network", "analytic", "--compute", "none"],
                          capture_output=True, text=True, timeout=120)


def test_os_exit_in_a_rank_ends_the_run_with_its_status_and_names_it():
    done = ppt_exec("os_exit.py")
    assert done.returncode == 3
    assert sorted(done.stdout.splitlines()) == ["rank 0 after", "rank 0 before", "rank 1 before"]
    assert done.stderr.splitlines() == [
        "ppt exec: rank 1 ended the process with os._exit(3) in or after MPI_Barrier; "
        "the ranks' output so far is above"]


def test_a_segfault_in_a_rank_is_one_line_and_the_signal_number_as_status():
    done = ppt_exec("segfault.py")
    assert done.returncode == 11                # SIGSEGV's number, as mpiexec's status for it
    assert sorted(done.stdout.splitlines()) == ["rank 0 before", "rank 1 before"]
    assert done.stderr.splitlines() == [
        "ppt exec: rank 0 crashed (SIGSEGV) in or after MPI_Allreduce; the ranks' output so far is above"]

"""``ppt exec`` against the real ``mpiexec``, byte for byte: the project's own small mpi4py programs
(tests/exec_vs_mpiexec/) run under ``mpiexec -n 2`` of this environment (MPICH) and under
``ppt exec -n 2 --compute none --summary FILE`` (in this process, while mpiexec runs, to keep the test
quick), some at other sizes too (``SIZES``); stdout, stderr and the exit status must be the same.

Output of a program where only one rank prints is compared whole; where ranks interleave (in an order
real MPI leaves to the operating system), line by line after sorting.  The one line that carries a
host timing, unittest's ``Ran N tests in X.XXXs``, is compared with its time masked.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ppt.cli.main import main

PROGRAMS = Path(__file__).resolve().parent / "exec_vs_mpiexec"
MPIEXEC = Path(sys.executable).parent / "mpiexec"
DEADLINE_S = 60
RAN = re.compile(r"^(Ran \d+ tests? in )\d+\.\d+s$", re.M)

# program: (exit status, True if only one rank prints, so the order of its lines is the program's)
CASES = {
    "p2p.py": (0, False),
    "collectives.py": (0, True),
    "null_requests.py": (0, False),
    "unit_tests.py": (1, False),
    "streams.py": (0, False),
    "exits.py": (3, False),
    "rma.py": (0, True),
    "nonblocking_collectives.py": (0, True),
    "topologies.py": (0, True),
    "intercomm.py": (0, True),
    "module_writes.py": (0, False),
    "intercomm_collectives.py": (0, True),
    "neighbor_alltoallw.py": (0, True),
    "intercomm_create.py": (0, True),
    "persistent_collectives.py": (0, True),
    "comm_create.py": (0, True),
}
#: The job sizes a program runs at where not 2 alone.
SIZES = {"intercomm_collectives.py": (2, 5), "neighbor_alltoallw.py": (4,), "intercomm_create.py": (2, 3, 4, 5),
         "persistent_collectives.py": (2, 3, 4, 5), "comm_create.py": (2, 3, 5)}


def _env():
    env = dict(os.environ)
    env.pop("PYTHONUNBUFFERED", None)      # unbuffered, print() writes a line in pieces that mpiexec interleaves
    env["MPIR_CVAR_ENABLE_HEAVY_YIELD"] = "1"    # oversubscribed MPICH ranks spin; let them yield
    return env


def _masked(text):
    return RAN.sub(r"\1T", text)


def _comparable(text, whole):
    return text if whole else sorted(text.splitlines(keepends=True))


@pytest.mark.skipif(not MPIEXEC.exists(), reason="no mpiexec beside this Python (pip install mpich mpi4py)")
@pytest.mark.parametrize("name,ranks", [(name, n) for name in sorted(CASES) for n in SIZES.get(name, (2,))])
def test_ppt_exec_prints_and_exits_as_mpiexec_does(name, ranks, tmp_path, monkeypatch, capfd):
    status, whole = CASES[name]
    program = str(PROGRAMS / name)
    monkeypatch.chdir(tmp_path)
    real = subprocess.Popen([str(MPIEXEC), "-n", str(ranks), sys.executable, program], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=_env())
    capfd.readouterr()
    simulated = main(["exec", program, "-n", str(ranks), "--system", "edison", "--network", "analytic",
                      "--compute", "none", "--summary", "summary.txt"])      # in this process, while mpiexec runs
    out, err = capfd.readouterr()
    real_out, real_err = real.communicate(timeout=DEADLINE_S)
    assert real.returncode == status, f"mpiexec itself: {real.returncode}\n{real_err}"
    assert simulated == real.returncode, err
    assert _comparable(_masked(out), whole) == _comparable(_masked(real_out), whole)
    assert _comparable(_masked(err), False) == _comparable(_masked(real_err), False)
    assert (tmp_path / "summary.txt").read_text().count("predicted") == 1

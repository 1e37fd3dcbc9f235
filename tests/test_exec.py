"""``ppt exec``: unmodified mpi4py programs on simulated ranks.

Each rank has its own ``__main__`` and local modules, output is as mpiexec's
(unprefixed, or tagged by rank, or kept per rank in files), PPT's summary goes
to stderr or a file, exit statuses follow mpiexec, bad programs get one line
and exit status 2, and compute time is the rank's measured CPU time (or
annotations only).
"""
import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ppt.exec.program import ProgramExit
from ppt.exec.runner import ExecOptions, exec_program
from ppt.hardware.systems import load_system
from ppt.machine import Machine
from ppt.mpi import MPIJob
from ppt.provenance import comparable


def write(folder, name, source):
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source))
    return path


def exec_in_process(path, ranks=2, system="edison", network="analytic", per_node=1, **options):
    """ExecOutcome of ``path`` run in this process (its ranks' lines, prefixed ``[R] ``, go to the captured
    stdout and stderr)."""
    machine = Machine(load_system(system), network_kind=network)
    job = MPIJob.on_machine(machine, ranks, per_node)
    return exec_program(job, ExecOptions(str(path), **{"compute": "none", "prepend_rank": True, **options}))


def ppt_exec(*args, cwd=None, timeout=60):
    """``ppt exec ARGS`` in a fresh process: (exit status, stdout, stderr)."""
    done = subprocess.run([sys.executable, "-m", "ppt.cli.main", "exec", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, cwd=cwd)
    return done.returncode, done.stdout, done.stderr


def lines_of(text, rank):
    prefix = f"[{rank}] "
    return [line[len(prefix):] for line in text.splitlines() if line.startswith(prefix)]


# -- the program as every rank runs it ----------------------------------------------------
def test_each_rank_has_its_own_main_and_local_modules(tmp_path, capsys):
    write(tmp_path, "counter.py", "hits = []\n")
    write(tmp_path, "pkg/__init__.py", "from .inner import base\n")
    write(tmp_path, "pkg/inner.py", "base = [10]\n")
    program = write(tmp_path, "prog.py", """
        import counter
        from pkg import base
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        counter.hits.append(comm.rank)
        base.append(comm.rank)
        total = comm.allreduce(comm.rank)
        print(__name__, counter.hits, base, total)
    """)
    outcome = exec_in_process(program, ranks=3)
    out = capsys.readouterr().out
    for rank in range(3):
        assert lines_of(out, rank) == [f"__main__ [{rank}] [10, {rank}] 3"]
    assert outcome.result.calls == {"MPI_Allreduce": 3} and outcome.status == 0


def test_real_mpi4py_is_never_loaded(tmp_path):
    program = write(tmp_path, "prog.py", """
        import sys
        import mpi4py
        import mpi4py.MPI as MPI2
        from mpi4py import MPI
        from mpi4py.MPI import COMM_WORLD
        assert MPI is MPI2 and COMM_WORLD is MPI.COMM_WORLD
        print(mpi4py.__version__, "mpi4py" in sys.modules, "mpi4py.MPI" in sys.modules)
    """)
    status, out, err = ppt_exec(program, "-n", "2", "--system", "edison", "--network", "analytic")
    assert status == 0, err
    assert out == "4.0.0 False False\n" * 2


def test_classes_of_the_program_travel_in_pickled_messages(tmp_path, capsys):
    program = write(tmp_path, "prog.py", """
        from dataclasses import dataclass
        from mpi4py import MPI

        @dataclass
        class Task:
            ident: int
            payload: list

        comm = MPI.COMM_WORLD
        if comm.rank == 0:
            task = Task(7, [1, 2])
            comm.send(task, dest=1)
            task.payload.append(99)        # a sent message is a copy: the receiver never sees this
        else:
            got = comm.recv(source=0)
            print(type(got).__name__, got.ident, got.payload)
    """)
    exec_in_process(program)
    assert lines_of(capsys.readouterr().out, 1) == ["Task 7 [1, 2]"]


def test_program_arguments_and_options_after_them(tmp_path):
    program = write(tmp_path, "prog.py", """
        import sys
        from mpi4py import MPI
        if MPI.COMM_WORLD.rank == 0:
            print(sys.argv[1:])
    """)
    status, out, _ = ppt_exec(program, "--steps", "3", "-n", "2", "--system", "edison", "--network", "analytic",
                              "--", "-n", "5")
    assert status == 0
    assert out == "['--steps', '3', '-n', '5']\n"


PRINTS = """
    import sys
    from mpi4py import MPI
    rank = MPI.COMM_WORLD.rank
    print("a", end="")
    print("b")
    print("to stderr", rank, file=sys.stderr)
    sys.stdout.write("last line without newline")
"""


def test_output_is_the_programs_alone_and_the_summary_goes_to_stderr(tmp_path):
    program = write(tmp_path, "prog.py", PRINTS)
    status, out, err = ppt_exec(program, "-n", "2", "--system", "edison", "--network", "analytic")
    assert status == 0
    assert out == "ab\nlast line without newlineab\nlast line without newline"      # the bytes, as mpiexec relays
    assert err.startswith("to stderr 0\nto stderr 1\n2 ranks on 1 node (at most 24 per node)\nwarning: ")
    assert "edison (analytic network): 2 ranks on 1 node, predicted" in err


def test_prepend_rank_tags_lines_as_mpichs_option_does(tmp_path):
    program = write(tmp_path, "prog.py", PRINTS)
    status, out, err = ppt_exec(program, "-n", "2", "--system", "edison", "--network", "analytic",
                                "--prepend-rank")
    assert status == 0
    assert lines_of(out, 1) == ["ab", "last line without newline"]
    assert lines_of(err, 1) == ["to stderr 1"]


def test_json_stays_alone_on_stdout_unless_the_summary_goes_to_a_file(tmp_path):
    program = write(tmp_path, "prog.py", PRINTS)
    status, out, err = ppt_exec(program, "-n", "2", "--system", "edison", "--network", "analytic", "--json")
    assert status == 0
    assert json.loads(out)["ranks"] == 2 and json.loads(out)["exit_status"] == 0
    assert err.startswith("ab\nto stderr 0\nlast line without newlineab\nto stderr 1\n")
    summary = tmp_path / "summary.json"
    status, out, err = ppt_exec(program, "-n", "2", "--system", "edison", "--network", "analytic", "--json",
                                "--summary", summary)
    assert status == 0
    assert out == "ab\nlast line without newlineab\nlast line without newline"
    assert err == "to stderr 0\nto stderr 1\n"
    assert json.loads(summary.read_text())["calls"] == {}
    status, _, err = ppt_exec(program, "-n", "2", "--system", "edison", "--summary", tmp_path / "no" / "such")
    assert status == 2 and err.startswith("ppt: error: --summary ") and err.count("\n") == 1


def test_output_dir_keeps_each_ranks_streams(tmp_path):
    program = write(tmp_path, "prog.py", """
        import sys
        from mpi4py import MPI
        rank = MPI.COMM_WORLD.rank
        print("out of", rank)
        print("err of", rank, file=sys.stderr)
    """)
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "rank.5.out").write_text("stale")
    status, out, _ = ppt_exec(program, "-n", "2", "--system", "edison", "--network", "analytic",
                              "--output-dir", folder)
    assert status == 0 and "[0]" not in out
    assert sorted(p.name for p in folder.iterdir()) == ["rank.0.err", "rank.0.out", "rank.1.err", "rank.1.out"]
    assert (folder / "rank.1.out").read_text() == "out of 1\n"
    assert (folder / "rank.0.err").read_text() == "err of 0\n"


# -- failures as under mpiexec ---------------------------------------------------------------
def test_an_exception_ends_its_rank_with_pythons_traceback_and_status_1(tmp_path):
    program = write(tmp_path, "prog.py", """
        from mpi4py import MPI
        comm = MPI.COMM_WORLD

        def step(rank):
            return {}[rank]

        if comm.rank == 1:
            try:
                step(comm.rank)
            except KeyError as exc:
                raise ValueError("no step") from exc
        print("done", comm.rank)
    """)
    status, out, err = ppt_exec(program.name, "-n", "3", "--system", "edison", "--network", "analytic",
                                "--summary", "summary.txt", timeout=30, cwd=tmp_path)
    assert status == 1
    assert out == "done 0\ndone 2\n"
    fake = write(tmp_path, "fake/mpi4py/__init__.py", """
        class MPI:
            class COMM_WORLD:
                rank = 1
    """)
    python = subprocess.run([sys.executable, "prog.py"], capture_output=True, text=True, cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(fake.parents[1])})
    assert python.returncode == 1 and err == python.stderr        # Python's own traceback of rank 1
    assert "ValueError: no step" in err and "ppt" not in err


def test_a_rank_that_exits_ends_alone_and_the_statuses_combine_as_mpiexecs(tmp_path):
    program = write(tmp_path, "prog.py", """
        import sys
        from mpi4py import MPI
        rank = MPI.COMM_WORLD.rank
        print("rank", rank)
        sys.exit([0, 1, 2, 0][rank])
    """)
    status, out, err = ppt_exec(program, "-n", "4", "--system", "edison", "--network", "analytic", "--json")
    assert status == 3                                   # 1 | 2, as MPICH's hydra gives
    summary = json.loads(out)
    assert summary["exit_status"] == 3 and summary["rank_exit_statuses"] == {"1": 1, "2": 2}
    assert sorted(err.splitlines()) == ["rank 0", "rank 1", "rank 2", "rank 3"]
    write(tmp_path, "prog.py", "import sys\nfrom mpi4py import MPI\nsys.exit('bad input')\n")
    status, _, err = ppt_exec(program, "-n", "2", "--system", "edison", "--network", "analytic",
                              "--summary", tmp_path / "s")
    assert status == 1                                       # as Python exits on sys.exit(message)
    assert err == "bad input\nbad input\n"


def test_ranks_blocked_on_an_exited_rank_end_the_run_with_its_status(tmp_path):
    program = write(tmp_path, "prog.py", """
        import sys
        from mpi4py import MPI
        if MPI.COMM_WORLD.rank == 1:
            sys.exit(3)
        MPI.COMM_WORLD.Barrier()
    """)
    status, _, err = ppt_exec(program, "-n", "2", "--system", "edison", "--network", "analytic")
    assert status == 3
    assert err.startswith("ppt: error: rank 1 exited with status 3, then deadlock at t=") and err.count("\n") == 1
    assert "rank 0 in MPI_Barrier" in err and err.endswith("; mpiexec would wait for them forever\n")
    with pytest.raises(ProgramExit):
        exec_in_process(program)


def test_abort_ends_the_run_with_its_error_code_and_mpichs_line(tmp_path):
    program = write(tmp_path, "prog.py", """
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        if comm.rank == 1:
            comm.Abort(7)
        if comm.rank == 2:
            MPI.COMM_SELF.Abort(4)
        comm.recv(source=1)
    """)
    status, _, err = ppt_exec(program, "-n", "3", "--system", "edison", "--network", "analytic")
    assert status == 7
    assert err == ("Abort(7) on node 1 (rank 1 in comm 0): application called MPI_Abort(MPI_COMM_WORLD, 7) - "
                   "process 1\n")
    write(tmp_path, "prog.py", "from mpi4py import MPI\nif MPI.COMM_WORLD.rank == 1:\n    MPI.COMM_SELF.Abort(4)\n")
    status, _, err = ppt_exec(program, "-n", "3", "--system", "edison", "--network", "analytic")
    assert status == 4
    assert err == ("Abort(4) on node 1 (rank 0 in comm 16): application called MPI_Abort(MPI_COMM_SELF, 4) - "
                   "process 0\n")


def test_a_polling_loop_lets_simulated_time_pass(tmp_path, capsys):
    program = write(tmp_path, "prog.py", """
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        if comm.rank == 0:
            from ppt import hint
            hint.compute(1e-3)
            comm.send("late", dest=1)
        else:
            req = comm.irecv(source=0)
            polls = 0
            while True:
                done, value = req.test()
                if done:
                    break
                polls += 1
            print(value, polls > 100)
    """)
    result = exec_in_process(program, compute="none").result
    assert lines_of(capsys.readouterr().out, 1) == ["late True"]
    assert result.predicted_s >= 1e-3


def test_zero_exit_ends_only_that_rank(tmp_path, capsys):
    program = write(tmp_path, "prog.py", """
        import sys
        from mpi4py import MPI
        if MPI.COMM_WORLD.rank == 0:
            sys.exit(0)
        print("went on")
    """)
    exec_in_process(program)
    assert capsys.readouterr().out.splitlines() == ["[1] went on"]


@pytest.mark.parametrize("source, message", [
    ("from mpi4py import MPI\nx = (\n", "prog.py line 2: syntax error: '(' was never closed"),
    ("from mpi4py import MPI\nimport no_such_module_here\n",
     "prog.py line 2: no module named 'no_such_module_here': install it where PPT is installed"),
    ("import mpi4py.futures\n", "mpi4py.futures is not supported by PPT's simulated MPI"),
    ("from mpi4py import MPI\nMPI.Win.Allocate(8).Sync()\n", "MPI.Win.Sync is not supported by PPT's simulated MPI"),
    ("from mpi4py import MPI\nMPI.COMM_WORLD.Spawn('x')\n", "MPI.Comm.Spawn is not supported"),
    ("from mpi4py import MPI\nMPI.File.Open(MPI.COMM_WORLD, 'x')\n", "MPI.File.Open is not supported"),
    ("print('hello')\n", "prog.py never imports mpi4py, so no rank called MPI"),
    ("from mpi4py import MPI\nc = MPI.COMM_WORLD\nc.recv(source=(c.rank + 1) % c.size)\n",
     "s: 2 of 2 ranks blocked: rank 0 in MPI_Recv(source=1"),
])
def test_bad_programs_get_one_line_and_status_2(tmp_path, source, message):
    program = write(tmp_path, "prog.py", source)
    status, _, err = ppt_exec(program, "-n", "2", "--system", "edison", "--network", "analytic")
    assert status == 2
    last = err.splitlines()[-1]
    assert last.startswith("ppt: error: ") and message in last
    assert "Traceback" not in err


@pytest.mark.parametrize("args, message", [
    (["--compute-scale", "0"], "--compute-scale 0.0 must be a finite number above 0"),
    (["--compute-scale", "-1"], "--compute-scale -1.0 must be a finite number above 0"),
    (["--compute-scale", "inf"], "--compute-scale inf must be a finite number above 0"),
    (["--compute-scale", "nan"], "--compute-scale nan must be a finite number above 0"),
    (["-n", "1000"], "1000 ranks at 16 per node need 63 nodes, but the system has 16"),
])
def test_bad_options_get_one_line_and_status_2(tmp_path, args, message):
    program = write(tmp_path, "prog.py", "from mpi4py import MPI\n")
    status, out, err = ppt_exec(program, "-n", "2", "--system", "fattree-4-3", *args)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err


def test_binary_and_missing_programs(tmp_path):
    binary = tmp_path / "prog.py"
    binary.write_bytes(b"\x7fELF\x00\x01")
    status, _, err = ppt_exec(binary, "-n", "2", "--system", "edison")
    assert status == 2 and err.strip() == "ppt: error: prog.py is not a Python program; give the mpi4py program's .py file"
    status, _, err = ppt_exec(tmp_path / "absent.py", "-n", "2", "--system", "edison")
    assert status == 2 and "not found" in err


# -- compute time ------------------------------------------------------------------------------
BURN = """
    from mpi4py import MPI
    from ppt import hint
    comm = MPI.COMM_WORLD
    comm.Barrier()
    t0 = MPI.Wtime()
    if comm.rank == 0:
        total = 0
        for i in range(400_000):
            total += i * i
    hint.compute(0.25)
    t1 = MPI.Wtime()
    comm.Barrier()
    print(repr(t1 - t0))
"""


def test_annotations_alone_give_closed_form_times(tmp_path, capsys):
    program = write(tmp_path, "prog.py", BURN)
    result = exec_in_process(program, compute="none").result
    out = capsys.readouterr().out
    assert float(lines_of(out, 0)[0]) == pytest.approx(0.25, abs=1e-15)
    assert float(lines_of(out, 1)[0]) == pytest.approx(0.25, abs=1e-15)
    assert [entry["compute_s"] for entry in result.per_rank] == [0.25, 0.25]


def test_measured_cpu_time_is_compute_time_scaled(tmp_path, capsys):
    program = write(tmp_path, "prog.py", BURN)
    result = exec_in_process(program, compute="measured").result
    burn_s = float(lines_of(capsys.readouterr().out, 0)[0]) - 0.25
    rank0, rank1 = result.per_rank
    assert burn_s > 0.005                                   # the loop's CPU time reached rank 0's clock
    assert rank0["compute_s"] - rank1["compute_s"] > 0.8 * burn_s
    assert rank1["compute_s"] < 0.25 + 0.5 * burn_s         # rank 1 did not pay for rank 0's loop
    assert result.predicted_s >= 0.25 + burn_s
    scaled = exec_in_process(program, compute="measured", compute_scale=4.0).result
    capsys.readouterr()
    ratio = (scaled.per_rank[0]["compute_s"] - 0.25) / (rank0["compute_s"] - 0.25)
    assert 2.0 < ratio < 8.0                                 # CPU time itself varies from run to run


def test_hint_is_a_no_op_outside_ppt_exec():
    from ppt import hint
    assert hint.compute(1.0) == 0.0
    assert math.isclose(hint.compute(0), 0.0)


@pytest.mark.mpiexec
def test_parallel_simulation_gives_the_serial_json_and_every_ranks_lines(tmp_path):
    mpiexec = Path(sys.executable).with_name("mpiexec")
    if not mpiexec.exists():
        pytest.skip("no mpiexec next to the Python interpreter")
    program = write(tmp_path, "prog.py", """
        import numpy as np
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        got = np.zeros(3)
        comm.Sendrecv(np.full(3, comm.rank, dtype=float), (comm.rank + 1) % comm.size, 0,
                      got, (comm.rank - 1) % comm.size, 0)
        print(comm.rank, got.tolist(), comm.allreduce(comm.rank))
    """)
    command = [sys.executable, "-m", "ppt.cli.main", "exec", str(program), "-n", "8", "--system", "edison",
               "--ranks-per-node", "1", "--mapping", "random", "--compute", "none", "--json", "--prepend-rank"]
    serial = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    parallel = subprocess.run([str(mpiexec), "-n", "2", *command], capture_output=True, text=True, timeout=120,
                              check=True)
    nodes = {r["node"] for r in json.loads(serial.stdout)["per_rank"]}
    assert min(nodes) < 5576 // 2 <= max(nodes)          # ranks on both halves: traffic crosses ranks
    assert comparable(parallel.stdout) == comparable(serial.stdout)     # the same but for the wall time
    for rank in range(8):
        expected = [f"{rank} {[float((rank - 1) % 8)] * 3} 28"]
        assert lines_of(serial.stderr, rank) == lines_of(parallel.stderr, rank) == expected


PINGPONG = """
    import sys
    import numpy as np
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    loops = 20
    for size in map(int, sys.argv[1].split(",")):
        buf = np.zeros(size, dtype="B")
        comm.Barrier()
        start = MPI.Wtime()
        for _ in range(loops):
            if comm.rank == 0:
                comm.Send(buf, dest=1)
                comm.Recv(buf, source=1)
            else:
                comm.Recv(buf, source=0)
                comm.Send(buf, dest=0)
        if comm.rank == 0:
            print(size, repr((MPI.Wtime() - start) / (2 * loops)))
"""


def test_wtime_in_a_program_agrees_with_ppt_pingpong(tmp_path):
    """A program timing its own ping-pong with MPI.Wtime measures what ``ppt pingpong`` predicts."""
    program = write(tmp_path, "prog.py", PINGPONG)
    sizes = "8,8192,65536,1048576"
    status, out, err = ppt_exec(program, sizes, "-n", "2", "--system", "edison", "--ranks-per-node", "1",
                                "--compute", "none", "--prepend-rank")
    assert status == 0, err
    measured = {int(size): float(latency) for size, latency in (line.split() for line in lines_of(out, 0))}
    done = subprocess.run([sys.executable, "-m", "ppt.cli.main", "pingpong", "edison", "--sizes", sizes, "--json"],
                          capture_output=True, text=True, timeout=120, check=True)
    for entry in json.loads(done.stdout)["results"]:
        assert measured[entry["bytes"]] == pytest.approx(entry["latency_s"], rel=0.02)


# -- the program's __main__ module ------------------------------------------------------------
UNITTESTS = '''
    """A module docstring with a doctest.

    >>> 1 + 1
    2
    """
    import unittest
    from mpi4py import MPI


    def twice(x):
        """
        >>> twice(MPI.COMM_WORLD.size)
        6
        """
        return 2 * x


    class Collectives(unittest.TestCase):
        def test_allreduce(self):
            self.assertEqual(MPI.COMM_WORLD.allreduce(1), MPI.COMM_WORLD.size)

        def test_rank(self):
            self.assertNotEqual(MPI.COMM_WORLD.rank, FAILING_RANK)


    if __name__ == "__main__":
        import doctest, inspect, sys
        print(doctest.testmod(), "twice" in dir(), "Collectives" in vars(), inspect.getmodule(twice).__name__,
              sys.modules["__main__"].twice is twice, inspect.getsource(twice).splitlines()[0])
        unittest.main()
'''


@pytest.mark.parametrize("failing_rank, status", [(-1, 0), (2, 1)])
def test_each_rank_has_a_main_module_that_unittest_and_doctest_find(tmp_path, failing_rank, status):
    program = write(tmp_path, "prog.py", UNITTESTS.replace("FAILING_RANK", str(failing_rank)))
    got, out, err = ppt_exec(program, "-n", "3", "--system", "edison", "--network", "analytic", "--summary",
                             tmp_path / "summary")
    assert got == status
    assert out == "TestResults(failed=0, attempted=2) True True __main__ True def twice(x):\n" * 3
    assert err.count("Ran 2 tests in ") == 3
    assert err.count("\nOK\n") == 3 - status and err.count("FAILED (failures=1)") == status


# -- each rank as separate as a process ----------------------------------------------------------
def test_each_rank_has_its_own_working_directory(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    program = write(tmp_path, "prog.py", """
        import os, os.path
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        os.makedirs(f"rank{comm.rank}")
        os.chdir(f"rank{comm.rank}")
        with open("mine.txt", "w") as file:           # relative to the rank's own directory
            file.write(f"written by {comm.rank}")
        comm.Barrier()                                  # the other ranks ran, and moved, meanwhile
        print(os.path.basename(os.getcwd()), open("mine.txt").read())
    """)
    exec_in_process(program, ranks=3)
    assert sorted(capsys.readouterr().out.splitlines()) == [f"[{r}] rank{r} written by {r}" for r in range(3)]
    assert os.getcwd() == str(tmp_path)                 # PPT's own directory is back
    for rank in range(3):
        assert (tmp_path / f"rank{rank}" / "mine.txt").read_text() == f"written by {rank}"


def test_a_ranks_stdout_takes_bytes(tmp_path):
    program = write(tmp_path, "prog.py", """
        import sys
        from mpi4py import MPI
        rank = MPI.COMM_WORLD.rank
        sys.stdout.buffer.write(f"rank {rank} caf".encode() + "\\u00e9".encode()[:1])   # a character split
        sys.stdout.buffer.write("\\u00e9".encode()[1:] + b"\\n")
        sys.stderr.buffer.write(b"err\\n")
    """)
    status, out, err = ppt_exec(program, "-n", "2", "--system", "edison", "--network", "analytic",
                                "--prepend-rank", "--summary", tmp_path / "summary")
    assert status == 0 and out == "[0] rank 0 caf\u00e9\n[1] rank 1 caf\u00e9\n" and err == "[0] err\n[1] err\n"


def test_a_thread_calling_mpi_is_one_line_naming_the_rule(tmp_path):
    program = write(tmp_path, "prog.py", """
        import threading
        from mpi4py import MPI
        comm = MPI.COMM_WORLD

        def work():
            comm.send("from a thread", dest=1 - comm.rank)

        thread = threading.Thread(target=work, name="worker")
        thread.start()
        thread.join()
        print(comm.recv(source=1 - comm.rank))
    """)
    status, out, err = ppt_exec(program, "-n", "2", "--system", "edison", "--network", "analytic")
    assert status == 2 and out == ""
    assert err == ("ppt: error: rank 0 in MPI_Send: called from thread 'worker', not the rank's own; the simulated "
                   "MPI runs each rank on one thread (MPI_THREAD_FUNNELED): make MPI calls from the thread that "
                   "runs the rank\n")


def test_each_rank_has_its_own_argv_and_may_redirect_its_own_stdout(tmp_path):
    program = write(tmp_path, "prog.py", """
        import io
        import sys
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        sys.argv.append(f"extra{comm.rank}")
        if comm.rank == 0:
            captured = sys.stdout = io.StringIO()
        print("printed by", comm.rank, sys.argv[1:])
        comm.Barrier()                      # rank 1 printed meanwhile, to the real stdout
        if comm.rank == 0:
            sys.stdout = sys.modules["sys"].stdout
            print("captured:", captured.getvalue().strip())
    """)
    status, out, err = ppt_exec(program, "a", "-n", "2", "--system", "edison", "--network", "analytic",
                                "--summary", tmp_path / "summary")
    assert status == 0, err
    assert out == "printed by 1 ['a', 'extra1']\ncaptured: printed by 0 ['a', 'extra0']\n"

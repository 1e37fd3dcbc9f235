"""Real mpi4py programs (examples/mpi4py/) under MPICH's mpiexec and under ``ppt exec``: same lines per rank.

Each program runs twice, live: under the real ``mpiexec -prepend-rank -n N``
of this virtual environment (MPICH, oversubscribing this host's cores) and
under ``ppt exec PROGRAM ARGS -n N --system edison --prepend-rank``.  Both tag
every line a rank prints with ``[R] ``; the lines are grouped by rank and each
rank's sequence must match exactly, as must the exit status.  The programs print
only deterministic results (no timings, completion orders sorted), so any
difference is a difference between the simulated MPI and a real one.
pingpong_latency.py prints timings: only its message-size column is
compared (and its exit status on the wrong rank count).  Programs with a
difference PPT still has are strict xfails naming it (KNOWN).

Both runs have a deadline; on expiry the whole process group is killed, so a
hang fails the test instead of stalling the suite.
"""
import ast
import os
import re
import signal
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "mpi4py"
MPIEXEC = Path(sys.executable).parent / "mpiexec"
DEADLINE_S = 180
LINE = re.compile(r"^\[(\d+)\] ?(.*)$")


def _env():
    env = dict(os.environ)
    # Python block-buffers a pipe only without PYTHONUNBUFFERED: unbuffered, print()
    # writes a line in pieces, and mpiexec tags each piece it reads as a new line.
    env.pop("PYTHONUNBUFFERED", None)
    # Oversubscribed MPICH ranks spin; yielding lets the ranks sharing a core progress.
    env["MPIR_CVAR_ENABLE_HEAVY_YIELD"] = "1"
    return env


def run(command, cwd=ROOT):
    """(exit status, stdout, stderr) of ``command``; its whole process group is killed at the deadline."""
    proc = subprocess.Popen(command, cwd=cwd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=DEADLINE_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{' '.join(map(str, command))} did not finish within {DEADLINE_S} s\n"
                    f"stdout tail:\n{out[-2000:]}\nstderr tail:\n{err[-2000:]}")
    return proc.returncode, out, err


def by_rank(stdout, strict):
    """Each rank's lines of ``[R] text`` output; ``strict``: every line must carry a tag."""
    ranks = defaultdict(list)
    for line in stdout.splitlines():
        match = LINE.match(line)
        if match:
            ranks[int(match.group(1))].append(match.group(2))
        else:
            assert not strict, f"untagged line: {line!r}"
    return dict(ranks)


def real_mpiexec(program, ranks, args=()):
    return run([MPIEXEC, "-prepend-rank", "-n", str(ranks), sys.executable, program, *args])


def ppt_exec(program, ranks, args=(), *options):
    return run([sys.executable, "-m", "ppt.cli.main", "exec", program, *args, "-n", str(ranks),
                "--system", "edison", "--prepend-rank", *options])


def latency_sizes(line):
    """A line of pingpong_latency.py without its timing: headers whole, data rows only their size column."""
    return line if line.startswith("#") else line.split()[0]


def host_masked(line):
    """hello_world.py's line without the node's name, which differs between the host and the simulated node."""
    return re.sub(r" on .*\.$", " on HOST.", line)


# Differences from mpi4py that PPT's simulated MPI still has, by program; strict, so a fix shows.
KNOWN = {
}

# (program under examples/mpi4py, rank counts, arguments, line filter)
PROGRAMS = [
    ("env_basics.py", (3,), (), None),
    ("p2p_blocking.py", (4,), (), None),
    ("p2p_nonblocking.py", (2, 5), (), None),
    ("probe.py", (4,), (), None),
    ("ring.py", (8,), (), None),
    ("collectives_objects.py", (2, 7), (), None),
    ("collectives_buffers.py", (5,), (), None),
    ("collectives_v.py", (3, 8), (), None),
    ("in_place.py", (6,), (), None),
    ("nonblocking_collectives.py", (3,), (), None),
    ("user_op.py", (5,), (), None),
    ("communicators.py", (5, 8), (), None),
    ("handles.py", (3,), (), None),
    ("cartesian.py", (6,), (), None),
    ("graph_neighbors.py", (6,), (), None),
    ("intercomm.py", (5,), (), None),
    ("one_sided.py", (4,), (), None),
    ("datatypes.py", (2,), (), None),
    ("send_modes.py", (3,), (), None),
    ("buffered_send.py", (3,), (), None),
    ("compute_pi.py", (4,), ("200000",), None),
    ("halo_1d.py", (3,), (), None),
    ("halo_2d.py", (4,), (), None),
    ("jacobi.py", (3,), (), None),
    ("sample_sort.py", (5,), (), None),
    ("matvec.py", (7,), (), None),
    ("task_farm.py", (4,), (), None),
    ("prefix_sum.py", (6,), (), None),
    ("abort_on_error.py", (4,), ("12",), None),
    ("abort_on_error.py", (4,), ("10",), None),          # the error path: Abort(2)
    ("hello_world.py", (3,), (), host_masked),
    ("pingpong_latency.py", (2,), ("65536", "10"), latency_sizes),
    ("pingpong_latency.py", (3,), (), None),            # wrong rank count: SystemExit(message), status 1
]

CASES = [pytest.param(name, n, args, keep, id=f"{name}-n{n}" + (f"-{'-'.join(args)}" if args else ""),
                      marks=[pytest.mark.xfail(strict=True, reason=KNOWN[name])] if name in KNOWN else [])
         for name, counts, args, keep in PROGRAMS for n in counts]


def describe(expected, got):
    """First difference per rank, for the failure message."""
    notes = []
    for rank in sorted(set(expected) | set(got)):
        want, have = expected.get(rank, []), got.get(rank, [])
        if want == have:
            continue
        at = next((i for i, (a, b) in enumerate(zip(want, have)) if a != b), min(len(want), len(have)))
        notes.append(f"rank {rank}, line {at + 1}: mpiexec {want[at] if at < len(want) else '<end>'!r}"
                     f" vs ppt exec {have[at] if at < len(have) else '<end>'!r}"
                     f" ({len(want)} vs {len(have)} lines)")
    return "\n".join(notes)


@pytest.mark.parametrize("name", sorted(str(p.relative_to(EXAMPLES)) for p in EXAMPLES.rglob("*.py")))
def test_every_program_says_what_it_shows_and_how_to_run_it(name):
    doc = ast.get_docstring(ast.parse((EXAMPLES / name).read_text()))
    assert doc and len(doc.splitlines()) > 2
    assert f"python examples/mpi4py/{name}" in doc and f"ppt exec examples/mpi4py/{name}" in doc


def test_programs_are_all_listed():
    listed = {name for name, *_ in PROGRAMS}
    mine = {str(p.relative_to(EXAMPLES)) for p in EXAMPLES.glob("*.py")}
    assert mine <= listed, f"examples/mpi4py programs without a test: {sorted(mine - listed)}"


@pytest.mark.skipif(not MPIEXEC.exists(), reason="no mpiexec beside this Python (pip install mpich mpi4py)")
@pytest.mark.parametrize("name, ranks, args, keep", CASES)
def test_program_prints_the_same_lines_per_rank(name, ranks, args, keep):
    program = str(EXAMPLES / name)
    real_status, real_out, real_err = real_mpiexec(program, ranks, args)
    sim_status, sim_out, sim_err = ppt_exec(program, ranks, args)
    expected, got = by_rank(real_out, strict=True), by_rank(sim_out, strict=True)
    if keep is not None:
        expected = {r: [keep(line) for line in lines] for r, lines in expected.items()}
        got = {r: [keep(line) for line in lines] for r, lines in got.items()}
    context = f"\nmpiexec stderr tail:\n{real_err[-1500:]}\nppt exec stderr tail:\n{sim_err[-1500:]}"
    assert sim_status == real_status, f"exit status: mpiexec {real_status}, ppt exec {sim_status}{context}"
    if got != expected:
        pytest.fail(describe(expected, got) + context, pytrace=False)


@pytest.mark.skipif(not MPIEXEC.exists(), reason="no mpiexec beside this Python (pip install mpich mpi4py)")
def test_output_dir_matches_mpiexecs_per_rank_files(tmp_path):
    """``ppt exec --output-dir`` against mpiexec's ``-outfile-pattern``/``-errfile-pattern``: same files, same text."""
    program = str(EXAMPLES / "collectives_objects.py")
    real, sim = tmp_path / "mpiexec", tmp_path / "ppt"
    real.mkdir()
    status, _, err = run([MPIEXEC, "-n", "4", "-outfile-pattern", real / "rank.%r.out",
                          "-errfile-pattern", real / "rank.%r.err", sys.executable, program])
    assert status == 0, err
    status, _, err = ppt_exec(program, 4, (), "--output-dir", str(sim))
    assert status == 0, err
    names = sorted(p.name for p in real.iterdir())
    assert sorted(p.name for p in sim.iterdir() if p.stat().st_size or p.suffix == ".out") == names
    for name in names:
        assert (sim / name).read_text() == (real / name).read_text(), name

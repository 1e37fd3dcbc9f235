"""Hostile input: every bad input is one line on stderr, exit status 2, no traceback, no half-written file.

One test per class of defect; each case runs in seconds (tiny presets, refusals before any run).
"""
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ppt.cli.main import main

#: A traffic run of a few hundred microseconds of CPU on the 16-node fat-tree.
TINY_TRAFFIC = ["traffic", "fattree-4-3", "--load", "0.2", "--warmup", "1e-6", "--time", "4e-6"]


def ppt(*argv, timeout=120, cwd=None, env=None, stdout=subprocess.PIPE):
    """``ppt ARGV`` in its own process (a traceback or a hang shows as it would for a user)."""
    return subprocess.run([sys.executable, "-m", "ppt.cli.main", *map(str, argv)], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=timeout, cwd=cwd,
                          env={**os.environ, "PPT_QUIET": "1", **(env or {})})


def one_line_error(stderr: str, *words) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert "Traceback" not in stderr, stderr
    assert len(lines) == 1 and lines[0].startswith("ppt: error: "), stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def refused(*argv, words=(), timeout=120, cwd=None, env=None) -> str:
    job = ppt(*argv, timeout=timeout, cwd=cwd, env=env)
    assert job.returncode == 2, (job.returncode, job.stderr)
    return one_line_error(job.stderr, *words)


def in_process(capsys, *argv) -> str:
    """``ppt ARGV`` run here (so a test can simulate a full disk); its one error line."""
    assert main([str(a) for a in argv]) == 2
    return one_line_error(capsys.readouterr().err)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# 1 -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [
    ["pingpong", "fattree-4-3", "--sizes", "8,1000000G"],
    ["latency-survey", "fattree-4-3", "--bytes", str(10**15)],
    ["pingpong", "edison", "--sizes", "1000000G"],        # credit flow control: the 32-bit packet count
])
def test_message_sizes_beyond_memory_are_refused_with_the_estimate_before_the_run(argv):
    start = time.monotonic()
    line = refused(*argv, words=("packets",), timeout=60)
    assert re.search(r"GiB|at most [\d,]+ per message", line), line
    assert time.monotonic() - start < 30


# 2 -----------------------------------------------------------------------------------------
def test_absurd_plane_counts_are_refused_up_front(monkeypatch):
    start = time.monotonic()
    refused(*TINY_TRAFFIC, "--set", "network.planes=10000000", words=("network.planes", "at most 64"),
            timeout=60)
    refused(*TINY_TRAFFIC, "--windows", "1000000000", words=("--windows", "at most 10,000"), timeout=60)
    refused("bench", "engine", "--lps", "1000000000", words=("--lps", "GiB"), timeout=60)
    refused("bench", "engine", "--end", "1e-6", words=("too few to time",), timeout=60)
    assert time.monotonic() - start < 30
    # within the bound, the memory estimate (the topology guard's, per plane) still applies
    from ppt.errors import ConfigError
    from ppt.hardware.systems import load_system
    from ppt import hostmemory
    from ppt.interconnects.topologies.planes import check_planes
    from ppt.machine import Machine
    topology = Machine(load_system("fattree-4-3")).topology
    monkeypatch.setattr(hostmemory, "available_bytes", lambda: 20_000)   # 80 ports x 117 B a plane
    check_planes(topology, 1)
    with pytest.raises(ConfigError, match="planes of this fattree topology need about"):
        check_planes(topology, 8)


# 3 -----------------------------------------------------------------------------------------
def _full_disk_open(real_open=open):
    """``open`` whose files for writing are /dev/full: every write ends in ENOSPC, as on a full disk."""
    def fake(path, mode="r", *args, **kwargs):
        if any(flag in mode for flag in "wax"):
            return real_open("/dev/full", mode.replace("x", "w"), *args, **kwargs)
        return real_open(path, mode, *args, **kwargs)
    return fake


@pytest.mark.parametrize("case", ["sweep --out in /proc", "--samples a device", "plot --out in /proc",
                                  "sweep --out full disk", "--samples full disk", "plot --out full disk",
                                  "stdout full disk"])
def test_unwritable_or_full_destinations_are_one_line_and_leave_nothing(case, tmp_path, capsys, monkeypatch):
    folder = tmp_path / "out"
    folder.mkdir()
    monkeypatch.setenv("PPT_QUIET", "1")
    if case == "sweep --out in /proc":
        refused("sweep", *TINY_TRAFFIC, "--out", "/proc/ppt-audit/sweep", words=("--out", "cannot write there"))
        assert not Path("/proc/ppt-audit").exists()
    elif case == "stdout full disk":
        with open("/dev/full", "w") as full:
            job = ppt("topology", "fattree-4-3", "--json", stdout=full, timeout=60)
        assert job.returncode == 2
        one_line_error(job.stderr, "standard output", "No space left on device")
    elif case == "--samples a device":
        refused(*TINY_TRAFFIC, "--sample-every", "1e-6", "--samples", "/dev/full", words=("not a regular file",))
    elif case == "plot --out in /proc":
        samples = tmp_path / "s.npz"
        assert ppt(*TINY_TRAFFIC, "--sample-every", "1e-6", "--samples", samples).returncode == 0
        refused("plot", samples, "--out", "/proc/ppt-audit", words=("--out", "cannot write there"))
    elif case == "sweep --out full disk":
        from ppt import atomicfile
        monkeypatch.setattr(atomicfile, "open", _full_disk_open(), raising=False)
        line = in_process(capsys, "sweep", *TINY_TRAFFIC, "--out", folder / "sweep")
        assert "No space left on device" in line and "--out" in line
        assert leftovers(folder / "sweep") == []
    elif case == "--samples full disk":
        from ppt.drivers import sampling
        monkeypatch.setattr(sampling, "open", _full_disk_open(), raising=False)
        line = in_process(capsys, *TINY_TRAFFIC, "--sample-every", "1e-6", "--samples", folder / "s.npz")
        assert "--samples" in line and "No space left on device" in line
        assert leftovers(folder) == []
    else:
        samples = tmp_path / "s.npz"
        assert ppt(*TINY_TRAFFIC, "--sample-every", "1e-6", "--samples", samples).returncode == 0
        from ppt.drivers import sample_plots

        def fills_the_disk(meta, arrays, prefix, scales=None, dpi=200):
            Path(f"{prefix}-utilization.png").write_bytes(b"\x89PNG")   # one figure whole, the next fails
            with _full_disk_open()(f"{prefix}-occupancy.png", "wb") as out:
                out.write(b"\x89PNG" * 4096)
        monkeypatch.setattr(sample_plots, "draw_all", fills_the_disk)
        line = in_process(capsys, "plot", samples, "--out", folder / "fig")
        assert "No space left on device" in line
        assert leftovers(folder) == []


def test_convert_to_a_full_disk_or_a_device_is_one_line_and_replaces_nothing(tmp_path, capsys, monkeypatch):
    import stat
    from ppt.cli.traces import convert
    monkeypatch.setattr(convert, "open", _full_disk_open(), raising=False)
    line = in_process(capsys, "convert", "sample:halo3d_n8", tmp_path / "app.goal")
    assert "No space left on device" in line and leftovers(tmp_path) == []
    monkeypatch.undo()
    line = in_process(capsys, "convert", "sample:halo3d_n8", "/dev/full")     # written in place, never renamed over
    assert "/dev/full" in line and "No space left on device" in line
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


# 4 -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["script binary", "script png", "script folder", "system folder",
                                  "system binary", "system not utf-8", "user preset binary", "job list binary",
                                  "mapping binary"])
def test_unreadable_inputs_are_one_line(kind, tmp_path):
    png = tmp_path / "figure.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    binary_json = tmp_path / "preset.json"
    binary_json.write_bytes(png.read_bytes())
    latin = tmp_path / "latin.json"
    latin.write_bytes('{"name": "caf\xe9"}'.encode("latin-1"))
    folder = tmp_path / "folder.json"
    folder.mkdir()
    script = tmp_path / "ok.py"
    script.write_text("def main(mpi):\n    pass\n")
    run = ["run", script, "--system", "fattree-4-3", "--ranks", "2"]
    (tmp_path / "home" / "systems").mkdir(parents=True)
    shutil.copy(png, tmp_path / "home" / "systems" / "mine.json")      # a user preset, found by its name
    argv, words = {
        "script binary": (["run", shutil.which("ls") or sys.executable, "--system", "fattree-4-3", "--ranks", "2"],
                          ("binary file",)),
        "script png": (["run", png, "--system", "fattree-4-3", "--ranks", "2"], ("binary file",)),
        "script folder": (["run", tmp_path, "--system", "fattree-4-3", "--ranks", "2"], ("is a folder",)),
        "system folder": (["topology", folder], ("is a folder",)),
        "system binary": (["topology", binary_json], ("binary file",)),
        "system not utf-8": (["run", script, "--system", latin, "--ranks", "2"], ("not UTF-8",)),
        "user preset binary": (["topology", "mine"], ("mine.json", "binary file")),
        "job list binary": (["run", "--job-list", binary_json, "--system", "fattree-4-3"], ("--job-list", "binary")),
        "mapping binary": ([*run, "--mapping", png], ("--mapping", "binary")),
    }[kind]
    refused(*argv, words=words, timeout=60, env={"PPT_HOME": str(tmp_path / "home")})


# 5 -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, words", [
    ([*TINY_TRAFFIC, "--samples", "x.npz"], ("--samples without --sample-every",)),
    ([*TINY_TRAFFIC, "--sample-level", "router"], ("--sample-level without --sample-every",)),
    ([*TINY_TRAFFIC, "--windows", "1", "--converge", "0.02"], ("at least 2 sub-windows",)),
    ([*TINY_TRAFFIC, "--no-early-stop", "--converge", "0.02"], ("--no-early-stop",)),
    (["topology", "fattree-4-3", "--fail-seed", "3"], ("--fail-seed without --fail-links",)),
    (["run", "x.py", "--ranks", "2", "--system", "fattree-4-3", "--allocation", "random"], ("--job-list",)),
    (["sweep", "--x", "load", *TINY_TRAFFIC[:-6], "--loads", "0.1,0.2"], ("--x load", "--plot")),
    (["snap", "edison", "-n", "24", "--dpi", "300"], ("--dpi 300 without --plot",)),
])
def test_options_that_would_do_nothing_are_errors(argv, words, tmp_path):
    refused(*argv, words=words, cwd=tmp_path, timeout=60)
    assert leftovers(tmp_path) == []


# 6 -----------------------------------------------------------------------------------------
def test_plot_of_a_missing_file_says_it_does_not_exist(tmp_path):
    line = refused("plot", tmp_path / "none.npz", words=("no such file",), timeout=60)
    assert "not a PPT sample file" not in line


# 7 -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [["systems", "--json"], ["systems"], ["topology", "fattree-4-3", "--json"]])
def test_a_closed_stdout_ends_quietly(argv):
    read, write = os.pipe()
    os.close(read)                   # the reader is gone before the first byte, as after 'head -c 10'
    try:
        job = ppt(*argv, stdout=write, timeout=60)
    finally:
        os.close(write)
    assert job.stderr == ""
    assert job.returncode == 141


# 8, 9 ---------------------------------------------------------------------------------------
def _mpiexec():
    found = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")
    if not found:
        pytest.skip("mpiexec not installed")
    return found


@pytest.mark.mpiexec
def test_sweep_under_mpiexec_says_to_use_jobs(tmp_path):
    job = subprocess.run([_mpiexec(), "-n", "2", sys.executable, "-m", "ppt.cli.main", "sweep", *TINY_TRAFFIC,
                          "--out", tmp_path / "sweep"], stdin=subprocess.DEVNULL, capture_output=True,
                         text=True, timeout=60)
    assert job.returncode == 2, job.stderr
    one_line_error(job.stderr, "separate processes", "--jobs")
    assert not (tmp_path / "sweep").exists()


#: The README's engine example as it fails under mpiexec (an entity another rank owns is None here),
#: raising on rank 1 only: either before the simulation starts MPI or after.
RANK_ONE_RAISES = """
import os, sys
from ppt.engine import Entity, Simulation

class Node(Entity):
    def ping(self, hops):
        if hops:
            self.send((self.eid + 1) % 4, "ping", hops - 1, delay_s=1e-6)

if sys.argv[1] == "before" and os.environ.get("PMI_RANK") == "1":
    raise RuntimeError("rank 1 fails before MPI starts")
sim = Simulation(num_entities=4, lookahead_s=1e-6)
nodes = [sim.create(i, Node) for i in range(4)]
nodes[3].schedule(0.0, nodes[3].ping, 10)          # entity 3 lives on rank 1: None on rank 0
sim.run()
"""


@pytest.mark.mpiexec
@pytest.mark.parametrize("when", ["before", "after"])
def test_an_uncaught_exception_on_one_rank_ends_every_rank(when):
    start = time.monotonic()
    job = subprocess.run([_mpiexec(), "-n", "2", sys.executable, "-c", RANK_ONE_RAISES, when],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert job.returncode != 0
    assert ("RuntimeError" if when == "before" else "AttributeError") in job.stderr
    assert "aborting all ranks" in job.stderr
    assert time.monotonic() - start < 30


# 10 ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, says", [
    ([*TINY_TRAFFIC, "--time", "-1e-6"], ">= 0"),
    ([*TINY_TRAFFIC, "--warmup", "-1"], ">= 0"),
    ([*TINY_TRAFFIC, "--seed", "-1"], ">= 0"),
    ([*TINY_TRAFFIC, "--latency-factor", "-2"], "> 0"),
    ([*TINY_TRAFFIC, "--windows", "-3"], "at least 1"),
    ([*TINY_TRAFFIC, "--load", "-inf"], "> 0"),
    ([*TINY_TRAFFIC, "--fail-links", "-1%"], "share of links in [0, 100%)"),
    (["pingpong", "fattree-4-3", "--src", "-1"], ">= 0"),
    (["latency-survey", "fattree-4-3", "--bytes", "-8"], ">= 0"),
    (["bench", "engine", "--end", "-5"], ">= 0"),
    (["run", "x.py", "--system", "fattree-4-3", "--ranks", "-4"], "at least 1"),
    (["snap", "edison", "--cores", "24", "--iterations", "-1"], "at least 1"),
    (["snap", "edison", "--cores", "-24,48"], "must be positive"),
    (["sweep", "--jobs", "-2", *TINY_TRAFFIC], "at least 1"),
    (["sweep", *TINY_TRAFFIC[:2], "--loads", "-0.1,0.5"], "outside (0, 1]"),
])
def test_negative_numbers_are_values_refused_in_words(argv, says):
    line = refused(*argv, timeout=60)
    assert "expected one argument" not in line
    assert says in line


# 11 ----------------------------------------------------------------------------------------
def test_help_texts_promise_no_run_times():
    from ppt.cli.main import build_parser
    parser = build_parser()
    texts = []
    for action in parser._subparsers._group_actions:
        for name, sub in action.choices.items():
            texts += [f"{name}: {a.help}" for a in sub._actions if a.help]
    promises = [t for t in texts if re.search(r"about \d+(\.\d+)? ?(s|sec|seconds?|min|minutes?)\b|, seconds\)"
                                              r"|takes? (about |only )?\d", t)]
    assert promises == []


def test_a_trace_declaring_more_ranks_than_memory_holds_is_one_line_at_once(tmp_path, capsys, monkeypatch):
    from ppt import hostmemory
    monkeypatch.setattr(hostmemory, "available_bytes", lambda: 2**30)
    (tmp_path / "big.goal").write_text("num_ranks 1000000000\n")
    line = in_process(capsys, "trace-info", tmp_path / "big.goal")
    assert "a trace of 1,000,000,000 ranks needs about 953.7 GiB of memory, but only 1.0 GiB" in line


def test_bench_mpi_beyond_memory_is_one_line_before_building(capsys, monkeypatch):
    from ppt import hostmemory
    monkeypatch.setattr(hostmemory, "available_bytes", lambda: 2**30)
    line = in_process(capsys, "bench", "mpi", "--scale", "1e6")
    assert "simulated ranks needs about" in line and "simulate fewer ranks" in line


def test_an_op_stream_peer_beyond_the_ranks_is_the_replays_one_line(tmp_path, capsys):
    from ppt.oprecord import Op
    from ppt.traces.opstream import MemoryTrace, save
    trace = MemoryTrace("bad", 2, cpu_times=False)
    for rank in range(2):
        trace.builder(rank).add(Op.INIT, "MPI_Init")
        trace.builder(rank).add(Op.SEND, "MPI_Send", peer=5, nbytes=8)
    save(trace, tmp_path / "bad.opstream")
    assert main(["replay", str(tmp_path / "bad.opstream"), "--system", "edison"]) == 2   # auto: estimates first
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.splitlines()[-1] == ("ppt: error: rank 0 in MPI_Send: destination 5 is "
                                                               "out of range for WORLD of size 2")


def test_a_section_set_to_a_value_says_it_is_a_section(capsys):
    line = in_process(capsys, "traffic", "dragonfly-3k", "--load", "0.1", "--set", "topology=5")
    assert "topology is a section of this preset, not a value; set one of its fields, e.g. topology.a=" in line


@pytest.mark.parametrize("call, says", [
    (lambda api: api.machine("edison", set="x"), "set must be a dict of dotted key -> value"),
    (lambda api: api.machine("edison", seed="abc"), "seed must be a whole number, not str 'abc'"),
    (lambda api: api.machine("edison", seed=True), "seed must be a whole number, not bool True"),
    (lambda api: api.machine("dragonfly-3k").traffic(load="high"), "load must be a number, not str 'high'"),
])
def test_the_python_api_refuses_wrong_types_in_one_line(call, says):
    import ppt.api
    from ppt.errors import PPTError
    with pytest.raises(PPTError, match=re.escape(says)) as info:
        call(ppt.api)
    assert "\n" not in str(info.value)


def test_more_ranks_than_the_host_has_cores_is_warned_loudly(caplog):
    from types import SimpleNamespace
    from ppt.cli.common import report_placement
    job = SimpleNamespace(num_ranks=5, node_of=[0, 0, 1, 1, 2], ranks_per_node=2)
    with caplog.at_level("INFO", logger="ppt"):
        report_placement(job, SimpleNamespace(name="host", cores_per_node=2))
        report_placement(job, SimpleNamespace(name="edison", cores_per_node=2))
        report_placement(SimpleNamespace(num_ranks=2, node_of=[0, 0], ranks_per_node=2),
                         SimpleNamespace(name="host", cores_per_node=2))
    warnings = [r.getMessage() for r in caplog.records if "host preset" in r.getMessage()]
    assert warnings == ["warning: 5 ranks on the host preset of this 2-core machine: the prediction gives every "
                        "rank a core of its own, on 3 model nodes joined by the preset's same-node copy costs, while "
                        "a real run of 5 ranks here shares the 2 cores; predict at most 2 ranks to compare with "
                        "this host"]

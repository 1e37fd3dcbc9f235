"""The event engine: ordering, processes, end time, errors, PHOLD serial vs parallel."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ppt.apps.phold import PholdParams, run_baseline, run_phold
from ppt.engine import Entity, ProcessError, Simulation
from ppt.engine.simian import Simian
from ppt.errors import SimulationError


class Recorder(Entity):
    __slots__ = ("log",)

    def __init__(self, sim, eid):
        super().__init__(sim, eid)
        self.log = []

    def note(self, data):
        self.log.append((self.sim.now, data))


def test_events_run_in_time_order_and_ties_in_creation_order():
    sim = Simulation(comm=None)
    a = sim.add(Recorder(sim, 0))
    b = sim.add(Recorder(sim, 1))
    b.send(0, "note", "b-late", 2.0)
    a.schedule(1.0, a.note, "a-first-tie")
    b.send(0, "note", "b-second-tie", 1.0)   # same time, created by a later entity id
    a.schedule(1.0, a.note, "a-third-tie")   # same time and entity, created later
    a.schedule(0.5, a.note, "a-early")
    sim.run()
    assert a.log == [(0.5, "a-early"), (1.0, "a-first-tie"), (1.0, "a-third-tie"),
                     (1.0, "b-second-tie"), (2.0, "b-late")]
    assert sim.events == 5


def test_end_time_is_honoured_and_run_can_resume():
    sim = Simulation(end_s=10.0, comm=None)
    a = sim.add(Recorder(sim, 0))
    for t in (1.0, 9.999, 10.0, 12.0):
        a.schedule(t, a.note, t)
    sim.run(until_s=5.0)
    assert [d for _, d in a.log] == [1.0]
    sim.run()
    assert [d for _, d in a.log] == [1.0, 9.999]
    assert sim.now == 9.999 and len(sim.heap) == 2


def test_sleep_hibernate_and_wake_between_processes():
    sim = Simulation(comm=None)
    ent = sim.add(Recorder(sim, 0))
    trace = []

    def sleeper(proc):
        trace.append(("sleeper start", proc.now))
        proc.sleep(3.0)
        trace.append(("sleeper woke itself", proc.now))
        waiter.wake("hello", delay_s=0.5)

    def waiting(proc):
        value = proc.hibernate("waiting for sleeper")
        trace.append(("waiter got " + value, proc.now))

    waiter = ent.start_process(waiting, name="waiter")
    ent.start_process(sleeper, name="sleeper", delay_s=1.0)
    sim.run()
    assert trace == [("sleeper start", 1.0), ("sleeper woke itself", 4.0), ("waiter got hello", 4.5)]
    assert sim.blocked() == []


def test_blocked_processes_are_reported_with_reason():
    sim = Simulation(comm=None)
    ent = sim.add(Recorder(sim, 3))
    proc = ent.start_process(lambda p: p.hibernate("MPI_Recv(source=1)"), name="rank 0")
    sim.run()
    assert sim.blocked() == [proc] and proc.blocked_in == "MPI_Recv(source=1)"


def test_exception_in_process_names_entity_and_process():
    sim = Simulation(comm=None)
    ent = sim.add(Recorder(sim, 7))

    def broken(proc):
        proc.sleep(1.0)
        return 1 / 0

    ent.start_process(broken, name="rank 5")
    with pytest.raises(ProcessError, match=r"'rank 5' of Recorder\[7\] raised ZeroDivisionError"):
        sim.run()


def test_event_in_the_past_and_unknown_service_are_errors():
    sim = Simulation(comm=None)
    ent = sim.add(Recorder(sim, 0))
    with pytest.raises(SimulationError, match="in the past"):
        ent.schedule(-1e-9, ent.note, None)
    with pytest.raises(SimulationError, match="no service 'nope'"):
        ent.send(0, "nope", None, 1.0)
    with pytest.raises(SimulationError, match="entity 42, which does not exist"):
        ent.send(42, "note", None, 1.0)


def test_phold_event_and_process_versions_agree_with_bare_loop():
    p = PholdParams(num_lps=200, end_s=20.0)
    events = run_phold(p, comm=None)
    processes = run_phold(p, processes=True, comm=None)
    base_events, _ = run_baseline(p)
    assert events["events"] == base_events
    # the process version also counts one start event per LP
    assert processes["events"] == base_events + p.num_lps
    assert processes["state_hash"] == events["state_hash"]


def test_simian_aliases_run_a_classic_model():
    engine = Simian("ping", startTime=0.0, endTime=100.0, minDelay=1.0)
    received = []

    class Node(engine.Entity):
        def __init__(self, baseInfo):
            super().__init__(baseInfo)
            self.createProcess("worker", self.worker)

        def ping(self, data, tx, txId):
            received.append((engine.now, data, tx))
            if data < 3:
                self.reqService(2.0, "ping", data + 1, "Node", 1 - self.num)

        def worker(self, this):
            this.sleep(5.0)
            received.append((engine.now, "worker"))

    engine.addEntity("Node", Node, 0)
    engine.addEntity("Node", Node, 1)
    engine.schedService(1.0, "ping", 0, "Node", 0)
    engine.entities[0].startProcess("worker")
    engine.run()
    engine.exit()
    # the worker's wake-up at 5.0 was created at time 0 by Node 0, so it precedes the ping
    assert received == [(1.0, 0, None), (3.0, 1, "Node"), (5.0, "worker"), (5.0, 2, "Node"),
                        (7.0, 3, "Node")]


def _mpiexec():
    found = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")
    if not found:
        pytest.skip("mpiexec not installed")
    return found


PHOLD_SCRIPT = """
import json, sys
from ppt.apps.phold import PholdParams, run_phold
r = run_phold(PholdParams(num_lps=3000, end_s=15.0, remote=0.5))
if r['sim'].rank == 0:
    print(json.dumps({'events': r['events'], 'hash': r['state_hash']}))
"""


def test_phold_serial_equals_two_rank_parallel():
    serial = run_phold(PholdParams(num_lps=3000, end_s=15.0, remote=0.5), comm=None)
    out = subprocess.run([_mpiexec(), "-n", "2", sys.executable, "-c", PHOLD_SCRIPT],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    parallel = json.loads(out.stdout)
    assert parallel == {"events": serial["events"], "hash": serial["state_hash"]}
    assert serial["events"] > 20_000


# -- stopping a parallel run together --------------------------------------------
# Each test runs an mpiexec job of a few seconds; every wait has its own deadline,
# so a regression (a hang) fails the test in about 20 s instead of blocking the suite.

PID_THEN_PPT = """
import os, sys
from ppt.engine.parallel import launched_rank
with open(os.path.join(sys.argv[1], f"pid{launched_rank()}"), "w") as f:
    f.write(str(os.getpid()))
from ppt.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


def _wait_for(condition, deadline_s: float, what: str) -> None:
    stop = time.monotonic() + deadline_s
    while not condition():
        if time.monotonic() > stop:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


@pytest.mark.mpiexec
def test_sigint_to_one_rank_stops_every_rank_with_one_line_each(tmp_path):
    err_path = tmp_path / "stderr"
    with open(err_path, "w") as err:
        job = subprocess.Popen([_mpiexec(), "-n", "2", sys.executable, "-c", PID_THEN_PPT, str(tmp_path),
                                "bench", "engine", "--lps", "200", "--end", "1e9"],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
    pids = {}
    try:
        _wait_for(lambda: "PHOLD on 2 simulation ranks" in err_path.read_text(), 15, "the parallel run")
        for rank in (0, 1):
            pids[rank] = int((tmp_path / f"pid{rank}").read_text())
        time.sleep(1.0)   # both ranks are in the window loop now (the model takes milliseconds to build)
        os.kill(pids[1], signal.SIGINT)
        job.wait(timeout=10)
    finally:
        if job.poll() is None:
            for pid in pids.values():
                os.kill(pid, signal.SIGKILL)
            job.kill()
            job.wait()
    lines = [line for line in err_path.read_text().splitlines() if "stopped" in line]
    assert job.returncode == 130, err_path.read_text()
    assert sorted(lines, key=lambda line: line.split()[3]) == [
        AnyLine(r"ppt: simulation rank 0 of 2 stopped at t=\S+ s: simulation rank 1 was interrupted \(SIGINT\)"),
        AnyLine(r"ppt: simulation rank 1 of 2 stopped at t=\S+ s: interrupted \(SIGINT\)")]
    assert len({line.split()[8] for line in lines}) == 1, "the ranks stopped at different times"


class AnyLine:
    """Equal to a string that fully matches the regular expression."""

    def __init__(self, pattern):
        self.pattern = re.compile(pattern)

    def __eq__(self, other):
        return bool(self.pattern.fullmatch(other))

    def __repr__(self):
        return f"/{self.pattern.pattern}/"


DYING_RANK = """
import sys
from ppt.engine import Entity, Simulation

class Pinger(Entity):
    def ping(self, n):
        if n == 5 and self.sim.rank == 1:
            if sys.argv[1] == "unpicklable":
                self.send(0, "ping", lambda: None, 1.0)   # cannot cross to rank 0
            else:
                self.send(0, "no_such_service", n + 1, 1.0)
            return
        self.send(1 - self.eid, "ping", n + 1, 1.0)

sim = Simulation(num_entities=2, lookahead_s=1.0)
for eid in range(2):
    sim.create(eid, Pinger)
if 0 in sim.entities:
    sim.entities[0].schedule(0.0, sim.entities[0].ping, 0)
sim.run(100.0)
"""


@pytest.mark.mpiexec
@pytest.mark.parametrize("fault, says", [
    ("unpicklable", "ppt: simulation rank 1 of 2 stopped at t=5 s: AttributeError: Can't pickle"),
    ("unknown service", "SimulationError: entity Pinger[0] has no service 'no_such_service'")])
def test_a_rank_failing_outside_its_window_stops_every_rank(fault, says):
    # Both faults hit one rank between windows (pickling its outgoing batch, delivering an
    # incoming one); the other rank used to wait for ever in the next exchange.
    job = subprocess.run([_mpiexec(), "-n", "2", sys.executable, "-c", DYING_RANK, fault],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=20)
    assert job.returncode != 0
    assert says in job.stderr


def test_constants_named_in_engine_and_mpi_docs_exist():
    # Docstrings and #: comments drift when a constant is renamed (PROGRESS_EVENTS for PROGRESS_MASK).
    import ast
    import importlib
    import pkgutil

    import ppt.engine
    import ppt.mpi
    modules = [importlib.import_module(info.name) for pkg in (ppt.engine, ppt.mpi)
               for info in pkgutil.walk_packages(pkg.__path__, f"{pkg.__name__}.")]
    modules = [module for module in modules if module.__file__.endswith(".py")]      # not the compiled ones
    headers = Path(ppt.mpi.__file__).parent.glob("engine/core/*.h")
    defined = {name for h in headers for name in re.findall(r"#define\s+(\w+)", h.read_text())}  # the engine's C
    for module in modules:
        defined.update(vars(module))
        defined.update(name for value in vars(module).values() if isinstance(value, type) for name in vars(value))
    missing = []
    for module in modules:
        source = open(module.__file__).read()
        texts = [line for line in source.splitlines() if line.strip().startswith("#:")]
        texts += [ast.get_docstring(node) or "" for node in ast.walk(ast.parse(source))
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef))]
        for name in re.findall(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b", "\n".join(texts)):
            if not name.startswith("MPI_") and name not in defined:
                missing.append(f"{module.__name__}: {name}")
    assert missing == []

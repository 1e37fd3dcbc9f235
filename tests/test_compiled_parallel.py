"""Parallel runs (``mpiexec -n K``) of the compiled MPI engine give the serial run's result to the last bit.

Each simulation process runs the ranks of its own nodes and sends the messages for other processes'
ranks as C records in the window exchange (:mod:`ppt.mpi.engine.windows`); the results of trace
replays and rank programs (per-rank statistics, calls, network counts, events, the programs' returns)
are compared with a serial run of the same job, byte for byte but for the wall time, and errors are
reported once, as serially.
"""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mpi_helpers import synthetic_trace
from shared_traces import path as set_path, real

TESTS = Path(__file__).resolve().parent
#: Nodes of the edison preset: its analytic network's NIC entities, in blocks over the processes.
EDISON_NODES = 5576

#: Run under mpiexec: every process replays random op streams (test_compiled_replay's) serially and in
#: parallel on the compiled engine, on the analytic network or a packet network of a preset (the ranks
#: mapped at random: on every process); process 0 prints every process's seeds that differ and how many
#: ran compiled.
RANDOM_STREAMS = """
import json, sys
from mpi4py import MPI
from ppt.errors import PPTError
from ppt.hardware.systems import load_system
from ppt.interconnects.networks.analytic import AnalyticNetwork
from ppt.machine import Machine
from ppt.mpi.job import MPIJob
from ppt.mpi.settings import MPISettings
from ppt.traces.replay import replay
from test_compiled_replay import ALGORITHMS, _random_trace

world, differ, compiled = MPI.COMM_WORLD, [], 0
network, seeds = sys.argv[1], int(sys.argv[2])


def analytic(rng, ranks):
    per_node = rng.choice([1, 2, 3])
    settings = MPISettings(rng.choice([0, 1000, 4096, 65536]), rng.choice([0.0, 1e-7]), rng.choice([0.0, 2e-7]),
                           rng.choice([0.0, 1e-7]))
    algorithms, hops, bandwidth = rng.choice(ALGORITHMS), rng.random() < 0.5, rng.choice([1e9, 1e10, float("inf")])

    def job(comm):
        net = AnalyticNetwork(-(-ranks // per_node), 1e-6, bandwidth, per_hop_s=5e-8,
                              hops=(lambda a, b: abs(a - b)) if hops else None)
        return MPIJob(net, ranks, per_node, settings=settings, algorithms=algorithms, comm=comm)
    return job


def packet(rng, ranks):
    preset = load_system(rng.choice(["fattree-4-3", "dragonfly-booksim"]))
    preset = dict(preset, mpi=dict(preset.get("mpi", {}), eager_threshold_B=rng.choice([1000, 8192]),
                                   send_overhead_s=rng.choice([0.0, 1e-7])))
    per_node, seed = rng.choice([1, 2]), rng.randrange(100)
    return lambda comm: MPIJob.on_machine(Machine(preset, "packet"), ranks, ranks_per_node=per_node,
                                          mapping="random", seed=seed, comm=comm)


for seed in range(seeds):
    trace, rng = _random_trace(seed)
    job = (analytic if network == "analytic" else packet)(rng, trace.num_ranks)
    try:
        parallel = json.dumps(replay(trace, job(world)), sort_keys=True)
    except PPTError:            # the stream goes wrong: reported where it does (its text: test_compiled_replay)
        continue
    compiled += 1
    if parallel != json.dumps(replay(trace, job(None)), sort_keys=True):
        differ.append(seed)
reports = world.gather({"process": world.rank, "differ": differ, "compiled": compiled})
if world.rank == 0:
    print(json.dumps(reports))
"""

#: Run under mpiexec: the mpi4py API programs (payloads of every kind, reductions with user ops,
#: communicators) on 4 ranks of 4 nodes, serially and in parallel; process 0 prints the programs that ran
#: and those that differ.
API_PROGRAMS = """
import json
from mpi4py import MPI
import mpi4py_api_programs as programs
from mpi_helpers import network
from ppt.mpi.job import MPIJob
from ppt.mpi.settings import MPISettings

world, ran, differ = MPI.COMM_WORLD, [], []


def outcome(main, comm):
    job = MPIJob(network(4), 4, comm=comm, settings=MPISettings(1024, 1e-7, 2e-7))
    r = job.run(main)
    return json.dumps([r.predicted_s, r.per_rank, r.calls, r.network, r.returns, r.events], default=repr)


for name, main in programs.PROGRAMS.items():
    ran.append(name)
    if outcome(main, world) != outcome(main, None):
        differ.append(name)
if world.rank == 0:
    print(json.dumps({"ran": ran, "differ": differ}))
"""

#: Run under mpiexec: NCCL's tree all-reduce and ring all-gather, whose schedule messages carry marks (a
#: flow's slot, a stream's count) where a program's messages carry payload handles, with data, 8 ranks on
#: 4 nodes, a split communicator agreed by the tree; process 0 prints whether the run equals the serial one.
NCCL_PROGRAM = """
import json
import numpy as np
from mpi4py import MPI
from mpi_helpers import network
from ppt.mpi.job import MPIJob
from ppt.mpi.settings import MPISettings


def main(mpi):
    comm = mpi.COMM_WORLD
    sub = comm.Split(comm.rank % 2, comm.rank)
    return (comm.allreduce(np.arange(300) * comm.rank, nbytes=2400).tolist(), sub.allreduce(comm.rank),
            [block.tolist() for block in comm.allgather(np.arange(100) * comm.rank, nbytes=800)])


def outcome(comm):
    job = MPIJob(network(4), 8, 2, comm=comm, settings=MPISettings(1024, 1e-7, 2e-7, nccl_channels=2,
                 nccl_chunk_B=256), algorithms={"allreduce": "nccl_tree", "allgather": "nccl_ring"})
    r = job.run(main)
    return json.dumps([r.predicted_s, r.per_rank, r.calls, r.network, r.returns, r.events], default=repr)


same = outcome(MPI.COMM_WORLD) == outcome(None)
if MPI.COMM_WORLD.rank == 0:
    print(json.dumps(same))
"""


def _mpiexec() -> str:
    found = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")
    if not found:
        pytest.skip("mpiexec not installed")
    return found


def _without_wall_time(text: str) -> str:
    return re.sub(r'"wall_s": [-+0-9.eE]+', '"wall_s": 0', text)


def _reports_one_deadlock_as_serially(command) -> None:
    """``command`` exits 2 with one ``ppt: error:`` line naming a deadlock, the same under ``mpiexec -n 2``."""
    serial, parallel = _run(command), _run(command, 2)
    assert serial.returncode == parallel.returncode == 2
    error = [line for line in serial.stderr.splitlines() if line.startswith("ppt: error:")]
    assert len(error) == 1 and "deadlock" in error[0]
    assert [line for line in parallel.stderr.splitlines() if line.startswith("ppt: error:")] == error


def _run(command, processes: int = 1):
    """``command`` run serially, or under ``mpiexec -n processes``; the completed process."""
    prefix = [_mpiexec(), "-n", str(processes)] if processes > 1 else []
    env = dict(os.environ, PPT_QUIET="1", PYTHONPATH=str(TESTS))
    return subprocess.run(prefix + command, capture_output=True, text=True, env=env, timeout=300)


def _script_report(tmp_path, text: str, processes: int, *args):
    """Python script ``text`` run under ``mpiexec -n processes`` with ``args``: the JSON it printed."""
    script = tmp_path / "script.py"
    script.write_text(text)
    run = _run([sys.executable, str(script), *map(str, args)], processes)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.mark.mpiexec
@pytest.mark.parametrize("processes", [2, 4])
@pytest.mark.parametrize("network, seeds", [("analytic", 40), ("packet", 12)])
def test_random_op_streams_replay_in_parallel_as_serially(tmp_path, processes, network, seeds):
    reports = _script_report(tmp_path, RANDOM_STREAMS, processes, network, seeds)
    assert sorted(r["process"] for r in reports) == list(range(processes))
    assert all(r["differ"] == [] for r in reports), reports
    compiled = {r["compiled"] for r in reports}
    assert len(compiled) == 1 and compiled.pop() >= seeds * 3 // 4          # communicators too


@pytest.mark.mpiexec
def test_nccl_schedules_run_in_parallel_as_serially(tmp_path):
    assert _script_report(tmp_path, NCCL_PROGRAM, 2) is True


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """A 16-rank halo-and-allreduce op-stream trace (ppt.traces.writers.synthetic)."""
    return synthetic_trace(tmp_path_factory.mktemp("trace") / "synthetic", 2000)


@pytest.mark.mpiexec
@pytest.mark.parametrize("processes", [2, 4])
@pytest.mark.parametrize("system, network, nodes", [("edison", "analytic", EDISON_NODES),
                                                    ("dragonfly-booksim", "packet", 1056)])
def test_ppt_replay_in_parallel_prints_the_serial_json(synthetic, processes, system, network, nodes):
    command = [sys.executable, "-m", "ppt.cli.main", "replay", str(synthetic), "--system", system, "--network",
               network, "--ranks-per-node", "2", "--mapping", "random", "--json"]
    serial, parallel = _run(command), _run(command, processes)
    assert serial.returncode == parallel.returncode == 0, serial.stderr + parallel.stderr
    used = {r["node"] for r in json.loads(serial.stdout)["per_rank"]}
    assert len({node * processes // nodes for node in used}) > 1      # ranks on several processes
    assert _without_wall_time(parallel.stdout) == _without_wall_time(serial.stdout)


@pytest.mark.mpiexec
@pytest.mark.parametrize("name", [*real("npb_cg_W_n4"), "samplesort_n8"])
@pytest.mark.parametrize("processes", [2, 4])
def test_a_dumpi_trace_replays_in_parallel_as_serially(processes, name):
    """A DUMPI trace (the real NPB CG trace, which makes communicators; the shipped sample sort and its
    all-to-all-v), its ranks spread over every process; the trace is read where the replay runs, by each
    process."""
    trace = set_path(name)
    command = [sys.executable, "-m", "ppt.cli.main", "replay", str(trace), "--system", "edison", "--network",
               "analytic", "--ranks-per-node", "1", "--mapping", "random", "--json"]
    serial, parallel = _run(command), _run(command, processes)
    assert serial.returncode == parallel.returncode == 0, serial.stderr + parallel.stderr
    assert _without_wall_time(parallel.stdout) == _without_wall_time(serial.stdout)


@pytest.fixture(scope="module")
def deadlock(tmp_path_factory):
    """Two ranks on nodes far apart (so on two processes), each receiving from the other first: an
    op-stream folder, and its rank-to-node mapping file."""
    from ppt.traces.opstream import MemoryTrace, Op, save
    trace = MemoryTrace("deadlock", 2)
    for rank in (0, 1):
        builder = trace.builder(rank)
        builder.add(int(Op.INIT), "MPI_Init")
        builder.add(int(Op.RECV), "MPI_Recv", peer=1 - rank, tag=7, nbytes=8)
        builder.add(int(Op.SEND), "MPI_Send", peer=1 - rank, tag=7, nbytes=8)
        builder.add(int(Op.LOCAL), "MPI_Finalize")
    folder = tmp_path_factory.mktemp("deadlock")
    save(trace, folder / "trace")
    (folder / "nodes.txt").write_text(f"0\n{EDISON_NODES - 1}\n")
    return folder


@pytest.mark.mpiexec
def test_a_deadlock_in_a_parallel_replay_is_reported_once_as_serially(deadlock):
    command = [sys.executable, "-m", "ppt.cli.main", "replay", str(deadlock / "trace"), "--system", "edison",
               "--network", "analytic", "--mapping", str(deadlock / "nodes.txt"), "--ranks-per-node", "1"]
    _reports_one_deadlock_as_serially(command)


@pytest.mark.mpiexec
@pytest.mark.parametrize("processes", [2, 4])
def test_programs_run_in_parallel_as_serially(tmp_path, processes):
    report = _script_report(tmp_path, API_PROGRAMS, processes)
    assert report["differ"] == []
    assert {"collectives_objects", "communicators", "derived_datatypes"} <= set(report["ran"])


#: A model: compute, reductions and object messages between ranks on other processes, a rendezvous-sized
#: exchange and an all-to-all.
MODEL = """
def main(mpi):
    comm = mpi.COMM_WORLD
    mpi.compute([("fALU", 10**5 * (comm.rank + 1))])
    total = comm.allreduce(comm.rank, nbytes=8)
    right, left = (comm.rank + 1) % comm.size, (comm.rank - 1) % comm.size
    got = comm.sendrecv(("from", comm.rank), right, source=left, nbytes=200000)
    comm.alltoall(None, nbytes=512)
    return total, got, comm.bcast({"root": comm.rank} if comm.rank == 3 else None, root=3)
"""


@pytest.mark.mpiexec
@pytest.mark.parametrize("processes", [2, 4])
@pytest.mark.parametrize("system, network, nodes", [("edison", "analytic", EDISON_NODES),
                                                    ("dragonfly-booksim", "packet", 1056)])
def test_ppt_run_in_parallel_prints_the_serial_json(tmp_path, processes, system, network, nodes):
    (tmp_path / "model.py").write_text(MODEL)
    command = [sys.executable, "-m", "ppt.cli.main", "run", str(tmp_path / "model.py"), "--system", system,
               "--ranks", "24", "--ranks-per-node", "2", "--mapping", "random", "--seed", "5", "--network",
               network, "--json"]
    serial, parallel = _run(command), _run(command, processes)
    assert serial.returncode == parallel.returncode == 0, serial.stderr + parallel.stderr
    used = {r["node"] for r in json.loads(serial.stdout)["per_rank"]}
    assert len({node * processes // nodes for node in used}) > 1
    assert _without_wall_time(parallel.stdout) == _without_wall_time(serial.stdout)


#: Run under mpiexec: a program and random op streams on network and node memory models of one's own
#: (test_compiled_models', and the packet network's Python model), on the compiled engine in parallel and
#: serially; process 0 prints the models whose outcomes differ.
OWN_MODELS = """
import json
from mpi4py import MPI
from ppt.errors import PPTError
from ppt.hardware.systems import load_system
from ppt.interconnects.networks.nodememory import NodeMemory
from ppt.machine import Machine
from ppt.mpi import MPIJob
from ppt.traces.replay import replay
from test_compiled_models import MODELS, OwnPacketNetwork, exchanges
from test_compiled_replay import _random_trace

world, machine = MPI.COMM_WORLD, Machine(load_system("fattree-4-3"), "packet")


def own_packet(nodes):
    net = OwnPacketNetwork.from_machine(machine)
    net.node_memory = NodeMemory.from_machine(machine)
    return net


def outcome(model, comm):
    result = MPIJob(model(16), 12, 2, mapping="random", seed=3, comm=comm).run(exchanges)
    runs = [result.as_json(), result.events, repr(result.returns)]
    for seed in range(4):
        trace, _ = _random_trace(seed)
        try:
            runs.append(replay(trace, MPIJob(model(16), trace.num_ranks, 1, mapping="random", seed=seed, comm=comm)))
        except PPTError:        # the stream goes wrong (its text: test_compiled_replay)
            runs.append("error")
    return json.dumps(runs, sort_keys=True)


differ = [model.__name__ for model in (*MODELS, own_packet) if outcome(model, world) != outcome(model, None)]
if world.rank == 0:
    print(json.dumps(differ))
"""


@pytest.mark.mpiexec
@pytest.mark.parametrize("processes", [2, 4])
def test_models_of_ones_own_run_in_parallel_as_serially(tmp_path, processes):
    assert _script_report(tmp_path, OWN_MODELS, processes) == []


@pytest.mark.mpiexec
def test_a_deadlocked_program_in_parallel_is_reported_once_as_serially(tmp_path):
    (tmp_path / "nodes.txt").write_text(f"0\n{EDISON_NODES - 1}\n")
    command = [sys.executable, "-m", "ppt.cli.main", "run", str(TESTS.parent / "examples" / "deadlock.py"),
               "--system", "edison", "--ranks", "2", "--mapping", str(tmp_path / "nodes.txt"), "--network",
               "analytic"]
    _reports_one_deadlock_as_serially(command)


@pytest.mark.mpiexec
@pytest.mark.parametrize("processes", [2, 4])
def test_ppt_exec_in_parallel_prints_the_serial_json_and_output(processes):
    # an unmodified mpi4py program (payloads, Sendrecv, Allreduce), its ranks spread over every process
    command = [sys.executable, "-m", "ppt.cli.main", "exec", str(TESTS.parent / "examples" / "mpi4py" / "jacobi.py"),
               "-n", "16", "--system", "edison", "--ranks-per-node", "2", "--mapping", "random", "--seed", "3",
               "--network", "analytic", "--compute", "none", "--json", "--prepend-rank"]
    serial, parallel = _run(command), _run(command, processes)
    assert serial.returncode == parallel.returncode == 0, serial.stderr + parallel.stderr
    used = {r["node"] for r in json.loads(serial.stdout)["per_rank"]}
    assert len({node * processes // EDISON_NODES for node in used}) > 1
    assert _without_wall_time(parallel.stdout) == _without_wall_time(serial.stdout)
    lines = [line for line in serial.stderr.splitlines() if line.startswith("[")]
    assert {line.split("]")[0] for line in lines} == {f"[{rank}" for rank in range(16)}
    assert sorted(parallel.stderr.splitlines()) == sorted(serial.stderr.splitlines())

"""Several jobs on one machine: job lists, allocation policies, per-job results and bad input."""
import json
import math
from pathlib import Path

import numpy as np
import pytest

import golden
from ppt.cli.main import main
from ppt.errors import ConfigError, DeadlockError, PPTError
from ppt.hardware.systems import load_system
from ppt.drivers.sampling import Sampler
from ppt.jobs.allocation import allocate
from ppt.jobs.joblist import read_job_list
from ppt.jobs.mix import JobMix
from ppt.machine import Machine
from ppt.oprecord import Op
from ppt.provenance import comparable
from ppt.traces.opstream import MemoryTrace, save

#: A 72-node dragonfly (p=2, a=4, h=2, g=9) with the BookSim timing.
SMALL_DRAGONFLY = ["--system", "dragonfly-booksim", "--set", "topology.p=2", "--set", "topology.a=4",
                   "--set", "topology.h=2", "--set", "topology.g=9"]
#: Every rank exchanges with both ring neighbours, then all ranks reduce.
EXCHANGE = """
def main(mpi):
    comm = mpi.COMM_WORLD
    for _ in range(4):
        right, left = (comm.rank + 1) % comm.size, (comm.rank - 1) % comm.size
        comm.sendrecv(None, right, source=left, nbytes=20000)
        comm.allreduce(comm.rank, nbytes=8)
"""
#: Rank r sends one 8-byte message to rank r + 1 (mod size).
RING = """
def main(mpi):
    comm = mpi.COMM_WORLD
    comm.sendrecv(None, (comm.rank + 1) % comm.size, source=(comm.rank - 1) % comm.size, nbytes=8)
"""


def machine(name="fattree-4-3", overrides=()):
    return Machine(load_system(name, list(overrides)))


def write(path: Path, jobs, **top) -> Path:
    path.write_text(json.dumps({"jobs": jobs, **top}))
    return path


def run_json(capsys, argv) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def exchange(tmp_path):
    path = tmp_path / "exchange.py"
    path.write_text(EXCHANGE)
    return path


@pytest.fixture(scope="module")
def ring_trace(tmp_path_factory) -> Path:
    """An op-stream trace of 4 ranks: start-up, three rounds of computing (longer on higher ranks), a
    ring exchange (blocking, then nonblocking) and an allreduce, then a broadcast."""
    trace = MemoryTrace("ring", 4)
    for rank in range(4):
        build = trace.builder(rank)
        right, left = (rank + 1) % 4, (rank - 1) % 4
        build.add(int(Op.INIT), "MPI_Init")
        for step in range(3):
            build.add(int(Op.SENDRECV), "MPI_Sendrecv", gap_wall_s=2e-6 * (rank + 1), peer=right, tag=step,
                      nbytes=16384, aux=(left, step, 16384))
            build.add(int(Op.IRECV), "MPI_Irecv", peer=left, tag=9, nbytes=512, request=1)
            build.add(int(Op.ISEND), "MPI_Isend", peer=right, tag=9, nbytes=512, request=2)
            build.add(int(Op.WAITALL), "MPI_Waitall", aux=(1, 2))
            build.add(int(Op.ALLREDUCE), "MPI_Allreduce", nbytes=8)
        build.add(int(Op.BCAST), "MPI_Bcast", root=0, nbytes=4096)
        build.add(int(Op.LOCAL), "MPI_Finalize")
    return Path(save(trace, tmp_path_factory.mktemp("ring") / "trace"))


# -- allocation ------------------------------------------------------------------------------------
def test_contiguous_allocation_is_a_prefix_in_job_order():
    topo = machine().topology
    assert allocate(topo, [3, 5, 2]) == [[0, 1, 2], [3, 4, 5, 6, 7], [8, 9]]


def test_random_allocation_is_a_seeded_permutation():
    topo = machine().topology
    nodes = allocate(topo, [4, 12], "random", seed=3)
    order = np.random.default_rng(3).permutation(16)
    assert nodes == [sorted(order[:4].tolist()), sorted(order[4:].tolist())]
    assert sorted(nodes[0] + nodes[1]) == list(range(16))
    assert allocate(topo, [4, 12], "random", seed=3) == nodes != allocate(topo, [4, 12], "random", seed=4)


def test_round_robin_over_groups_alternates_groups():
    topo = machine("dragonfly-booksim", ["topology.p=2", "topology.a=4", "topology.h=2", "topology.g=9"]).topology
    group = topo.router_groups()[topo.node_router]
    first, second = allocate(topo, [9, 18], "round-robin-groups")
    assert sorted(group[first].tolist()) == list(range(9))             # one node in every group
    assert sorted(group[second].tolist()) == sorted(list(range(9)) * 2)
    assert not set(first) & set(second)


def test_round_robin_over_groups_needs_groups():
    with pytest.raises(ConfigError, match="needs a topology with groups"):
        allocate(machine().topology, [2], "round-robin-groups")


def test_allocation_file_is_honoured_and_checked(tmp_path):
    topo = machine().topology
    path = tmp_path / "nodes.txt"
    path.write_text("# job 0\n7 3\n0 15 9\n")
    assert allocate(topo, [2, 3], str(path)) == [[7, 3], [0, 15, 9]]
    path.write_text("7 3\n3 15 9\n")
    with pytest.raises(ConfigError, match="gives node 3 to two jobs"):
        allocate(topo, [2, 3], str(path))
    with pytest.raises(ConfigError, match="line 2 lists 3 nodes; job 1 needs 2"):
        allocate(topo, [2, 2], str(path))


# -- the job list ------------------------------------------------------------------------------------
def test_job_list_reads_kinds_and_the_rest(tmp_path, exchange):
    path = write(tmp_path / "jobs.json", [{"name": "app", "kind": "script", "script": exchange.name, "ranks": 6,
                                           "ranks_per_node": 2},
                                          {"kind": "traffic", "pattern": "ur", "load": 0.5, "ranks": "rest"}],
                 ranks_per_node=1)
    joblist = read_job_list(str(path))
    assert [j.name for j in joblist.jobs] == ["app", "job1"]
    assert joblist.default_ranks_per_node(4, 32) == 1
    assert joblist.node_counts(1, 16) == [3, 13]


# -- running jobs together ---------------------------------------------------------------------------
def test_identical_jobs_on_symmetric_halves_run_as_fast_as_alone(tmp_path, exchange, capsys):
    """Two copies of one job on the two pods halves of an idle fat tree: if either leaked into the
    other (messages, ranks, link load), their times would differ from the job's time alone."""
    job = {"kind": "script", "script": str(exchange), "ranks": 8, "ranks_per_node": 1}
    both = write(tmp_path / "both.json", [dict(job, name="a"), dict(job, name="b")])
    alone = write(tmp_path / "alone.json", [dict(job, name="a")])
    args = ["--system", "fattree-4-3", "--json"]
    together = run_json(capsys, ["run", "--job-list", str(both), *args])["jobs"]
    single = run_json(capsys, ["run", "--job-list", str(alone), *args])["jobs"][0]
    assert [j["nodes"] for j in together] == [list(range(8)), list(range(8, 16))]
    for entry in together:
        for key in ("predicted_s", "max_comm_s", "packets", "mean_hops", "mean_packet_latency_s"):
            assert entry[key] == single[key]
    plain = run_json(capsys, ["run", str(exchange), "--ranks", "8", "--ranks-per-node", "1", *args])
    assert single["predicted_s"] == plain["predicted_s"]


def test_background_traffic_slows_a_job_and_each_job_gets_its_own_packets(tmp_path, exchange, capsys):
    """The job's messages and protocols do not depend on timing, so beside traffic it sends the packets it
    sends alone, and they alone count for it; the rest of the network's packets are the traffic's."""
    app = {"name": "app", "kind": "script", "script": str(exchange), "ranks": 16, "ranks_per_node": 1}
    background = {"name": "bg", "kind": "traffic", "pattern": "ur", "load": 0.9, "message_B": 1024,
                  "ranks": "rest"}
    args = ["run", *SMALL_DRAGONFLY, "--allocation", "random", "--seed", "2", "--json", "--job-list"]
    alone = run_json(capsys, args + [str(write(tmp_path / "alone.json", [app]))])["jobs"][0]
    mix = run_json(capsys, args + [str(write(tmp_path / "mix.json", [app, background]))])
    app_job, bg = mix["jobs"]
    assert app_job["nodes"] == alone["nodes"] and len(bg["nodes"]) == 72 - 16
    assert app_job["max_comm_s"] > 1.2 * alone["max_comm_s"]
    assert app_job["predicted_s"] > alone["predicted_s"]
    assert app_job["mean_packet_latency_s"] > alone["mean_packet_latency_s"]
    assert app_job["packets"] == alone["packets"] > 0 and app_job["bytes_delivered"] == alone["bytes_delivered"]
    assert bg["packets"] == mix["network"]["packets"] - app_job["packets"] > 0 and bg["predicted_s"] is None


def test_per_job_mean_hops_match_the_fat_tree(tmp_path, capsys):
    """4-port 3-tree: two nodes under one leaf switch are 0 router-to-router hops apart, two in one pod
    of 4 nodes 2, any others 4; a ring on nodes 0, 1, 2, 9 sends over hops 0, 2, 4, 4."""
    script = tmp_path / "ring.py"
    script.write_text(RING)
    nodes = [0, 1, 2, 9]
    alloc = tmp_path / "alloc.txt"
    alloc.write_text(" ".join(map(str, nodes)) + "\n")

    def hops(i, j):
        return 0 if i // 2 == j // 2 else 2 if i // 4 == j // 4 else 4

    jobs = write(tmp_path / "ring.json", [{"kind": "script", "script": script.name, "ranks": 4}], ranks_per_node=1)
    entry = run_json(capsys, ["run", "--job-list", str(jobs), "--system", "fattree-4-3", "--allocation", str(alloc),
                              "--json"])["jobs"][0]
    assert entry["packets"] == 4
    assert entry["mean_hops"] == sum(hops(a, b) for a, b in zip(nodes, nodes[1:] + nodes[:1])) / 4


def test_dedicated_rails_give_each_job_its_own_plane(tmp_path, capsys):
    """Two planes with rail policy dedicated: job 1 sends on plane 1 only (job 0 sends nothing)."""
    (tmp_path / "idle.py").write_text("def main(mpi):\n    pass\n")
    (tmp_path / "ring.py").write_text(RING)
    jobs = write(tmp_path / "jobs.json", [{"kind": "script", "script": "idle.py", "ranks": 2},
                                          {"kind": "script", "script": "ring.py", "ranks": 4}], ranks_per_node=1)
    out = run_json(capsys, ["run", "--job-list", str(jobs), "--system", "fattree-4-3", "--set", "network.planes=2",
                            "--set", "network.rail_policy=dedicated", "--json"])
    assert [plane["bytes"] > 0 for plane in out["network"]["planes"]] == [False, True]


def test_job_mixes_are_deterministic(tmp_path, exchange, capsys):
    jobs = write(tmp_path / "jobs.json", [{"kind": "script", "script": str(exchange), "ranks": 4},
                                          {"kind": "traffic", "pattern": "ur", "load": 0.4, "ranks": "rest"}],
                 ranks_per_node=1)
    argv = ["run", "--job-list", str(jobs), "--system", "fattree-4-3", "--allocation", "random", "--seed", "7",
            "--json"]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert main(argv) == 0
    assert comparable(capsys.readouterr().out) == comparable(first)     # all but the wall time


def test_flow_network_gives_mpi_times_without_packet_statistics(tmp_path, exchange, capsys):
    jobs = write(tmp_path / "jobs.json", [{"kind": "script", "script": str(exchange), "ranks": 4}], ranks_per_node=1)
    entry = run_json(capsys, ["run", "--job-list", str(jobs), "--system", "fattree-4-3", "--network", "flow",
                              "--json"])["jobs"][0]
    assert entry["predicted_s"] > 0 and entry["packets"] is None and entry["mean_hops"] is None


def test_a_trace_job_alone_predicts_what_replay_does(tmp_path, capsys, ring_trace):
    """A job list's trace (here an op-stream folder) runs as a program on the compiled engine; ``ppt replay``
    runs it in the engine's replay: the two make the same events."""
    args = ["--system", "fattree-4-3", "--network", "packet", "--ranks-per-node", "1", "--json"]
    jobs = write(tmp_path / "jobs.json", [{"kind": "trace", "trace": str(ring_trace), "ranks": 4}])
    entry = run_json(capsys, ["replay", "--job-list", str(jobs), *args])["jobs"][0]
    plain = run_json(capsys, ["replay", str(ring_trace), *args])
    assert entry["predicted_s"] == plain["predicted_s"]
    assert entry["packets"] == plain["packets"] and entry["mean_hops"] == plain["mean_hops"]


# -- bad input -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("jobs, extra, message", [
    ([{"kind": "script", "script": "prog.py", "ranks": 17}], [],
     "ppt: error: the job list needs 17 nodes (job0 17) but the system has 16; use fewer ranks or more ranks "
     "per node"),
    ([{"kind": "script", "script": "prog.py", "ranks": 2}], ["--allocation", "best-fit"],
     "ppt: error: allocation 'best-fit' is neither one of contiguous, random, round-robin-groups nor a file"),
    ([{"kind": "script", "script": "prog.py", "rank": 2}], [],
     "ppt: error: unknown setting job 'job0'.rank; did you mean job 'job0'.ranks?"),
    ([{"kind": "trace", "trace": "no_such_trace", "ranks": 4}], [],
     "ppt: error: job 'job0': trace '{folder}/no_such_trace' not found"),
])
def test_bad_input_is_one_line_exit_2_and_no_file(tmp_path, capsys, jobs, extra, message):
    (tmp_path / "prog.py").write_text(RING)
    path = write(tmp_path / "jobs.json", jobs, ranks_per_node=1)
    samples = tmp_path / "samples.npz"
    status = main(["run", "--job-list", str(path), "--system", "fattree-4-3", "--sample-every", "1e-6",
                   "--samples", str(samples), *extra])
    err = capsys.readouterr().err
    assert status == 2
    assert err == message.format(folder=tmp_path) + "\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["jobs.json", "prog.py"]


def test_jobs_replace_the_script_and_its_ranks(tmp_path, capsys):
    path = write(tmp_path / "jobs.json", [{"kind": "script", "script": "x.py", "ranks": 2}])
    assert main(["run", "x.py", "--job-list", str(path), "--system", "fattree-4-3", "--ranks", "2"]) == 2
    assert capsys.readouterr().err.startswith("ppt: error: --job-list replaces SCRIPT.py, --ranks:")


#: Every rank waits for a message nobody sends, after a little work and one exchange.
DEADLOCK = """
def main(mpi):
    comm = mpi.COMM_WORLD
    comm.sendrecv(None, (comm.rank + 1) % comm.size, source=(comm.rank - 1) % comm.size, nbytes=4096)
    mpi.compute(2e-6)
    comm.recv(source=(comm.rank + 1) % comm.size, tag=7)
"""


def test_a_job_that_deadlocks_beside_traffic_is_reported(tmp_path, capsys):
    """The sources would keep the run going for ever: the ranks blocked with nothing left to wake them
    end it with the deadlock report, as the same job alone does."""
    (tmp_path / "deadlock.py").write_text(DEADLOCK)
    app = {"name": "app", "kind": "script", "script": str(tmp_path / "deadlock.py"), "ranks": 4,
           "ranks_per_node": 1}
    background = {"name": "bg", "kind": "traffic", "pattern": "ur", "load": 0.5, "ranks": "rest"}
    args = ["run", *SMALL_DRAGONFLY, "--json", "--job-list"]
    assert main(args + [str(write(tmp_path / "alone.json", [app]))]) == 2
    alone = capsys.readouterr().err
    assert main(args + [str(write(tmp_path / "mix.json", [app, background]))]) == 2
    beside = capsys.readouterr().err
    assert alone.startswith("ppt: error: deadlock at t=") and alone.count("\n") == 1
    assert "4 of 4 ranks blocked" in alone and "4 of 4 ranks blocked" in beside
    assert beside.startswith("ppt: error: deadlock at t=") and beside.count("\n") == 1
    assert beside.split(": ", 3)[3] == alone.split(": ", 3)[3]    # the same calls are blocked


def test_a_finished_mix_beside_traffic_ends_when_its_packets_drain(tmp_path, exchange, capsys):
    """The deadlock checks never lengthen a run: with the check disarmed when the last rank ends, the
    run ends with the last packet's delivery, before the next check would have come."""
    app = {"name": "app", "kind": "script", "script": str(exchange), "ranks": 8, "ranks_per_node": 1}
    background = {"name": "bg", "kind": "traffic", "pattern": "ur", "load": 0.2, "ranks": "rest"}
    out = run_json(capsys, ["run", *SMALL_DRAGONFLY, "--json", "--job-list",
                            str(write(tmp_path / "mix.json", [app, background]))])
    assert out["predicted_s"] <= out["span_s"] < out["predicted_s"] + 1e-6     # a check every 10 us


# -- mixes held to their recorded outcomes ---------------------------------------------------------------
#: Every call that names a peer or a communicator's members: a split, payload collectives, a probe and
#: receives from any source, a matched probe, an Ibarrier; the program checks what it received.
PEERS = """
def main(mpi):
    comm = mpi.COMM_WORLD
    half = comm.Split(comm.rank % 2, comm.rank)
    first = half.bcast(comm.rank, root=0)
    assert first == comm.rank % 2
    status = mpi.Status()
    if comm.rank == 0:
        got = []
        for _ in range(comm.size - 1):
            comm.probe(source=mpi.ANY_SOURCE, tag=7, status=status)
            got.append(comm.recv(source=status.Get_source(), tag=7))
        message = comm.mprobe(source=mpi.ANY_SOURCE, tag=8, status=status)
        assert message.recv() == status.Get_source() == 1 and sorted(got) == list(range(1, comm.size))
    else:
        comm.send(comm.rank, dest=0, tag=7)
        if comm.rank == 1:
            comm.send(1, dest=0, tag=8)
    comm.Ibarrier().Wait()
    request = comm.isend(comm.rank, dest=(comm.rank + 1) % comm.size)
    assert comm.recv(source=mpi.ANY_SOURCE) == (comm.rank - 1) % comm.size
    request.wait()
    return half.allreduce(comm.rank)
"""


def as_recorded(tmp_path, machine_name: str, network_kind: str, jobs: list, **options):
    """The result of ``jobs`` (job list entries, scripts named by their text) run together, or the error it
    raises as ``(type, text)``; either must be the one recorded (``golden.check``, the jobs' file paths
    left out)."""
    for job in jobs:
        if job["kind"] == "script":
            path = tmp_path / f"{job['name']}.py"
            path.write_text(job["script"])
            job["script"] = str(path)
    mix = JobMix(Machine(load_system(machine_name, []), network_kind=network_kind),
                 read_job_list(str(write(tmp_path / "jobs.json", jobs))), **options)
    try:
        out = mix.run(comm=None)
    except PPTError as exc:
        golden.check(f"{type(exc).__name__}: {exc}")
        return type(exc), str(exc)
    golden.check(json.dumps(dict(out, jobs=[dict(job, source=None) for job in out["jobs"]]), sort_keys=True))
    return out


@pytest.mark.parametrize("network_kind, allocation", [("analytic", "contiguous"), ("packet", "random")])
def test_a_mix_of_traces_and_scripts_runs_as_recorded(tmp_path, ring_trace, network_kind, allocation):
    jobs = [{"name": "ring", "kind": "trace", "trace": str(ring_trace), "ranks": 4},
            {"name": "peers", "kind": "script", "script": PEERS, "ranks": 6, "ranks_per_node": 2},
            {"name": "again", "kind": "trace", "trace": str(ring_trace), "ranks": 4},
            {"name": "exchange", "kind": "script", "script": EXCHANGE, "ranks": 5}]
    out = as_recorded(tmp_path, "fattree-4-3", network_kind, jobs, allocation=allocation, seed=3,
                       ranks_per_node=1)
    assert [job["ranks"] for job in out["jobs"]] == [4, 6, 4, 5]
    assert all(job["messages_sent"] > 0 for job in out["jobs"])
    assert all(job["packets"] > 0 if network_kind == "packet" else job["packets"] is None for job in out["jobs"])


@pytest.mark.parametrize("traffic", [{"pattern": "ur", "load": 0.4, "ranks": "rest"},
                                     {"pattern": "bitcomp", "load": 0.7, "process": "bernoulli", "message_B": 3000,
                                      "ranks": 4}])
def test_a_mix_beside_traffic_runs_as_recorded(tmp_path, ring_trace, traffic):
    """The traffic stops one lookahead after the last rank finished."""
    jobs = [{"name": "ring", "kind": "trace", "trace": str(ring_trace), "ranks": 4},
            {"name": "bg", "kind": "traffic", **traffic},
            {"name": "exchange", "kind": "script", "script": EXCHANGE, "ranks": 4, "ranks_per_node": 2}]
    out = as_recorded(tmp_path, "fattree-4-3", "packet", jobs, allocation="random", seed=5, ranks_per_node=1)
    assert all(job["packets"] > 0 for job in out["jobs"]) and out["jobs"][1]["predicted_s"] is None


def test_a_deadlock_beside_traffic_is_reported_as_recorded(tmp_path):
    jobs = [{"name": "stuck", "kind": "script", "script": DEADLOCK, "ranks": 3},
            {"name": "bg", "kind": "traffic", "pattern": "ur", "load": 0.5, "ranks": "rest"}]
    kind, text = as_recorded(tmp_path, "fattree-4-3", "packet", jobs, ranks_per_node=1)
    assert kind is DeadlockError and "3 of 3 ranks blocked" in text


@pytest.mark.parametrize("network_kind", ["analytic", "packet"])
def test_a_deadlock_in_a_mix_is_reported_as_recorded(tmp_path, network_kind):
    jobs = [{"name": "ring", "kind": "script", "script": RING, "ranks": 4},
            {"name": "stuck", "kind": "script", "script": DEADLOCK, "ranks": 3}]
    kind, text = as_recorded(tmp_path, "fattree-4-3", network_kind, jobs, ranks_per_node=1)
    assert kind is DeadlockError and text.startswith("deadlock at t=") and "rank 2" in text


# -- traffic beside MPI jobs ------------------------------------------------------------------------------
def run_mix(tmp_path, jobs: list, sampler=None) -> tuple[JobMix, dict]:
    """``jobs`` on fattree-4-3 (one rank per node): the mix and its result."""
    mix = JobMix(machine(), read_job_list(str(write(tmp_path / "jobs.json", jobs))), ranks_per_node=1)
    return mix, mix.run(sampler, comm=None)


def test_traffic_stops_one_lookahead_after_the_last_rank_finished(tmp_path, exchange):
    """Bernoulli sources at load 1 create a message every slot (wire bytes / injection bandwidth) from the
    first slot on, and bitcomp on 6 nodes has no fixed point: each node sends exactly the messages of the
    slots before the stop, the last rank's finish plus a lookahead (the exchange's last call leaves no
    overhead owed, so its ranks finish when their programs return).  Every packet injected arrives."""
    background = {"name": "bg", "kind": "traffic", "pattern": "bitcomp", "load": 1.0, "process": "bernoulli",
                  "message_B": 3000, "ranks": 6}
    mix, out = run_mix(tmp_path, [{"name": "app", "kind": "script", "script": str(exchange), "ranks": 4},
                                       background])
    net = mix.net
    app, bg = out["jobs"]
    stop_s = app["predicted_s"] + net.lookahead_s
    slot_s = net.packetizer.wire_bytes(3000) / net.injection_bandwidth_Bps
    assert bg["packets"] == 6 * net.packetizer.count(3000) * (math.ceil(stop_s / slot_s) - 1)
    assert out["network"]["packets"] == out["network"]["packets_injected"] == app["packets"] + bg["packets"]
    assert out["predicted_s"] == app["predicted_s"] < stop_s < out["span_s"]


def test_a_sampled_mix_records_every_byte_the_run_moved(tmp_path, exchange):
    """The samples of a mix beside traffic add up to the run's totals: the bytes each job's nodes injected
    are the bytes delivered from them, every link's bytes are the network's, and the last sample is at
    the run's end or after it."""
    background = {"name": "bg", "kind": "traffic", "pattern": "ur", "load": 0.5, "ranks": "rest"}
    sampler = Sampler(str(tmp_path / "samples.npz"), 1e-6)
    _, out = run_mix(tmp_path, [{"name": "app", "kind": "script", "script": str(exchange), "ranks": 4},
                                     background], sampler)
    sampler.close()
    samples = np.load(tmp_path / "samples.npz")
    injected = samples["nic_injected_B"].sum(axis=0)
    for job in out["jobs"]:
        assert injected[job["nodes"]].sum() == job["bytes_delivered"] > 0
    assert samples["nic_ejected_B"].sum() == injected.sum() == out["network"]["bytes"]
    assert samples["port_bytes"].sum() == out["network"]["link_bytes"]
    assert samples["t_s"][-2] < out["span_s"] <= samples["t_s"][-1]

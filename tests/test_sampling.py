"""Seeing inside the network: latency histograms, per-port sampling, sample files and ``ppt plot``."""
import hashlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import golden
from mpi_helpers import synthetic_trace
from ppt.cli.main import main
from ppt.interconnects.networks import latency
from ppt.interconnects.core import lib
from ppt.drivers.sampling import read_samples
from ppt.interconnects.networks.packetnet import PacketNetwork

PROGRAM = """
def main(mpi):
    comm = mpi.COMM_WORLD
    mpi.compute(2e-6 * (comm.rank % 3))
    comm.alltoall(None, nbytes=3000)
    comm.allreduce(comm.rank, nbytes=8)
    mpi.compute(1e-6)
    comm.sendrecv(None, (comm.rank + 5) % comm.size, source=(comm.rank - 5) % comm.size, nbytes=70000)
"""
RUN = ["--system", "torus-16x16x16", "--set", "topology.dims=[4,4,4]", "--ranks", "64", "--ranks-per-node", "1",
       "--json"]


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "program.py"
    path.write_text(PROGRAM)
    return path


def run_json(capsys, *argv):
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


# -- histograms ---------------------------------------------------------------------------------

def test_every_latency_falls_inside_its_bucket_and_small_ones_are_exact():
    rng = np.random.default_rng(1)
    values = np.concatenate([np.arange(0, 3000), rng.integers(0, 2**62, 2000), [2**63 - 1]])
    for ps in values.tolist():
        k = lib.ppt_hist_bucket(ps)
        lo, hi = latency.bucket_bounds_s(k)
        assert round(lo * 1e12) <= ps < round(hi * 1e12) or (ps == 2**63 - 1 and k == latency.BUCKETS - 1)
        if ps < 1 << latency.SUB_BITS:
            assert (lo, hi) == (ps * 1e-12, (ps + 1) * 1e-12)


def histogram_of(seconds):
    hist = latency.new_histogram()
    for s in seconds.tolist():
        lib.ppt_hist_add(hist, s)
    return latency.Latencies.of(hist)


def nearest_rank(values, q):
    ordered = np.sort(values)
    return ordered[math.ceil(q * len(ordered)) - 1]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_percentiles_of_kept_values_match_the_sorted_list_exactly(seed):
    rng = np.random.default_rng(seed)
    seconds = np.concatenate([rng.lognormal(math.log(1e-6), 1.0, 5000), rng.uniform(0, 1e-9, 500)])
    rng.shuffle(seconds)
    whole = histogram_of(seconds)
    for q in (0.5, 0.9, 0.99, 0.999, 1.0):
        assert whole.percentile_s(q) == nearest_rank(seconds, q)
    # a window (values after a snapshot) and two ranks merged are exact too
    first = histogram_of(seconds[:2000])
    assert histogram_of(seconds).since(first).percentile_s(0.99) == nearest_rank(seconds[2000:], 0.99)
    merged = latency.Latencies.merge([histogram_of(seconds[:100]).wire(), histogram_of(seconds[100:]).wire()])
    assert merged.percentile_s(0.999) == nearest_rank(seconds, 0.999)


def test_beyond_the_kept_values_percentiles_hold_to_the_bucket_resolution():
    rng = np.random.default_rng(7)
    seconds = rng.lognormal(math.log(1e-6), 1.0, latency.EXACT + 5000)
    approximate = histogram_of(seconds)
    assert approximate.exact is None
    ps = np.round(seconds * 1e12) * 1e-12
    for q in (0.5, 0.99, 0.999):
        assert approximate.percentile_s(q) == pytest.approx(nearest_rank(ps, q), rel=2.0 ** -(latency.SUB_BITS - 1))
    assert approximate.percentile_s(1.0, max_s=ps.max()) <= ps.max()


def test_a_lone_packet_reports_its_latency_at_every_percentile():
    # one 8-byte message to the neighbouring node of a 4x4x4 torus, no response packets: every
    # percentile is the lone packet's latency, the sum of serialization and link delays on its path
    from ppt.hardware.systems import load_system
    from ppt.machine import Machine
    from ppt.mpi import MPIJob
    machine = Machine(load_system("torus-16x16x16", ["topology.dims=[4,4,4]", "network.packet.response_B=0"]))
    topo, net = machine.preset["topology"], machine.preset["network"]
    size_B = 42                                             # 32 B header + 8 B, in 3-byte phits
    closed_form_s = (size_B / min(net["nic_bandwidth_Bps"], topo["terminal_bandwidth_Bps"])
                     + size_B / topo["link_bandwidth_Bps"] + topo["link_latency_s"]
                     + size_B / topo["terminal_bandwidth_Bps"])

    def one_message(mpi):
        if mpi.rank == 0:
            mpi.COMM_WORLD.send(None, 1, nbytes=8)
        else:
            mpi.COMM_WORLD.recv(source=0)

    job = MPIJob.on_machine(machine, 2, 1, mapping="linear")
    result = job.run(one_message)
    stats = result.network
    assert stats["packets"] == 1 and stats["max_latency_s"] == pytest.approx(closed_form_s, rel=1e-12)
    for key in ("latency_p50_s", "latency_p99_s", "latency_p999_s"):
        assert stats[key] == pytest.approx(closed_form_s, rel=1e-12)
    # the message latency adds the NIC latency at both ends to the packet's
    assert stats["message_latency_p50_s"] == pytest.approx(closed_form_s + 2 * net["nic_latency_s"], rel=1e-12)


def test_traffic_reports_window_percentiles_in_order(capsys):
    out = run_json(capsys, "traffic", "slimfly-3k", "--load", "0.3", "--warmup", "1e-6", "--time", "2e-6", "--json")
    assert 0 < out["latency_p50_s"] <= out["latency_p99_s"] <= out["latency_p999_s"]
    assert out["latency_p50_s"] < 2 * out["mean_latency_s"]


# -- sampling ---------------------------------------------------------------------------------------

def test_samples_add_up_to_the_bytes_the_run_moved_and_change_nothing(program, tmp_path, capsys):
    plain = run_json(capsys, "run", str(program), *RUN)
    path = tmp_path / "run.npz"
    sampled = run_json(capsys, "run", str(program), *RUN, "--sample-every", "2e-6", "--samples", str(path))
    del sampled["provenance"], plain["provenance"]      # their command lines and wall times differ
    assert sampled == plain
    meta, arrays = read_samples(str(path))
    assert meta["level"] == "port" and meta["period_s"] == 2e-6
    t = arrays["t_s"]
    assert np.all(np.diff(t) > 0) and t[-1] >= plain["predicted_s"] - 2e-6
    net = plain["network"]
    assert arrays["port_bytes"].sum() == net["link_bytes"]
    assert arrays["nic_ejected_B"].sum() == net["bytes"]
    assert arrays["nic_injected_B"].sum() == net["bytes"]          # everything injected was delivered
    assert arrays["packet_latency"].sum() == net["packets"]
    assert arrays["message_latency"].sum() == net["messages"]
    assert arrays["port_queued_B"].shape == (len(t), 64 * meta["radix"], meta["vcs"])


def test_router_level_sums_the_port_level(program, tmp_path, capsys):
    ports, routers = tmp_path / "ports.npz", tmp_path / "routers.npz"
    run_json(capsys, "run", str(program), *RUN, "--sample-every", "1e-6", "--samples", str(ports))
    run_json(capsys, "run", str(program), *RUN, "--sample-every", "1e-6", "--samples", str(routers),
             "--sample-level", "router")
    meta, p = read_samples(str(ports))
    _, r = read_samples(str(routers))
    per_router = p["port_bytes"].reshape(len(p["t_s"]), 64, meta["radix"]).sum(axis=2)
    assert np.array_equal(r["router_class_bytes"].sum(axis=2), per_router)
    assert np.array_equal(r["router_ejected_B"], p["nic_ejected_B"])     # one node per router, in order


def test_traffic_samples_and_plots(tmp_path, capsys):
    path = tmp_path / "wc.npz"
    run_json(capsys, "traffic", "slimfly-3k", "--pattern", "wc", "--load", "0.3", "--warmup", "1e-6",
             "--time", "1.5e-6", "--sample-every", "0.5e-6", "--samples", str(path), "--json",
             "--no-early-stop")                        # WC at 0.3 saturates: sample the whole window anyway
    meta, arrays = read_samples(str(path))
    assert list(arrays["t_s"]) == pytest.approx([0.5e-6, 1e-6, 1.5e-6, 2e-6, 2.5e-6])
    groups = arrays["group_bytes"]
    assert groups.shape == (26, 26) and groups.sum() == arrays["port_bytes"][:, arrays["port_class"].ravel() == 0].sum()
    out = run_json(capsys, "plot", str(path), "--out", str(tmp_path / "fig"), "--json")
    assert [Path(f).name for f in out["figures"]] == ["fig-utilization.png", "fig-occupancy.png", "fig-groups.png",
                                                       "fig-latency.png"]
    assert all(Path(f).stat().st_size > 10_000 for f in out["figures"])
    from PIL import Image
    assert [round(x) for x in Image.open(out["figures"][0]).info["dpi"]] == [200, 200]      # the default
    sharper = run_json(capsys, "plot", str(path), "--out", str(tmp_path / "print"), "--dpi", "300", "--json")
    with Image.open(sharper["figures"][0]) as fine, Image.open(out["figures"][0]) as default:
        assert [round(x) for x in fine.info["dpi"]] == [300, 300]
        assert fine.size[0] == round(default.size[0] * 300 / 200)


def _recorded_samples(path) -> None:
    """A sample file holds the meta and arrays recorded (``golden.check``: a digest per array)."""
    meta, arrays = read_samples(str(path))
    golden.check(json.dumps({"meta": meta, **{key: hashlib.sha256(np.ascontiguousarray(column).tobytes()).hexdigest()
                                              for key, column in arrays.items()}}, sort_keys=True, default=repr))


def _same_samples(path_a, path_b) -> None:
    """Two sample files hold the same meta and arrays, array for array."""
    meta_a, a = read_samples(str(path_a))
    meta_b, b = read_samples(str(path_b))
    assert meta_a == meta_b and sorted(a) == sorted(b)
    for key in a:
        assert np.array_equal(a[key], b[key]), key


def _mpiexec() -> str:
    mpiexec = Path(sys.executable).with_name("mpiexec")
    if not mpiexec.exists():
        pytest.skip("no mpiexec next to the Python interpreter")
    return str(mpiexec)


def test_parallel_sampling_writes_the_serial_file(program, tmp_path):
    files = {}
    for name, prefix in (("serial", []), ("parallel", [_mpiexec(), "-n", "2"])):
        files[name] = tmp_path / f"{name}.npz"
        command = [*prefix, sys.executable, "-m", "ppt.cli.main", "run", str(program), *RUN,
                   "--sample-every", "2e-6", "--samples", str(files[name])]
        subprocess.run(command, capture_output=True, text=True, timeout=180, check=True)
    _same_samples(files["serial"], files["parallel"])


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    """A 16-rank halo-and-allreduce op-stream trace (ppt.traces.writers.synthetic)."""
    return synthetic_trace(tmp_path_factory.mktemp("trace") / "synthetic", 300)


#: A replay spread over a fat tree's nodes at random (so over every process of a parallel run).
REPLAY = ["--system", "fattree-4-3", "--network", "packet", "--ranks-per-node", "1", "--mapping", "random", "--json"]


def test_a_sampled_replay_adds_up_to_the_bytes_it_moved_and_changes_nothing(trace, tmp_path, capsys):
    plain = run_json(capsys, "replay", str(trace), *REPLAY)
    path = tmp_path / "samples.npz"
    sampled = run_json(capsys, "replay", str(trace), *REPLAY, "--sample-every", "1e-6", "--samples", str(path))
    for out in (plain, sampled):
        del out["provenance"]                   # their command lines and wall times differ
    assert sampled == plain
    _, arrays = read_samples(str(path))
    t, net = arrays["t_s"], plain["network"]
    assert len(t) > 3 and np.all(np.diff(t) > 0) and t[-1] >= plain["predicted_s"] - 1e-6
    assert arrays["port_bytes"].sum() == net["link_bytes"]
    assert arrays["nic_injected_B"].sum() == arrays["nic_ejected_B"].sum() == net["bytes"]
    assert arrays["packet_latency"].sum() == net["packets"]
    assert arrays["message_latency"].sum() == net["messages"]
    _recorded_samples(path)


#: Run under mpiexec: a sampled program on the compiled engine in parallel, and on every process serially, on
#: the packet network (argv[2]: ``PacketNetwork``) or its Python model (``OwnPacketNetwork``: ppt.mpi.engine.pynet).
SAMPLED_PROGRAM = """
import sys
from mpi4py import MPI
from ppt.drivers.sampling import Sampler
from ppt.hardware.systems import load_system
from ppt.machine import Machine
from ppt.mpi import MPIJob
from ppt.mpi.settings import MPISettings
import test_sampling

namespace, world = {}, MPI.COMM_WORLD
exec(test_sampling.PROGRAM, namespace)
machine, cls = Machine(load_system("fattree-4-3"), "packet"), getattr(test_sampling, sys.argv[2])
for comm, name in ((world, "parallel"), (None, f"serial{world.rank}")):
    job = MPIJob(cls.from_machine(machine), 16, 1, mapping="random", comm=comm,
                 settings=MPISettings.from_preset(machine.preset))
    job.sampler = Sampler(f"{sys.argv[1]}/{name}.npz", 1e-6)
    job.run(namespace["main"])
    job.sampler.close()
"""


@pytest.mark.mpiexec
@pytest.mark.parametrize("processes, network", [(2, "PacketNetwork"), (4, "PacketNetwork"), (2, "OwnPacketNetwork")])
def test_a_parallel_sampled_program_writes_the_serial_file(tmp_path, processes, network):
    script = tmp_path / "sampled.py"
    script.write_text(SAMPLED_PROGRAM)
    env = dict(os.environ, PPT_QUIET="1", PYTHONPATH=str(Path(__file__).resolve().parent))
    subprocess.run([_mpiexec(), "-n", str(processes), sys.executable, str(script), str(tmp_path), network],
                   env=env, capture_output=True, text=True, timeout=300, check=True)
    for process in range(processes):
        _same_samples(tmp_path / "parallel.npz", tmp_path / f"serial{process}.npz")


@pytest.mark.mpiexec
@pytest.mark.parametrize("processes", [2, 4])
def test_a_parallel_sampled_replay_writes_the_serial_file(trace, tmp_path, processes):
    files, outputs = {}, {}
    for name, prefix in (("serial", []), ("parallel", [_mpiexec(), "-n", str(processes)])):
        files[name] = tmp_path / f"{name}.npz"
        command = [*prefix, sys.executable, "-m", "ppt.cli.main", "replay", str(trace), *REPLAY,
                   "--sample-every", "1e-6", "--samples", str(files[name])]
        outputs[name] = json.loads(subprocess.run(command, capture_output=True, text=True, timeout=300,
                                                  check=True).stdout)
        del outputs[name]["provenance"]
    assert outputs["parallel"] == outputs["serial"]
    _same_samples(files["serial"], files["parallel"])


# -- bad input -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, message", [
    (["--sample-every=-1e-6"], "must be a finite number of seconds >= 0"),
    (["--sample-every", "0"], "--sample-every must be a positive number of seconds"),
    (["--sample-every", "1e-12"], "below the network's smallest event spacing"),
    (["--sample-every", "1e-6", "--samples", "/nonexistent/folder/s.npz"], "does not exist"),
])
def test_bad_sampling_options_are_one_line_errors(argv, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status = main(["traffic", "slimfly-3k", "--load", "0.1", "--warmup", "0", "--time", "1e-6", *argv])
    err = capsys.readouterr().err
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []                  # nothing half-written


def test_a_sample_file_of_another_version_or_kind_is_refused(tmp_path, capsys):
    old = tmp_path / "old.npz"
    np.savez(old, meta=np.array(json.dumps({"version": 0})), t_s=np.zeros(1))
    assert main(["plot", str(old)]) == 2
    assert "sample file version 0" in capsys.readouterr().err
    junk = tmp_path / "junk.npz"
    junk.write_text("not a zip")
    assert main(["plot", str(junk)]) == 2
    assert "not a PPT sample file" in capsys.readouterr().err


def test_a_run_ending_on_a_sample_time_up_to_rounding_gets_one_sample_there(tmp_path, capsys):
    path = tmp_path / "s.npz"          # 37 x 1e-7 falls one rounding step short of 3e-6 + 0.7e-6
    run_json(capsys, "traffic", "slimfly-3k", "--load", "0.1", "--warmup", "3e-6", "--time", "0.7e-6",
             "--sample-every", "1e-7", "--samples", str(path), "--json")
    _, arrays = read_samples(str(path))
    assert len(arrays["t_s"]) == 37 and np.all(np.diff(arrays["t_s"]) > 0.99e-7)


class OwnPacketNetwork(PacketNetwork):
    """A subclass: the packet network's Python model runs beside the compiled engine (ppt.mpi.engine.pynet)."""


IBARRIER = """
    comm.ibarrier().wait()
"""


@pytest.mark.parametrize("level,cls,program", [("port", PacketNetwork, PROGRAM), ("router", PacketNetwork, PROGRAM),
                                              ("port", OwnPacketNetwork, PROGRAM),
                                              ("port", PacketNetwork, PROGRAM + IBARRIER)])
def test_a_sampled_program_run_writes_the_samples_recorded(level, cls, program, tmp_path):
    """The samples, array for array, and the prediction recorded when the Python twin of the engine wrote
    the same; sampling changes no prediction."""
    from ppt.drivers.sampling import Sampler
    from ppt.hardware.systems import load_system
    from ppt.interconnects.networks.nodememory import NodeMemory
    from ppt.machine import Machine
    from ppt.mpi import MPIJob
    from ppt.mpi.settings import MPISettings
    namespace = {}
    exec(program, namespace)
    machine = Machine(load_system("fattree-4-3"), "packet")

    def job():
        net = cls.from_machine(machine)
        net.node_memory = NodeMemory.from_machine(machine)
        return MPIJob(net, 16, 1, settings=MPISettings.from_preset(machine.preset))
    sampled = job()
    sampled.sampler = Sampler(str(tmp_path / "samples.npz"), 1e-6, level)
    result = sampled.run(namespace["main"])
    sampled.sampler.close()
    plain = job().run(namespace["main"])
    assert result.as_json() == plain.as_json()
    _recorded_samples(tmp_path / "samples.npz")

"""The packet-level network core: closed-form latency and throughput, conservation, no deadlock,
serial == parallel, and bad input."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from ppt.cli.main import main
from ppt.engine.parallel import AUTO
from ppt.errors import ConfigError
from ppt.interconnects.networks.packetnet import PacketNetwork
from ppt.interconnects.topologies.torus import Torus
from ppt.drivers.traffic import TrafficGenerator
from ppt.provenance import comparable
from network_checks import assert_conserved

LINK_BW, LINK_LAT, ROUTER = 1e9, 50e-9, 20e-9
TERM_BW, TERM_LAT, NIC_BW, NIC_LAT = 2e9, 10e-9, 4e9, 100e-9


def ring_network(size=8, buffer_B=None, dims=None, **network):
    topo = Torus(dims or (size,), link_bandwidth_Bps=LINK_BW, link_latency_s=LINK_LAT,
                 terminal_bandwidth_Bps=TERM_BW, terminal_latency_s=TERM_LAT, router_delay_s=ROUTER)
    cfg = {"routing": "dor", "packet": {"header_B": 16, "max_payload_B": 64},
           "nic_bandwidth_Bps": NIC_BW, "nic_latency_s": NIC_LAT}
    if buffer_B:
        cfg["buffer_B"] = buffer_B
    net = PacketNetwork(topo, {**cfg, **network})
    return net, net.simulation(comm=None if os.environ.get("PPT_TEST_SERIAL", "1") == "1" else AUTO)


def deliver_times(net, sim, src, dst, nbytes):
    arrivals = []
    net.nic(sim, dst).host = lambda payload: arrivals.append(sim.now)
    net.nic(sim, src).send_message(dst, nbytes, "m")
    sim.run()
    assert len(arrivals) == 1
    return arrivals[0]


@pytest.mark.parametrize("dst, hops", [(1, 1), (3, 3), (4, 4), (6, 2)])
def test_lone_packet_latency_is_sum_of_serialization_link_and_router_delays(dst, hops):
    net, sim = ring_network()
    size = 16 + 40                                        # header + payload of a 40-byte message
    expected = (NIC_LAT                                   # NIC traversal at the source
                + size / TERM_BW + TERM_LAT + ROUTER      # node link into the first router
                + hops * (size / LINK_BW + LINK_LAT + ROUTER)
                + size / TERM_BW + TERM_LAT               # router to the destination NIC
                + NIC_LAT)                                # NIC traversal at the destination
    assert deliver_times(net, sim, 0, dst, 40) == pytest.approx(expected, rel=1e-12)
    stats = net.merge_stats([net.stats(sim)])
    assert stats["packets"] == 1 and stats["mean_hops"] == hops


@pytest.mark.parametrize("buffer_B", [None, 4096])
def test_long_message_throughput_approaches_bottleneck_minus_headers(buffer_B):
    net, sim = ring_network(buffer_B=buffer_B)
    nbytes = 4 << 20
    elapsed = deliver_times(net, sim, 0, 3, nbytes)
    payload_rate = nbytes / elapsed
    bottleneck = LINK_BW * 64 / (64 + 16)                 # 16 header bytes per 64 payload bytes
    assert payload_rate == pytest.approx(bottleneck, rel=0.005)
    assert payload_rate < bottleneck


@pytest.mark.parametrize("dims", [(8,), (4, 4), (3, 5)])
def test_saturating_uniform_load_conserves_packets_and_drains_without_deadlock(dims):
    net, sim = ring_network(dims=dims, buffer_B=2 * 2 * 80)   # two packets per VC
    TrafficGenerator(net, "ur", 1.0, stop_s=3e-6).attach(net)
    sim.run()                                                 # sources stop at 3 us, then the network drains
    assert_conserved(net, sim)                                # and the load did fill some port's buffers


@pytest.mark.parametrize("depth, events, spread_s, far", [
    (1000, 200_000, 1e-7, 0),           # dense: most pushes land in the current epoch
    (200_000, 600_000, 1e-7, 0),        # deep: later epochs' arrays, resizes as the depth swings
    (50_000, 300_000, 1e-6, 50),        # a tail 1,000 times further: the overflow heap
    (10, 100_000, 1e-9, 3),             # sparse: empty epochs skipped, jumps into the overflow heap
])
def test_the_core_event_queue_pops_in_time_and_key_order_as_a_binary_heap_does(depth, events, spread_s, far):
    from ppt.interconnects.core import lib
    assert lib.ppt_queue_check(depth, events, spread_s, far, 7) == 0


def test_buffers_are_given_per_port_or_per_vc():
    per_port, _ = ring_network(buffer_B=1000)             # DOR has 2 VCs
    per_vc, _ = ring_network(vc_buffer_B=1000)
    assert (per_port.vc_capacity_B, per_vc.vc_capacity_B) == (500, 1000)
    with pytest.raises(ConfigError, match="both buffer_B .* and vc_buffer_B"):
        ring_network(buffer_B=1000, vc_buffer_B=1000)
    with pytest.raises(ConfigError, match="vc_buffer_B 64 holds less than one 80-byte packet"):
        ring_network(vc_buffer_B=64)
    with pytest.raises(ConfigError, match="buffer_B 100 split over 2 VCs holds less than one 80-byte packet"):
        ring_network(buffer_B=100)


def test_accepted_load_follows_offered_load_below_saturation():
    from ppt.hardware.systems import load_system
    from ppt.drivers.traffic import run_traffic
    from ppt.machine import Machine
    machine = Machine(load_system("fattree-4-3"))
    result = run_traffic(machine, "ur", 0.3, warmup_s=20e-6, time_s=300e-6)
    assert result["accepted_fraction"] == pytest.approx(0.3, rel=0.05)
    assert 2 <= result["mean_hops"] <= 4


def _mpiexec():
    found = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")
    if not found:
        pytest.skip("mpiexec not installed")
    return found


@pytest.mark.parametrize("argv", [
    ["traffic", "dragonfly-booksim", "--load", "0.6", "--routing", "ugal", "--warmup", "5e-7", "--time", "1e-6"],
    ["traffic", "dragonfly-booksim", "--load", "0.6", "--routing", "ugal", "--warmup", "5e-7", "--time", "1e-6",
     "--set", "network.planes=2", "--set", "network.packet.response_B=16"],
    ["pingpong", "darter", "--sizes", "8,65536", "--src", "0", "--dst", "700"],
    ["latency-survey", "fattree-4-3"],
])
def test_parallel_run_prints_the_same_json_as_serial(argv):
    env = dict(os.environ, PPT_QUIET="1")
    cmd = [sys.executable, "-m", "ppt.cli.main", *argv, "--json"]
    serial = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    parallel = subprocess.run([_mpiexec(), "-n", "2", *cmd], capture_output=True, text=True, env=env, timeout=300)
    assert serial.returncode == 0 and parallel.returncode == 0, serial.stderr + parallel.stderr
    assert json.loads(serial.stdout)
    assert comparable(parallel.stdout) == comparable(serial.stdout)     # the same but for the wall time


@pytest.mark.parametrize("argv, message", [
    (["traffic", "torus-16x16x16", "--load", "0"], "argument --load: must be a finite number > 0, got '0'"),
    (["traffic", "torus-16x16x16", "--load", "1.5"], "--load must be in (0, 1]"),
    (["traffic", "darter", "--load", "0.5", "--pattern", "zigzag"], "unknown traffic pattern 'zigzag'"),
    (["traffic", "darter", "--load", "0.5", "--routing", "fastest"], "unknown routing 'fastest'"),
    (["traffic", "bgq-midplane", "--load", "0.5", "--pattern", "wc"], "pattern 'wc' is not defined"),
    (["topology", "torus-16x16x16", "--set", "topology.dims=[16,0,16]"], "topology.dims must be >= 1, got 0"),
    (["topology", "nosuchsystem"], "unknown system 'nosuchsystem'"),
    (["pingpong", "darter", "--sizes", "8,-1"], "must not be negative"),
])
def test_bad_input_gives_one_line_error(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_preset_missing_a_field_is_named(tmp_path, capsys):
    preset = json.load(open(os.path.join(os.path.dirname(__file__), "..", "hardware", "systems", "darter.json")))
    del preset["network"]["nic_bandwidth_Bps"]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(preset))
    assert main(["pingpong", str(path), "--sizes", "8"]) == 2
    assert "network is missing the field 'nic_bandwidth_Bps'" in capsys.readouterr().err


def test_traffic_warns_when_the_warm_up_is_shorter_than_the_packet_latency(capsys, monkeypatch):
    monkeypatch.setenv("PPT_QUIET", "1")
    small = ["--set", "topology.p=2", "--set", "topology.a=4", "--set", "topology.h=2", "--set", "topology.g=9"]
    for warmup, warned in (("5e-8", True), ("3e-6", False)):
        argv = ["traffic", "dragonfly-booksim", *small, "--pattern", "ur", "--routing", "min", "--load", "0.3",
                "--warmup", warmup, "--time", "1e-6", "--json"]
        assert main(argv) == 0
        out, err = capsys.readouterr()
        latency = json.loads(out)["mean_latency_s"]
        assert ("exceeds the" in err) == warned == (latency > float(warmup))
    # a saturated network's latency outgrows any warm-up: it is reported as saturated instead
    argv[argv.index("ur"):argv.index("--warmup")] = ["wc", "--routing", "min", "--load", "0.9"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["saturated"] and err.startswith("saturated:") and "exceeds the" not in err

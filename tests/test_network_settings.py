"""A preset's network section is read once, into NetworkSettings: its keys are the fields, its defaults
the fields' defaults, bad values one line, and every network kind reads the same parts of it."""
import json

import pytest

from ppt.cli.main import main
from ppt.errors import ConfigError
from ppt.hardware.presets import load_processor, read_processor_config
from ppt.hardware.systems import list_systems, load_system
from ppt.interconnects.networks.kinds import build_network
from ppt.interconnects.networks.packetnet import PacketNetwork
from ppt.interconnects.networks.settings import NetworkSettings
from ppt.interconnects.topologies.torus import Torus
from ppt.machine import Machine

SECTION = {"nic_bandwidth_Bps": 4e9, "packet": {"header_B": 16, "max_payload_B": 64}}
SMALL_TORUS = ["topology.dims=[4,4,4]"]


def system(name: str, *overrides: str) -> dict:
    return load_system(name, list(overrides))


def one_line_error(call) -> str:
    with pytest.raises(ConfigError) as caught:
        call()
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_an_unknown_key_is_one_line_naming_it_and_the_valid_keys():
    message = one_line_error(lambda: NetworkSettings.from_section({**SECTION, "routng": "val"}))
    assert message.startswith("unknown setting network.routng;")
    assert all(key in message for key in NetworkSettings.keys())
    # a network section handed to the packet network directly is checked the same way
    topo = Torus([4], link_bandwidth_Bps=1e9, link_latency_s=1e-7, terminal_bandwidth_Bps=1e9)
    assert one_line_error(lambda: PacketNetwork(topo, {**SECTION, "cut_thru": True})) \
        .startswith("unknown setting network.cut_thru;")


def test_a_missing_required_key_is_named():
    assert one_line_error(lambda: NetworkSettings.from_section({"packet": SECTION["packet"]})) \
        == "network is missing the field 'nic_bandwidth_Bps'"


@pytest.mark.parametrize("key, value, message", [
    ("vcs", -2, "network.vcs must be positive, got -2"),
    ("buffer_B", 1.5, "network.buffer_B must be int"),
    ("nic_latency_s", -1e-9, "network.nic_latency_s must not be negative"),
    ("nic_bandwidth_Bps", "fast", "network.nic_bandwidth_Bps must be float"),
    ("shm_latency_s", float("nan"), "network.shm_latency_s must be float (a finite number)"),
    ("ugal_bias_packets", -1, "network.ugal_bias_packets must not be negative"),
    ("cut_through", "yes", "network.cut_through must be true or false, got 'yes'"),
    ("planes", 0, "network.planes must be at least 1, got 0"),
    ("rail_unit", "flit", "network.rail_unit 'flit' is not one of: message, packet"),
    ("fail_links", "150%", "network.fail_links must be a share of links"),
    ("fail_class", "green", "network.fail_class = 'green' is unknown"),
    ("packet", {"header_B": 16}, "network.packet is missing the field 'max_payload_B'"),
    ("packet", {**SECTION["packet"], "chunk": 3}, "unknown setting network.packet.chunk; did you mean "
                                                  "network.packet.chunk_B?"),
])
def test_a_bad_value_is_one_line_naming_the_key(key, value, message):
    assert message in one_line_error(lambda: NetworkSettings.from_section({**SECTION, key: value}))


def test_contradictory_buffer_sizes_are_one_line():
    message = one_line_error(lambda: NetworkSettings.from_section({**SECTION, "buffer_B": 8192,
                                                                  "vc_buffer_B": 4096}))
    assert "both buffer_B" in message and "keep one" in message


def test_a_bad_value_stops_every_command_with_one_line(capsys):
    """ppt topology builds no network, yet the section is checked when its machine is built."""
    assert main(["topology", "torus-16x16x16", "--set", "network.nic_latency_s=-1"]) == 2
    err = capsys.readouterr().err
    assert "network.nic_latency_s must not be negative" in err and err.count("\n") == 1


def test_a_preset_without_routing_runs_the_default_routing(tmp_path, capsys):
    preset = system("torus-16x16x16", *SMALL_TORUS)
    named = Machine(dict(preset, network={**preset["network"], "routing": "min"}))
    del preset["network"]["routing"]
    unnamed = Machine(preset)
    assert unnamed.network_settings.routing == named.network_settings.routing == "min"
    assert PacketNetwork.from_machine(unnamed).routing.name == PacketNetwork.from_machine(named).routing.name == "dor"
    # the command line and the provenance name the same default
    path = tmp_path / "torus.json"
    path.write_text(json.dumps(preset))
    assert main(["topology", str(path), "--fail-links", "5%", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["routing"] == out["provenance"]["routing"] == "min"


def vc_capacities(preset: dict) -> tuple:
    """VC buffer bytes of the packet network and the bytes past a NIC of the flow network of ``preset``."""
    return (Machine(preset, "packet").network().vc_capacity_B, Machine(preset, "flow").network().nic_buffer_B)


@pytest.mark.parametrize("routing, vcs, buffers, expected_B", [
    ("min", 4, {"buffer_B": 16384}, 16384 // 4),       # split over the hardware's VCs, not the routing's 2
    ("ugal", 6, {"buffer_B": 16384}, 16384 // 6),
    ("min", 4, {"vc_buffer_B": 4096}, 4096),
])
def test_packet_and_flow_networks_hold_as_much_per_vc_when_vcs_and_a_buffer_are_set(routing, vcs, buffers,
                                                                                     expected_B):
    preset = load_system("dragonfly-booksim")
    network = {key: value for key, value in preset["network"].items() if key not in ("buffer_B", "vc_buffer_B")}
    preset["network"] = {**network, "routing": routing, "vcs": vcs, **buffers}
    packet, flow = Machine(preset, "packet").network(), Machine(preset, "flow").network()
    assert packet.vc_capacity_B == flow.nic_buffer_B == expected_B


@pytest.mark.parametrize("overrides, message", [
    (["network.vcs=2", "network.routing=ugal"], "routing 'ugal' needs 3 virtual channels"),
    (["network.vc_buffer_B=100"], "network.vc_buffer_B 100 holds less than one 160-byte packet"),
])
@pytest.mark.parametrize("kind", ["packet", "flow"])
def test_packet_and_flow_networks_refuse_the_same_vc_settings(overrides, message, kind):
    machine = Machine(system("dragonfly-booksim", *overrides), kind)
    assert message in one_line_error(machine.network)


@pytest.mark.parametrize("kind", ["packet", "flow", "analytic"])
def test_every_network_kind_refuses_a_routing_option_no_routing_of_the_topology_takes(kind):
    machine = Machine(system("torus-16x16x16", *SMALL_TORUS, "network.ugal_bias_packets=2"), kind)
    assert "network.ugal_bias_packets: no routing of a torus uses it" in one_line_error(machine.network)


@pytest.mark.parametrize("name", list_systems())
def test_every_built_in_preset_builds_its_settings_from_its_section(name):
    preset = load_system(name)
    section = preset["network"]
    settings = Machine(preset).network_settings
    defaults = NetworkSettings(section["nic_bandwidth_Bps"], section["packet"])
    for key in NetworkSettings.keys():
        assert getattr(settings, key) == section.get(key, getattr(defaults, key)), key
    assert settings.packetizer.max_payload_B == section["packet"]["max_payload_B"]
    assert settings.rails.planes == section.get("planes", 1) and not settings.failures.active


def test_the_node_memory_takes_its_bandwidth_from_the_node_model():
    machine = Machine(system("edison"))
    copy_Bps = read_processor_config("ivybridge")["memory"]["copy_bandwidth_Bps"]
    assert machine.node_model.copy_bandwidth_Bps == copy_Bps
    assert build_network("analytic", machine).node_memory.bandwidth_Bps == copy_Bps / 2
    assert build_network("analytic", machine).node_memory.latency_s == machine.network_settings.shm_latency_s


def test_a_node_model_without_copy_bandwidth_loads_for_compute_alone(tmp_path):
    processor = read_processor_config("ivybridge")
    del processor["memory"]["copy_bandwidth_Bps"]
    path = tmp_path / "ivy.json"
    path.write_text(json.dumps(processor))
    assert load_processor(str(path)).copy_bandwidth_Bps is None

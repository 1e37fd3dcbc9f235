"""Optional topology capabilities and routing traits: what a topology or routing lacks is a one-line
error with exit status 2, never a traceback."""
import subprocess
import sys

import pytest

from ppt.errors import ConfigError
from ppt.interconnects.topologies.dragonfly import DragonflyTopology
import ppt.interconnects.networks.analytic as analytic
import ppt.interconnects.networks.flownet as flownet
from ppt.interconnects.topologies.planes import Planes
from ppt.interconnects.topologies.registry import TOPOLOGIES, load_all
from ppt.interconnects.topologies.topology import LinkClass, Topology, register_routing
from ppt.interconnects.topologies.torus import Torus

TORUS = {"link_bandwidth_Bps": 4e9, "link_latency_s": 1e-7, "terminal_bandwidth_Bps": 8e9}
SMALL_TORUS = ["traffic", "torus-16x16x16", "--set", "topology.dims=[4,4,4]", "--load", "0.1", "--warmup", "1e-7",
               "--time", "1e-7"]


def ppt(*argv):
    """``ppt ARGV`` in a fresh interpreter: (exit status, stderr)."""
    done = subprocess.run([sys.executable, "-m", "ppt.cli.main", *argv], capture_output=True, text=True, timeout=300)
    return done.returncode, done.stderr.strip()


@pytest.mark.parametrize("flags, message", [
    (["--set", "network.planes=2", "--pattern", "wc"], "pattern 'wc' is not defined for torus"),
    (["--set", "network.ugal_bias_packets=5"], "network.ugal_bias_packets: no routing of a torus uses it "
                                               "(routing 'dor' takes no options)"),
])
def test_a_missing_capability_is_one_line_and_exit_2(flags, message):
    status, err = ppt(*SMALL_TORUS, *flags)
    assert status == 2 and err.count("\n") == 0 and message in err and "Traceback" not in err, err


def test_the_base_class_declares_each_optional_capability():
    torus = Torus([3, 3], **TORUS)
    with pytest.raises(ConfigError, match="pattern 'wc' is not defined for torus"):
        torus.worst_case_table()
    with pytest.raises(ConfigError, match="not defined for torus"):
        Planes(torus, 2).worst_case_table()
    assert torus.planes == 1 and Planes(torus, 2).planes == 2
    assert torus.failed_links.shape == (0, 2) and torus.ugal_c_sf == 1.0
    assert torus.plane_routings("dor") == [] and torus.plane_hops("dor") is None
    link = LinkClass("l", 1e9, 1e-7)
    assert DragonflyTopology(1, 4, 2, 5, link, link, link, 0.0).worst_case_table()[0].size == 20


def test_routings_declare_their_traits_and_the_flow_network_reads_them():
    load_all()
    adaptive = {(kind, name) for kind, cls in TOPOLOGIES.items() for name, spec in cls.routings.items()
                if spec.adaptive}
    assert ("torus", "adaptive") in adaptive and ("dragonfly", "ugal") in adaptive and ("slimfly", "ugal") in adaptive
    assert not {("torus", "dor"), ("dragonfly", "min"), ("dragonfly", "val"), ("fattree", "mlid")} & adaptive
    for cls in TOPOLOGIES.values():
        for spec in cls.routings.values():
            # the UGAL-type routings, and they only, weigh a bias toward the minimal path
            assert ("ugal_bias_packets" in spec.options) == (spec.name in ("ugal", "par")), spec
    torus = Torus([4, 4], **TORUS)
    assert torus.routing("adaptive").adaptive and not torus.routing("dor").adaptive
    for module in (flownet, analytic):                           # no list of traits beside the registrations
        assert not hasattr(module, "ADAPTIVE_ROUTINGS"), module


def test_a_routing_refuses_an_option_it_does_not_take():
    torus = Torus([4, 4], **TORUS)
    with pytest.raises(ConfigError, match="routing 'dor' of torus takes no option 'ugal_bias_packets'"):
        torus.routing("dor", ugal_bias_packets=5)
    with pytest.raises(ConfigError, match="no routing of a torus uses it"):
        torus.network_options("adaptive", {"ugal_bias_packets": 5})
    link = LinkClass("l", 1e9, 1e-7)
    dragonfly = DragonflyTopology(1, 4, 2, 5, link, link, link, 0.0)
    # a machine's bias is kept for its UGAL routing and unused, without complaint, by MIN
    assert dragonfly.network_options("ugal", {"ugal_bias_packets": 24}) == {"ugal_bias_packets": 24.0}
    assert dragonfly.network_options("min", {"ugal_bias_packets": 24}) == {}
    with pytest.raises(ValueError, match="unknown option 'bias'"):
        register_routing(type("Fake", (Topology,), {}), "x", route="r", options=("bias",))

"""Virtual cut-through in the packet core (``network.cut_through``): closed-form latency of a lone
packet, store-and-forward unchanged when it is off, bandwidth, conservation under load, bad values."""
import os

import pytest

from ppt.engine.parallel import AUTO
from ppt.errors import ConfigError
from ppt.interconnects.packetnet import PacketNetwork
from ppt.interconnects.torus import Torus
from ppt.interconnects.traffic import TrafficGenerator
from network_checks import assert_conserved

LINK_BW, LINK_LAT, ROUTER = 1e9, 50e-9, 20e-9
TERM_LAT, NIC_BW, NIC_LAT = 10e-9, 4e9, 100e-9
HEADER_B = 16


def ring(cut_through, term_bw=2e9, size=8, buffer_B=None, dims=None):
    topo = Torus(dims or (size,), link_bandwidth_Bps=LINK_BW, link_latency_s=LINK_LAT,
                 terminal_bandwidth_Bps=term_bw, terminal_latency_s=TERM_LAT, router_delay_s=ROUTER)
    cfg = {"routing": "dor", "packet": {"header_B": HEADER_B, "max_payload_B": 64},
           "nic_bandwidth_Bps": NIC_BW, "nic_latency_s": NIC_LAT, "cut_through": cut_through}
    if buffer_B:
        cfg["buffer_B"] = buffer_B
    net = PacketNetwork(topo, cfg)
    return net, net.simulation(comm=None if os.environ.get("PPT_TEST_SERIAL", "1") == "1" else AUTO)


def deliver_time(net, sim, src, dst, nbytes):
    arrivals = []
    net.nic(sim, dst).host = lambda payload: arrivals.append(sim.now)
    net.nic(sim, src).send_message(dst, nbytes, "m")
    sim.run()
    assert len(arrivals) == 1
    return arrivals[0]


@pytest.mark.parametrize("buffer_B", [None, 4096])
@pytest.mark.parametrize("dst, hops", [(1, 1), (3, 3), (4, 4), (6, 2)])
def test_lone_packet_pays_every_hops_header_and_one_serialization_on_the_slowest_link(dst, hops, buffer_B):
    """The rule implemented (csrc/net.c, forward()): a packet of L bytes with an H-byte header crossing
    wires i = 0..n (NIC to router, router to router, router to NIC) of bandwidth b_i, each followed by
    d_i of link latency and router delay, arrives

        sum_i d_i + max_i ( sum_{j<i} H / b_j + L / b_i )

    after its first byte left the NIC: every hop's header time and link and router time up to the wire
    where the packet is serialized in full, whichever maximizes the sum (the last of the slowest links
    on the path; headers past it are hidden behind its tail), and nothing after it but the delays.
    Here the node links run at 2 GB/s (the NIC at 4 GB/s is capped by its link) and the torus links at
    1 GB/s, so the full serialization is on the last torus link: H at 2 GB/s, then H at 1 GB/s on
    hops - 1 torus links, then L at 1 GB/s; the last node link adds only its latency."""
    net, sim = ring(True, buffer_B=buffer_B)
    size = HEADER_B + 40                                  # header + payload of a 40-byte message
    expected = (NIC_LAT                                   # NIC traversal at the source
                + HEADER_B / 2e9 + TERM_LAT + ROUTER      # the header over the node link into the first router
                + (hops - 1) * HEADER_B / LINK_BW         # the header over every torus link but the last
                + size / LINK_BW                          # the whole packet over the last torus link
                + hops * (LINK_LAT + ROUTER)              # every torus link's latency and router delay
                + TERM_LAT                                # the last node link's latency (its 28 ns of wire hidden)
                + NIC_LAT)                                # NIC traversal at the destination
    assert deliver_time(net, sim, 0, dst, 40) == pytest.approx(expected, rel=1e-12)
    stats = net.merge_stats([net.stats(sim)])
    assert stats["packets"] == 1 and stats["mean_hops"] == hops


@pytest.mark.parametrize("dst, hops", [(1, 1), (3, 3)])
def test_slow_node_links_take_the_full_serialization_at_the_last_of_them(dst, hops):
    """Node links at 0.5 GB/s, slower than the torus: by the rule above the full serialization is on
    the last wire (the last of the two slowest), after the header has crossed the first node link and
    every torus link."""
    net, sim = ring(True, term_bw=0.5e9)
    size = HEADER_B + 40
    expected = (2 * NIC_LAT + HEADER_B / 0.5e9 + hops * HEADER_B / LINK_BW + size / 0.5e9
                + TERM_LAT + ROUTER + hops * (LINK_LAT + ROUTER) + TERM_LAT)
    assert deliver_time(net, sim, 0, dst, 40) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("cut_through", [False, None])
@pytest.mark.parametrize("dst, hops", [(1, 1), (4, 4)])
def test_store_and_forward_closed_form_holds_when_cut_through_is_off(dst, hops, cut_through):
    """Off (false, or not set): every wire serializes the whole packet before the next hop sees it."""
    topo = Torus((8,), link_bandwidth_Bps=LINK_BW, link_latency_s=LINK_LAT, terminal_bandwidth_Bps=2e9,
                 terminal_latency_s=TERM_LAT, router_delay_s=ROUTER)
    cfg = {"routing": "dor", "packet": {"header_B": HEADER_B, "max_payload_B": 64},
           "nic_bandwidth_Bps": NIC_BW, "nic_latency_s": NIC_LAT}
    if cut_through is not None:
        cfg["cut_through"] = cut_through
    net = PacketNetwork(topo, cfg)
    sim = net.simulation(comm=None)
    size = HEADER_B + 40
    expected = (2 * NIC_LAT + size / 2e9 + TERM_LAT + ROUTER + hops * (size / LINK_BW + LINK_LAT + ROUTER)
                + size / 2e9 + TERM_LAT)
    assert deliver_time(net, sim, 0, dst, 40) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("buffer_B", [None, 4096])
def test_long_message_still_moves_at_the_bottleneck_less_headers(buffer_B):
    """Cut-through changes latency, not bandwidth: the wire is busy for every whole packet."""
    net, sim = ring(True, buffer_B=buffer_B)
    nbytes = 4 << 20
    rate = nbytes / deliver_time(net, sim, 0, 3, nbytes)
    bottleneck = LINK_BW * 64 / (64 + HEADER_B)
    assert rate == pytest.approx(bottleneck, rel=0.005) and rate < bottleneck


def test_a_long_message_gains_only_the_pipeline_fill():
    """Both switches move a multi-packet message at the same rate; cut-through saves what it saves a
    lone packet, the fill of the store-and-forward pipeline: on 4 torus hops the last packet's
    (80 - 16) B at 2 GB/s on the first node link and at 1 GB/s on the first 3 torus links, and its
    whole 80 B at 2 GB/s on the last node link (hidden behind its tail on the last torus link)."""
    times = {}
    for on in (False, True):
        net, sim = ring(on)
        times[on] = deliver_time(net, sim, 0, 4, 64 * 100)
    assert times[False] - times[True] == pytest.approx(64 / 2e9 + 3 * 64 / LINK_BW + 80 / 2e9, rel=1e-9)


@pytest.mark.parametrize("dims", [(8,), (4, 4), (3, 5)])
def test_saturating_load_conserves_packets_and_drains_with_cut_through(dims):
    net, sim = ring(True, dims=dims, buffer_B=2 * 2 * 80)       # two packets per VC
    TrafficGenerator(net, "ur", 1.0, stop_s=3e-6).attach(net)
    sim.run()
    assert_conserved(net, sim)


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_cut_through_must_be_true_or_false(value):
    with pytest.raises(ConfigError, match="network.cut_through must be true or false"):
        ring(value)


def test_a_misspelled_cut_through_names_the_setting():
    from ppt.hardware.systems import load_system
    with pytest.raises(ConfigError, match="cut_through"):
        load_system("dragonfly-booksim", overrides=["network.cut_thru=true"])

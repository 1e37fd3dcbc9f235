"""Virtual cut-through in the packet core (``network.cut_through``): closed-form latency of a lone
packet, store-and-forward unchanged when it is off, bandwidth, conservation under load, bad values."""
import os

import pytest

from ppt.engine.parallel import AUTO
from ppt.errors import ConfigError
from ppt.interconnects.networks.packetnet import PacketNetwork
from ppt.interconnects.topologies.torus import Torus
from ppt.drivers.traffic import TrafficGenerator
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
def cut_through_latency_s(wires, header_B, size_B):
    """The rule implemented (core/net.c, forward() and router_arrive()): a packet of L bytes with an
    H-byte header crossing wires i = 0..n (NIC to router, router to router, router to NIC) of bandwidth
    b_i, each followed by d_i of link latency and router delay, arrives

        L / b_0 + sum_i d_i + sum_{i>=1} max(0, L / b_i - (L - H) / b_{i-1})

    after its first byte left the NIC: one full serialization, then per hop its delays and what its
    wire cannot overlap with the previous one (the header's time between links of equal speed,
    nothing onto a faster link, whose router waits until the rest can follow without a gap, and more
    onto a slower one).  ``wires`` lists (b_i, d_i)."""
    (b0, _), total = wires[0], size_B / wires[0][0]
    for (b_prev, _), (b, _) in zip(wires, wires[1:]):
        total += max(0.0, size_B / b - (size_B - header_B) / b_prev)
    return total + sum(d for _, d in wires)


@pytest.mark.parametrize("buffer_B", [None, 4096])
@pytest.mark.parametrize("dst, hops", [(1, 1), (3, 3), (4, 4), (6, 2)])
def test_lone_packet_pays_one_serialization_and_every_hops_header(dst, hops, buffer_B):
    """Node links at 2 GB/s (the NIC's 4 GB/s is capped by its link), torus links at 1 GB/s: the whole
    packet over the first node link, then onto the slower torus link what it cannot overlap
    (L / 1 GB/s - (L - H) / 2 GB/s), then only the header on every further torus link, and nothing on
    the faster last node link but its latency (see cut_through_latency_s)."""
    net, sim = ring(True, buffer_B=buffer_B)
    size = HEADER_B + 40                                  # header + payload of a 40-byte message
    expected = (NIC_LAT                                   # NIC traversal at the source
                + size / 2e9 + TERM_LAT + ROUTER          # the whole packet over the node link
                + size / LINK_BW - (size - HEADER_B) / 2e9 + LINK_LAT + ROUTER   # the first torus link
                + (hops - 1) * (HEADER_B / LINK_BW + LINK_LAT + ROUTER)         # the others: the header
                + TERM_LAT                                # the last node link's latency (its wire hidden)
                + NIC_LAT)                                # NIC traversal at the destination
    wires = [(2e9, TERM_LAT + ROUTER)] + hops * [(LINK_BW, LINK_LAT + ROUTER)] + [(2e9, TERM_LAT)]
    assert expected == pytest.approx(2 * NIC_LAT + cut_through_latency_s(wires, HEADER_B, size), rel=1e-12)
    assert deliver_time(net, sim, 0, dst, 40) == pytest.approx(expected, rel=1e-12)
    stats = net.merge_stats([net.stats(sim)])
    assert stats["packets"] == 1 and stats["mean_hops"] == hops


@pytest.mark.parametrize("dst, hops", [(1, 1), (3, 3)])
def test_a_slow_first_link_delays_the_head_and_a_slow_last_link_adds_its_serialization(dst, hops):
    """Node links at 0.5 GB/s, slower than the torus: the first router holds the packet until the rest
    of it can follow onto the 1 GB/s torus link without a gap (nothing added there), the further torus
    links add the header, and the slow last node link adds L / 0.5 GB/s - (L - H) / 1 GB/s."""
    net, sim = ring(True, term_bw=0.5e9)
    size = HEADER_B + 40
    expected = (2 * NIC_LAT + size / 0.5e9 + TERM_LAT + ROUTER + hops * (LINK_LAT + ROUTER)
                + (hops - 1) * HEADER_B / LINK_BW + size / 0.5e9 - (size - HEADER_B) / LINK_BW + TERM_LAT)
    wires = [(0.5e9, TERM_LAT + ROUTER)] + hops * [(LINK_BW, LINK_LAT + ROUTER)] + [(0.5e9, TERM_LAT)]
    assert expected == pytest.approx(2 * NIC_LAT + cut_through_latency_s(wires, HEADER_B, size), rel=1e-12)
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


@pytest.mark.parametrize("buffer_B", [None, 4096])
def test_a_short_last_packet_overtakes_a_competitor_under_store_and_forward_only(buffer_B):
    """Why a 1 KiB allreduce can lose to store-and-forward (docs/flow-vs-packet.md): a router queues the
    packets for an output in the order it sees them, at the tail under store-and-forward and at the head
    under cut-through.  Two nodes of router 0 send to two nodes of router 1 over the one ring link, every
    wire at 1 GB/s (1 B/ns): A = 80 B from node 0 (packets of P = 80 B and S = 32 B), B = 64 B from node 1
    (one 80 B packet) leaving its NIC 50 ns later.  Store-and-forward sees A's short packet S after A's
    first packet, before B's (142 < 160 ns), so A goes first; cut-through sees B's head a whole packet
    before A's second head (96 < 126 ns), so B goes between A's packets and A ends after B."""
    topo = Torus((4,), link_bandwidth_Bps=LINK_BW, link_latency_s=LINK_LAT, terminal_bandwidth_Bps=LINK_BW,
                 terminal_latency_s=TERM_LAT, router_delay_s=ROUTER, nodes_per_router=2)
    P, S, H, gap = 80 / LINK_BW, 32 / LINK_BW, HEADER_B / LINK_BW, 50e-9
    into, across, out = TERM_LAT + ROUTER, LINK_LAT + ROUTER, TERM_LAT     # each wire's delays after it
    expected = {
        # A's two packets cross the link back to back, then leave router 1 one after the other
        False: {"A": 2 * NIC_LAT + (P + into) + P + across + P + S + out,
                # B's packet crosses the link after both of A's, then its own node link
                "B": 2 * NIC_LAT + (P + into) + P + S + P + across + P + out},
        # B's head reaches router 0 at gap + H + into, before A's second head at P + H + into
        True: {"A": 2 * NIC_LAT + (H + into) + 2 * P + H + across + S + out,
               "B": 2 * NIC_LAT + (H + into) + P + H + across + P + out},
    }
    assert expected[False] == pytest.approx({"A": 582e-9, "B": 662e-9}, rel=1e-12)
    assert expected[True] == pytest.approx({"A": 534e-9, "B": 502e-9}, rel=1e-12)
    for on in (False, True):
        cfg = {"routing": "dor", "packet": {"header_B": HEADER_B, "max_payload_B": 64},
               "nic_bandwidth_Bps": NIC_BW, "nic_latency_s": NIC_LAT, "cut_through": on}
        if buffer_B:
            cfg["buffer_B"] = buffer_B
        net = PacketNetwork(topo, cfg)
        sim = net.simulation(comm=None)
        arrivals = {}
        for node in (2, 3):
            net.nic(sim, node).host = lambda payload: arrivals.setdefault(payload, sim.now)
        net.nic(sim, 0).send_message(2, 80, "A")
        net.nic(sim, 1).send_message(3, 64, "B", delay_s=gap)
        sim.run()
        assert arrivals == pytest.approx(expected[on], rel=1e-12)


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

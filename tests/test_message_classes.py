"""Traffic classes per kind of message inside one MPI job (``mpi.class_of``): a lone message in its class
pays the closed-form latency, a rendezvous stays in its class, collectives in a class of their own beat a
halo flood, serial and ``mpiexec -n 2`` agree to the byte, and bad settings are one-line errors."""
import json
import sys

import pytest

from ppt.errors import ConfigError
from ppt.mpi import MPIJob
from ppt.mpi.settings import MPISettings
from test_traffic_classes import HEADER_B, PAYLOAD_B, lone_packet_s, ring

#: The halo each flooding rank sends across the ring, bytes.
HALO_B = 256 * 1024


def lone_send(mpi, nbytes, tag):
    """Rank 0 sends one message to rank 3 (three hops on the ring); rank 3 returns when it arrived."""
    comm = mpi.COMM_WORLD
    if comm.rank == 0:
        comm.send(None, 3, tag=tag, nbytes=nbytes)
    elif comm.rank == 3:
        comm.recv(source=0, tag=tag)
        return mpi.Wtime()


def run(main, *args, class_of=None, **network):
    """``main`` on 8 ranks, one per node of the test ring; its result and the ring's per-class packets."""
    net, _ = ring(**network)
    result = MPIJob(net, 8, comm=None, settings=MPISettings(class_of=class_of)).run(main, *args)
    classes = result.as_json()["network"].get("classes", [])
    return result, [c["packets"] for c in classes]


@pytest.mark.parametrize("class_of", [{"5": 1}, {"0-9": 1, "10-19": 0}, {"point-to-point": 1},
                                      {"collectives": 0, "point-to-point": 1}])
def test_a_lone_message_in_class_1_pays_serialization_links_and_routers(class_of):
    result, packets = run(lone_send, 40, 5, class_of=class_of, traffic_classes=2)
    assert result.returns[3] == pytest.approx(lone_packet_s(3, HEADER_B + 40), rel=1e-12)
    assert packets == [0, 1]


def test_a_message_no_key_covers_stays_in_its_jobs_class():
    _, packets = run(lone_send, 40, 5, class_of={"collectives": 1, "6-9": 1}, traffic_classes=2)
    assert packets == [1, 0]


def test_a_rendezvous_its_control_messages_and_data_travel_in_the_sends_class():
    nbytes = 200 * PAYLOAD_B                    # past the eager threshold (8 KiB)
    _, packets = run(lone_send, nbytes, 5, class_of={"5": 2}, traffic_classes=3)
    assert packets == [0, 0, 2 + 200]           # RTS, CTS, the data


def behind_a_long_message(mpi, long_B):
    """Rank 0 sends ``long_B`` bytes to rank 4 (tag 1), then 40 bytes to rank 3 (tag 5), which each return
    when theirs arrived.  (To one peer the short message would wait anyway: the engine matches a pair's
    messages in the order they were sent.)"""
    comm = mpi.COMM_WORLD
    if comm.rank == 0:
        requests = [comm.isend(None, 4, tag=1, nbytes=long_B), comm.isend(None, 3, tag=5, nbytes=40)]
        for request in requests:
            request.wait()
    elif comm.rank in (3, 4):
        comm.recv(source=0)
        return mpi.Wtime()


@pytest.mark.parametrize("network", [{}, {"buffer_B": 4096}])
def test_a_nic_sends_a_high_priority_message_before_a_long_one_queued_ahead(network):
    long_B = 64 * 1024
    settings = MPISettings(eager_threshold_B=long_B, class_of={"5": 1})

    def arrivals(**classes):
        net, _ = ring(traffic_classes=2, **classes, **network)
        return MPIJob(net, 8, comm=None, settings=settings).run(behind_a_long_message, long_B).returns[3:5]

    # the short message waits for at most the long one's packet on the wire at the NIC and at each port
    wait_s = (HEADER_B + PAYLOAD_B) / 1e9 * 5
    short_s, long_s = arrivals(class_priority=[0, 1])
    assert short_s < lone_packet_s(3, HEADER_B + 40) + wait_s < 0.1 * long_s
    short_s, long_s = arrivals()                    # equal classes: the short one's class gets half the NIC at once
    assert short_s < lone_packet_s(3, HEADER_B + 40) + 2 * wait_s < 0.1 * long_s


def test_in_one_class_a_nic_sends_in_order_the_long_message_first():
    long_B = 64 * 1024
    net, _ = ring(traffic_classes=2)
    settings = MPISettings(eager_threshold_B=long_B)
    short_s, long_s = MPIJob(net, 8, comm=None, settings=settings).run(behind_a_long_message, long_B).returns[3:5]
    assert short_s > 0.5 * long_s


#: Messages each class sends in the NIC share tests, and their size (eager), bytes.
SHARE_MESSAGES, SHARE_B = 20, 8192


def two_streams(mpi):
    """Rank 0 sends SHARE_MESSAGES messages to rank 3 (tag 5) and as many to rank 5 (tag 1), alternately;
    ranks 3 and 5 return when their last arrived.  The two go opposite ways round the ring, so only rank 0's
    NIC is shared."""
    comm = mpi.COMM_WORLD
    if comm.rank == 0:
        requests = []
        for _ in range(SHARE_MESSAGES):
            requests += [comm.isend(None, 3, tag=5, nbytes=SHARE_B), comm.isend(None, 5, tag=1, nbytes=SHARE_B)]
        mpi.Request.waitall(requests)
    elif comm.rank in (3, 5):
        for _ in range(SHARE_MESSAGES):
            comm.recv(source=0)
        return mpi.Wtime()


@pytest.mark.parametrize("network", [{}, {"buffer_B": 4096}])
@pytest.mark.parametrize("shares,priority,first,first_done", [([0.25, 0.75], None, 1, 1 / 1.5),
                                                               ([0.75, 0.25], None, 0, 1 / 1.5),
                                                               ([0.5, 0.5], None, None, 1.0),
                                                               ([0.5, 0.5], [0, 1], 1, 0.5)])
def test_a_nic_shares_its_injection_among_classes_by_their_shares(shares, priority, first, first_done, network):
    """Both classes backlogged at a NIC slower than the links: the class of share s ends its bytes B at
    B / (s x bandwidth), while both have some left, and the other ends at 2B / bandwidth; with priority the
    favoured class has the NIC alone until it is done."""
    settings = MPISettings(eager_threshold_B=SHARE_B, class_of={"5": 1})
    net, _ = ring(traffic_classes=2, class_shares=shares, class_priority=priority, nic_bandwidth_Bps=0.5e9,
                  **network)
    done = MPIJob(net, 8, comm=None, settings=settings).run(two_streams).returns
    class1_s, class0_s = done[3], done[5]
    assert min(class0_s, class1_s) / max(class0_s, class1_s) == pytest.approx(first_done, rel=0.02)
    if first is not None:
        assert (class1_s < class0_s) == (first == 1)


def flood(mpi):
    """Even nodes: ten 8-byte allreduces among themselves, timed (s); odd nodes: a halo of HALO_B each way
    with the node across the ring, whose packets cross the even nodes' routers."""
    world = mpi.COMM_WORLD
    comm = world.Split(world.rank % 2, world.rank)
    if world.rank % 2:
        peer = (world.rank + 4) % world.size
        world.sendrecv(None, peer, source=peer, nbytes=HALO_B, sendtag=1, recvtag=1)
        return None
    start = mpi.Wtime()
    for _ in range(10):
        comm.allreduce(1, nbytes=8)
    return mpi.Wtime() - start


@pytest.mark.parametrize("network", [{}, {"buffer_B": 4096}])
def test_collectives_in_a_high_priority_class_beat_a_halo_flood(network):
    shared, _ = run(flood, **network)
    own, packets = run(flood, class_of={"collectives": 1}, traffic_classes=2, class_priority=[0, 1], **network)
    shared_s, own_s = (max(r for r in result.returns if r is not None) for result in (shared, own))
    assert own_s < 0.5 * shared_s
    assert packets[0] >= 2 * HALO_B // PAYLOAD_B and packets[1] > 0


@pytest.mark.parametrize("class_of, message", [
    ({"collectives": 2}, "names traffic class 2, but the packet network"),
    ({"0-9": 1, "5-20": 0}, "tag ranges 0-9 and 5-20 overlap"),
    ({"7": 0, "7-7": 1}, "tag ranges 7-7 and 7-7 overlap"),
    ({"9-3": 1}, "must have 0 <= LO <= HI"),
    ({"halo": 1}, "key 'halo' is none of"),
    ({"collectives": -1}, "must be a class number"),
    ({"collectives": True}, "must be a class number"),
    ([1], "must be a mapping"),
])
def test_bad_message_classes_are_one_line_errors(class_of, message):
    with pytest.raises(ConfigError, match=message) as error:
        run(lone_send, 40, 5, class_of=class_of, traffic_classes=2)
    assert "\n" not in str(error.value)


def test_classes_on_a_network_without_them_are_refused():
    from mpi_helpers import network
    with pytest.raises(ConfigError, match="has 1 class; classes count from 0"):
        MPIJob(network(2), 2, comm=None, settings=MPISettings(class_of={"collectives": 1})).run(lone_send, 8, 0)


#: A model of collectives, a rendezvous-sized exchange in tag 7 and small messages in tag 3.
MODEL = """
def main(mpi):
    comm = mpi.COMM_WORLD
    total = comm.allreduce(comm.rank, nbytes=8)
    right, left = (comm.rank + 1) % comm.size, (comm.rank - 1) % comm.size
    got = comm.sendrecv(("from", comm.rank), right, source=left, nbytes=200000, sendtag=7, recvtag=7)
    small = comm.sendrecv(comm.rank, left, source=right, nbytes=64, sendtag=3, recvtag=3)
    return total, got, small, comm.bcast(comm.rank, root=3)
"""


@pytest.mark.mpiexec
def test_message_classes_over_two_processes_print_the_serial_json(tmp_path):
    from test_compiled_parallel import _run, _without_wall_time
    (tmp_path / "model.py").write_text(MODEL)
    command = [sys.executable, "-m", "ppt.cli.main", "run", str(tmp_path / "model.py"), "--system",
               "dragonfly-booksim", "--ranks", "24", "--ranks-per-node", "2", "--mapping", "random", "--seed", "5",
               "--network", "packet", "--json", "--set", "network.traffic_classes=3",
               "--set", "network.class_priority=[0,2,1]", "--set", 'mpi.class_of={"collectives": 1, "5-9": 2}']
    serial, parallel = _run(command), _run(command, 2)
    assert serial.returncode == parallel.returncode == 0, serial.stderr + parallel.stderr
    assert _without_wall_time(parallel.stdout) == _without_wall_time(serial.stdout)
    assert all(c["packets"] > 0 for c in json.loads(serial.stdout)["network"]["classes"])


def test_a_trace_replay_puts_collectives_and_point_to_point_in_their_classes(tmp_path):
    from mpi_helpers import synthetic_trace
    from ppt.traces.formats import open_trace
    from ppt.traces.replay import replay
    trace = open_trace(str(synthetic_trace(tmp_path / "synthetic", 400)))

    def packets(class_of):
        net, _ = ring(traffic_classes=2)
        job = MPIJob(net, trace.num_ranks, ranks_per_node=2, comm=None, settings=MPISettings(class_of=class_of))
        return [c["packets"] for c in replay(trace, job)["network"]["classes"]]

    collectives = packets({"collectives": 1})
    assert min(collectives) > 0
    assert packets({"point-to-point": 1, "collectives": 0}) == collectives[::-1]

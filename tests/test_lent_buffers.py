"""Large sends lend their buffer to the message, and a wait on many requests blocks its process once.

A send of at least ``LEND_B`` bytes of contiguous numpy data is not copied at the call: the receive copies
the data from the sender's buffer, once, or the sender copies it into the receive's buffer when it takes
the send back (a rendezvous names the receive), or into a snapshot when the receive is not known.  MPI
lets a sender change its buffer only once it has the send back, so every receive must see the data as
it was sent, whatever the order in which the two ranks go on.  A wait on many requests is carried on by
the engine as each completes; the rank's process is switched to once, when the last one is taken.
"""
import numpy as np
import pytest

from mpi_helpers import run
from ppt.errors import DeadlockError
from ppt.mpi.engine.program import _Process
from ppt.mpi.surface.core import fast

N = 1 << 18             # bytes of the large messages: above LEND_B, and the eager limit of the helpers


def test_large_messages_are_lent():
    assert N >= fast.LEND_B


@pytest.fixture
def snapshots(monkeypatch):
    """The sizes of the snapshots the lending sends take (bytes)."""
    taken = []

    def counted(array):
        taken.append(int(array.nbytes))
        return np.array(array, copy=True)
    monkeypatch.setattr(fast, "snapshot", counted)
    return taken


def exchanges(MPI):
    """Rank 0 sends large messages in every form and changes its buffer as soon as it may; rank 1 receives
    them in every form, late or early.  Rank 1 returns what it received, reduced to checks."""
    comm = MPI.COMM_WORLD
    if comm.rank == 0:
        buf = np.arange(N, dtype=np.uint8)
        comm.Isend([buf, MPI.BYTE], 1, 1).Wait()     # received late, after rank 1 computes
        buf[:] = 3
        comm.Send([buf, MPI.BYTE], 1, 2)
        buf[:] = 5
        MPI.Request.Waitall([comm.Isend([buf, MPI.BYTE], 1, 3) for _ in range(3)])
        buf[:] = 11
        comm.Send([buf, MPI.BYTE], 1, 4)             # to a lowercase receive
        buf[:] = 21
        comm.Sendrecv_replace([buf, MPI.BYTE], 1, 5, 1, 5)
        comm.Send([np.full(N // 8, 1.5), MPI.DOUBLE], 1, 6)
        return [int(buf.min()), int(buf.max())]
    out = np.zeros(N, dtype=np.uint8)
    MPI.compute(1e-3)
    comm.Recv([out, MPI.BYTE], 0, 1)
    checks = [bool((out == np.arange(N, dtype=np.uint8)).all())]
    comm.Recv([out, MPI.BYTE], 0, 2)
    checks.append(bool((out == 3).all()))
    blocks = [np.zeros(N, np.uint8) for _ in range(3)]
    MPI.Request.Waitall([comm.Irecv([block, MPI.BYTE], 0, 3) for block in blocks])
    checks.append(all(bool((block == 5).all()) for block in blocks))
    checks.append(bool((np.asarray(comm.recv(source=0, tag=4)) == 11).all()))
    out[:] = 22
    comm.Sendrecv_replace([out, MPI.BYTE], 0, 5, 0, 5)
    checks.append(bool((out == 21).all()))
    doubles = np.zeros(N // 8)
    comm.Recv([doubles, MPI.DOUBLE], 0, 6)
    checks.append(bool((doubles == 1.5).all()))
    return checks


@pytest.mark.parametrize("ranks_per_node", [1, 2])
def test_every_receive_gets_the_data_as_it_was_sent(ranks_per_node):
    returns = run(2, exchanges, ranks_per_node=ranks_per_node).returns
    assert returns[1] == [True] * 6
    assert returns[0] == [22, 22]                    # Sendrecv_replace brought rank 1's data


def test_a_rendezvous_into_a_posted_receive_copies_once(snapshots):
    def main(MPI):
        comm = MPI.COMM_WORLD
        buf = np.full(N, comm.rank + 1, dtype=np.uint8)
        if comm.rank == 0:
            comm.Send([buf, MPI.BYTE], 1, 0)
            buf[:] = 0
        else:
            comm.Recv([buf, MPI.BYTE], 0, 0)
        return int(buf.sum())
    assert run(2, main).returns == [0, N]
    assert snapshots == []


def test_a_send_nobody_has_received_yet_is_kept_as_a_snapshot(snapshots):
    def main(MPI):
        comm = MPI.COMM_WORLD
        if comm.rank == 0:
            buf = np.full(N, 4, dtype=np.uint8)
            comm.Isend([buf, MPI.BYTE], 1, 0).Wait()
            buf[:] = 0
            comm.Barrier()
            return 0
        comm.Barrier()                              # the send is back before the receive is posted
        got = comm.recv(source=0, tag=0)
        return int(np.asarray(got).sum())
    returns = run(2, main, eager_B=N).returns       # eager: the send is back at once
    assert returns == [0, 4 * N]
    assert snapshots == [N]


def test_a_small_send_is_copied_at_the_call(snapshots):
    def main(MPI):
        comm = MPI.COMM_WORLD
        buf = np.full(16, 2, dtype=np.uint8)
        if comm.rank == 0:
            req = comm.Isend([buf, MPI.BYTE], 1, 0)
            buf[:] = 0                               # erroneous in MPI, but it shows when the copy is made
            req.Wait()
            return 0
        comm.Recv([buf, MPI.BYTE], 0, 0)
        return int(buf.sum())
    assert run(2, main).returns == [0, 32]
    assert snapshots == []                           # small arrays are copied, not kept in recycled buffers


def test_a_truncated_large_message_is_the_receivers_error():
    def main(MPI):
        comm = MPI.COMM_WORLD
        if comm.rank == 0:
            comm.Send([np.zeros(N, np.uint8), MPI.BYTE], 1, 0)
        else:
            comm.Recv([np.zeros(N // 2, np.uint8), MPI.BYTE], 0, 0)

    with pytest.raises(Exception, match=f"rank 1 in MPI_Recv: message truncated: {N} bytes arrived for a "
                                        f"receive buffer of {N // 2} bytes"):
        run(2, main)


def test_a_waitall_blocks_its_process_once(monkeypatch):
    blocked = []
    original = _Process.hibernate

    def counted(self, why=None):
        blocked.append(self.rank.me)
        return original(self, why)
    monkeypatch.setattr(_Process, "hibernate", counted)

    def main(MPI, count):
        comm = MPI.COMM_WORLD
        if comm.rank == 0:
            for tag in range(count):                  # one after another, each arriving at its own time
                comm.Send([np.zeros(1024, np.uint8), MPI.BYTE], 1, tag)
            return None
        blocks = [np.zeros(1024, np.uint8) for _ in range(count)]
        MPI.Request.Waitall([comm.Irecv([block, MPI.BYTE], 0, tag) for tag, block in enumerate(blocks)])
        return MPI.Wtime()
    times = [run(2, main, count).returns[1] for count in (1, 16)]
    assert blocked.count(1) == 2                      # rank 1: once per run, for 1 and for 16 requests
    assert times[1] > times[0]


def test_a_waitall_deadlock_names_the_request_it_stands_at():
    def main(MPI):
        comm = MPI.COMM_WORLD
        if comm.rank == 0:
            for tag in (0, 1):
                comm.Send([np.zeros(8, np.uint8), MPI.BYTE], 1, tag)
            return
        blocks = [np.zeros(8, np.uint8) for _ in range(3)]
        MPI.Request.Waitall([comm.Irecv([block, MPI.BYTE], 0, tag) for tag, block in enumerate(blocks)])

    with pytest.raises(DeadlockError) as failure:
        run(2, main)
    assert "MPI_Waitall(source=0, tag=2, comm=" in str(failure.value)      # the engine took tags 0 and 1


def test_a_sender_taking_its_send_back_late_finds_the_receive_it_matched():
    """Rank 1's large receive is taken by the engine while rank 1 still waits for another one, and its engine
    index goes to rank 3's new receive before rank 0 has its send back: rank 0's data must go to rank 1's
    buffer only."""
    def main(MPI):
        comm = MPI.COMM_WORLD
        if comm.rank == 0:
            req = comm.Isend([np.full(N, 1, np.uint8), MPI.BYTE], 1, 0)
            MPI.compute(2e-3)                       # has the send back after rank 3 posts its receive
            req.Wait()
            return None
        if comm.rank == 1:
            first = np.zeros(N, np.uint8)
            MPI.Request.Waitall([comm.Irecv([first, MPI.BYTE], 0, 0),
                                 comm.Irecv([np.zeros(1, np.uint8), MPI.BYTE], 2, 9)])
            return [int(first.min()), int(first.max())]
        if comm.rank == 2:
            MPI.compute(5e-3)
            comm.Send([np.zeros(1, np.uint8), MPI.BYTE], 1, 9)
            comm.Send([np.full(N, 2, np.uint8), MPI.BYTE], 3, 0)
            return None
        MPI.compute(1e-3)
        second = np.zeros(N, np.uint8)
        comm.Irecv([second, MPI.BYTE], 2, 0).Wait()
        return [int(second.min()), int(second.max())]
    returns = run(4, main).returns
    assert returns[1] == [1, 1] and returns[3] == [2, 2]

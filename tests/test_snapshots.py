"""Snapshots of large send buffers (ppt.mpi.collectives.payload): each a copy nothing else changes, made in
recycled memory, so a program streaming large messages does not ask the kernel for fresh pages per message."""
import subprocess
import sys
import textwrap

import numpy as np

from ppt.mpi.collectives.payload import RECYCLED_B, SnapshotBuffers, snapshot

FAULTS = textwrap.dedent("""
    import resource
    import numpy as np
    from ppt.mpi.collectives.payload import snapshot
    message = np.ones(1 << 20, np.uint8)
    def window():                                   # 32 messages of 1 MiB in flight, then delivered
        in_flight = [snapshot(message) for _ in range(32)]
        del in_flight
    window()                                        # the first round's pages are new
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(10):
        window()
    print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
""")


def test_a_window_of_large_messages_reuses_its_memory():
    faults = int(subprocess.run([sys.executable, "-c", FAULTS], capture_output=True, text=True,
                                check=True).stdout)
    assert faults < 32 * (1 << 20) // 4096 // 4       # a round touches 8,192 pages when they are fresh


def test_a_snapshot_is_a_copy_of_its_own():
    data = np.arange(RECYCLED_B, dtype=np.float64).reshape(-1, 16)
    first = snapshot(data)
    data[:] = -1.0
    assert first[3, 5] == 3 * 16 + 5 and first.shape == data.shape and first.dtype == data.dtype
    second = snapshot(data)
    assert not np.shares_memory(first, second)          # both alive: two buffers
    kept = second.copy()
    del first
    third = snapshot(np.zeros_like(data))               # the first one's buffer, free again
    assert not np.shares_memory(third, second) and np.array_equal(second, kept)


def test_strided_and_fortran_arrays_are_copied_in_order():
    data = np.asfortranarray(np.arange(2 * RECYCLED_B, dtype=np.int32).reshape(64, -1))[:, ::2]
    copy = snapshot(data)
    assert np.array_equal(copy, data) and copy.flags.c_contiguous


def test_beyond_the_limit_snapshots_are_plain_copies():
    buffers = SnapshotBuffers(limit_B=RECYCLED_B)
    data = np.ones(RECYCLED_B, np.uint8)
    kept = [buffers.copy(data), buffers.copy(data)]
    assert buffers.kept_B == RECYCLED_B and kept[1].base is None

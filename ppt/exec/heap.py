"""The host heap of a ``ppt exec`` run: freed memory kept for the next allocation.

Every simulated rank's send buffer is snapshotted at the send (the ranks share one address space), so a
program that streams large messages allocates and frees a large block per message.  glibc serves blocks
above its mmap threshold (128 KiB at first) with fresh pages from the kernel, each zeroed on first touch,
and gives them back at the free: measured on ``benchmarks/osu/osu_bw.py`` (64 messages in flight, up to
4 MiB each) that was 5.2 s of system time in a 13 s run.  :func:`keep_freed_memory` raises the threshold to
32 MiB (glibc's largest) and the heap's trim threshold to 512 MiB, so a freed block is reused by the next
snapshot; the process then keeps its peak heap until it ends.  Elsewhere than glibc it does nothing.
"""
from __future__ import annotations

import ctypes
import ctypes.util

#: mallopt's parameters (glibc's malloc.h): M_TRIM_THRESHOLD and M_MMAP_THRESHOLD.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
#: Blocks up to this size come from the heap, bytes (glibc's maximum on 64-bit hosts).
MMAP_THRESHOLD_B = 32 << 20
#: Free memory at the heap's top kept up to this size, bytes.
TRIM_THRESHOLD_B = 512 << 20


def keep_freed_memory() -> bool:
    """Tune the C heap as the module says; whether the host's C library took the settings."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError, TypeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_B)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD_B))

"""ppt exec keeps freed heap memory for the next allocation (ppt.exec.heap): a program that holds 32 blocks of
1 MiB at once (as a window of large messages in flight does), frees them and starts again touches fresh kernel
pages in its first round only."""
import subprocess
import sys
import textwrap

import pytest

PROGRAM = textwrap.dedent("""
    import resource, sys
    import numpy as np
    from ppt.exec.heap import keep_freed_memory
    if sys.argv[1] == "keep" and not keep_freed_memory():
        print("unsupported")
        raise SystemExit
    def window():
        blocks = [np.ones(1 << 20, np.uint8) for _ in range(32)]
        del blocks
    window()                                        # the first round's pages are new either way
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(10):
        window()
    print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
""")


def faults(mode: str) -> str:
    return subprocess.run([sys.executable, "-c", PROGRAM, mode], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_freed_blocks_are_reused():
    kept = faults("keep")
    if kept == "unsupported":
        pytest.skip("the host's C library has no mallopt (not glibc)")
    round_pages = 32 * (1 << 20) // 4096
    assert int(kept) < round_pages // 4         # the freed blocks came back
    assert int(faults("default")) > 5 * round_pages     # glibc's default gives them back to the kernel

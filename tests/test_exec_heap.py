"""Each rank's own heap under ``ppt exec`` (ppt/exec/rankheap.c, ppt.exec.heaps): numpy's arrays stay
correct through it, its page faults are those of a fresh process under glibc, and a measured run gives
every rank a heap of its own."""
import json
import platform
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from greenlet import greenlet

from ppt.cli.main import main
from ppt.exec import heaps

try:
    from numpy._core.multiarray import get_handler_name
except ImportError:                              # numpy 1.x
    from numpy.core.multiarray import get_handler_name

GLIBC = platform.libc_ver()[0] == "glibc"

#: A loop of large temporaries (pi.py's kernel, 8 MB arrays), whose page faults depend on the heap.
KERNEL = textwrap.dedent("""
    import ctypes, resource, numpy as np
    ctypes.CDLL(None).prctl(41, 1, 0, 0, 0)     # PR_SET_THP_DISABLE: 4 KiB pages, whatever huge pages are free
    def kernel():
        h, total = 1 / 80e6, 0.0
        for start in range(0, 20 << 20, 1 << 20):
            x = h * (np.arange(start, start + (1 << 20), dtype=np.float64) + 0.5)
            total += float(np.sum(4.0 / (1.0 + x * x)))
        return total
    def faults():
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
""")


def _faults(setup: str) -> int:
    """Page faults of KERNEL run after ``setup`` in a fresh interpreter."""
    code = KERNEL + textwrap.dedent(setup) + "\nbefore = faults(); kernel(); print(faults() - before)\n"
    return int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


def test_arrays_keep_their_contents_and_zeros_are_zero():
    def rank():
        rng = np.random.default_rng(7)
        live = {}
        for step in range(400):
            size = int(rng.choice([10, 300, 5_000, 70_000, 1 << 20, 3 << 20]))
            key = int(rng.integers(40))
            if key in live:
                array, value = live.pop(key)
                assert (array == value).all()
            if step % 3 == 0:
                array = np.zeros(size)           # calloc: reused memory must read zero
                assert not array.any()
                array += step
            else:
                array = np.full(size, float(step))
            live[key] = (array, float(step))
        grown = np.arange(100_000.0)
        grown.resize(400_000, refcheck=False)    # realloc keeps the first part
        assert (grown[:100_000] == np.arange(100_000.0)).all()
        for array, value in live.values():
            assert (array == value).all()
        return np.ones(2 << 20)

    def in_own_heap():
        with heaps.own_heap(2):
            kept = rank()
            assert get_handler_name(kept) == "ppt_rank_heap"
        return kept

    kept = greenlet(in_own_heap).switch()
    assert get_handler_name(np.ones(1 << 20)) != "ppt_rank_heap"   # the caller's heap is its own
    assert kept.sum() == 2 << 20                 # an array outlives its rank's heap being left


def test_the_address_range_shrinks_with_many_ranks_and_has_a_floor():
    assert heaps.reserve_B(1) == heaps.MOST_B
    assert heaps.reserve_B(4096) == heaps.ALL_RANKS_B // 4096
    assert heaps.reserve_B(10**7) == heaps.LEAST_B


def test_beyond_the_most_ranks_the_ranks_share_the_process_heap():
    def rank():
        with heaps.own_heap(heaps.MOST_RANKS + 1):
            return get_handler_name(np.ones(1 << 16))
    assert greenlet(rank).switch() != "ppt_rank_heap"


def test_a_heap_without_its_address_range_still_serves_every_array():
    from ppt.exec import _rankheap

    def rank():
        previous = _rankheap.install(1 << 62)          # more addresses than there are: the range is refused
        try:
            arrays = [np.full(n, 3.0) for n in (200, 20_000, 300_000, 2_000_000)]
            assert all((a == 3.0).all() for a in arrays) and not np.zeros(500_000).any()
            return get_handler_name(arrays[-1])
        finally:
            _rankheap.restore(previous)
    assert greenlet(rank).switch() == "ppt_rank_heap"


@pytest.mark.skipif(not GLIBC, reason="the rank heap follows glibc's malloc: compared only where glibc runs")
def test_page_faults_are_a_fresh_processes_not_a_warm_heaps():
    fresh = _faults("")
    # a process whose heap others warmed: the kernel's temporaries then reuse mapped pages
    warm = _faults("junk = np.ones(2 << 20); del junk\n")
    own = _faults("junk = np.ones(2 << 20); del junk\n"
                  "from ppt.exec import heaps\nheap = heaps.own_heap(1)\nheap.__enter__()\n")
    assert warm < fresh / 3
    assert abs(own - fresh) <= 0.02 * fresh


def test_a_measured_run_gives_each_rank_its_own_heap(tmp_path, capsys):
    program = tmp_path / "handlers.py"
    program.write_text(textwrap.dedent("""
        import numpy as np
        from mpi4py import MPI
        from numpy._core.multiarray import get_handler_name
        print(MPI.COMM_WORLD.Get_rank(), get_handler_name(np.ones(1 << 18)))
    """))
    common = [str(program), "-n", "2", "--system", "edison", "--network", "analytic"]
    assert main(["exec", *common]) == 0
    assert sorted(capsys.readouterr().out.split("\n")[:2]) == ["0 ppt_rank_heap", "1 ppt_rank_heap"]
    assert main(["exec", *common, "--compute", "none"]) == 0       # nothing measured: the process's heap
    assert "ppt_rank_heap" not in capsys.readouterr().out

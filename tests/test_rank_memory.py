"""benchmarks/rank_memory.py: a rank costs memory, a greenlet costs more, and the benchmark's ranks without a
process are those ``MPIJob.start`` builds.  Small scale only (1,000 ranks, fresh processes)."""
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RANKS = 1000


def load_benchmark():
    spec = importlib.util.spec_from_file_location("rank_memory", ROOT / "benchmarks" / "rank_memory.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench():
    return load_benchmark()


def test_a_greenlet_adds_to_a_ranks_memory_and_both_stay_below_a_megabyte(bench):
    found = bench.measure_all(RANKS, 16)
    rows = bench.per_rank(found, RANKS)
    for key in ("traced_B", "rss_B"):
        without, with_greenlet = rows["ranks"][key], rows["greenlets"][key]
        assert 0 < without < with_greenlet < 1e6, (key, rows)
    # Rank, stats, MPI and two communicators: hundreds of bytes at least; a started greenlet's saved C stack
    # and process objects add over a kilobyte more on the Python heap.
    assert rows["ranks"]["traced_B"] > 500 and rows["greenlets"]["traced_B"] - rows["ranks"]["traced_B"] > 1000


def test_ranks_without_a_process_are_built_as_the_job_builds_them(bench):
    job, sim = bench.build_job(8, 4)
    plain = bench.build_ranks(job, sim)
    job, sim = bench.build_job(8, 4)
    started = job.start(sim, bench.sleeper)
    for a, b in zip(plain, started, strict=True):
        assert [s for s in type(a).__slots__ if getattr(a, s, None) is not None] == \
               [s for s in type(b).__slots__ if getattr(b, s, None) is not None and s != "proc"]
        assert (a.api.COMM_WORLD.size, a.api.COMM_WORLD.rank, a.api.COMM_SELF.rank) == \
               (b.api.COMM_WORLD.size, b.api.COMM_WORLD.rank, b.api.COMM_SELF.rank)
        assert a.nic.host.ranks.keys() == b.nic.host.ranks.keys()
        assert a.proc is None and b.proc is not None

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


def test_a_collective_on_comm_world_keeps_one_member_array_for_the_whole_job(monkeypatch):
    # each rank's COMM_WORLD is its own range of the world ranks: an array per rank would be P x P int32s
    from mpi_helpers import run
    from ppt.mpi.compiled import Engine
    arrays = set()
    keep = Engine.members_array

    def counted(engine, members, base=0):
        found = keep(engine, members, base)
        arrays.add(id(found[1]))                # the C array
        return found
    monkeypatch.setattr(Engine, "members_array", counted)
    result = run(64, lambda mpi: mpi.COMM_WORLD.allreduce(mpi.COMM_WORLD.rank, op=mpi.SUM, nbytes=8),
                 engine="compiled")
    assert result.returns == [64 * 63 // 2] * 64
    assert len(arrays) == 1

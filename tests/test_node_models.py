"""Node models and tasklists: hand-computed times, invariants, presets, bad input."""
import json
import math
import re

import numpy as np
import pytest

from ppt.errors import ConfigError
from ppt.hardware.node import NodeModel
from ppt.hardware.presets import PROCESSORS_DIR, list_processors, load_processor, read_processor_config
from ppt.hardware.tasklist import MemAccess, Tasklist

KiB, MiB = 1024, 1024 ** 2
PRESETS = ["bgq-a2", "dgx-a100", "haswell", "ivybridge", "magnycours", "sandybridge", "xeon-max-9480"]


@pytest.fixture(scope="module")
def ivb():
    return load_processor("ivybridge")


# --- hand-computed cases (numbers typed from hardware/processors/*.json) -------------

def test_issue_bound_ivybridge(ivb):
    # 3 int ALUs, 2 FP, 2 vector (4 lanes), width 4, divide 14 cycles, 2.4 GHz.
    # VECTOR width 8 needs 2 AVX instructions: 2e5 instructions.
    tasks = [("iALU", 3e6), ("fALU", 2e6), ("fDIV", 1e4), ("VECTOR", 1e5, 8)]
    cycles = max(3e6 / 3, 2e6 / 2, 2e5 / 2, (3e6 + 2e6 + 2e5) / 4) + 1e4 * 14
    assert cycles == 1.44e6
    assert ivb.time_compute(tasks) == pytest.approx(cycles / 2.4e9, rel=1e-12)
    assert ivb.breakdown(tasks).bound == "issue"


def test_vector_width_split_on_two_lane_sse():
    mc = load_processor("magnycours")          # 2 lanes, 2 vector ops/cycle, width 3, 2.1 GHz
    t = mc.time_compute([("VECTOR", 1e6, 8)])  # 4 SSE instructions per operation
    assert t == pytest.approx(max(4e6 / 2, 4e6 / 3) / 2.1e9, rel=1e-12)
    assert mc.time_compute([("VECTOR", 1e6, 2)]) == pytest.approx(1e6 / 2 / 2.1e9, rel=1e-12)


def test_hit_rates_latency_bound_then_shared_bandwidth(ivb):
    # 1e6 8-byte accesses, local hit rates 0.5 at L1, L2, L3:
    # served L1 .5, L2 .25, L3 .125, memory .125 of the accesses, one 64 B line each.
    tasks = [("MEM_ACCESS", 1e6, 8, [0.5, 0.5, 0.5])]
    in_flight = 15.68e9 * 80e-9 / 64                      # 19.6 lines (Little's law)
    latency = (2.5e5 * 12 / 2.4e9 + 1.25e5 * 30 / 2.4e9 + 1.25e5 * 80e-9) / in_flight
    dram_bytes = 1.25e5 * 64
    one = ivb.breakdown(tasks, cores_active=1)
    assert one.latency_s == pytest.approx(latency, rel=1e-12)
    assert one.issue_s == pytest.approx(1e6 / 2 / 2.4e9, rel=1e-12)
    assert one.dram_bytes == pytest.approx(dram_bytes)
    assert ivb.time_compute(tasks, 1) == pytest.approx(latency, rel=1e-12)
    # all 24 cores stream: each gets 1/24 of the 112.86 GB/s node bandwidth
    assert ivb.time_compute(tasks, 24) == pytest.approx(dram_bytes * 24 / 112.86e9, rel=1e-12)
    assert ivb.breakdown(tasks, 24).bound == "bandwidth"


def test_wide_accesses_move_every_line_they_touch(ivb):
    # 256-byte accesses that miss everywhere move 4 lines each; 8-byte misses still move a whole line
    wide = ivb.breakdown([("MEM_ACCESS", 1e6, 256, [0, 0, 0])], 24)
    assert wide.dram_bytes == pytest.approx(4 * 64 * 1e6)
    assert wide.latency_s == pytest.approx(2.56e8 / 15.68e9, rel=1e-12)
    assert wide.total_s == pytest.approx(2.56e8 * 24 / 112.86e9, rel=1e-12)
    assert ivb.breakdown([("MEM_ACCESS", 1e6, 8, [])]).dram_bytes == pytest.approx(64e6)


def test_reuse_profile_matches_equivalent_hit_rates(ivb):
    # distances fall into L1 (32 KiB), L2 (256 KiB), L3 (30 MiB) and memory: same split as .5/.5/.5
    profile = [(1 * KiB, 0.5), (100 * KiB, 0.25), (1 * MiB, 0.125), (None, 0.125)]
    by_reuse = ivb.time_compute([("MEM_ACCESS_REUSE", 1e6, 8, profile)])
    by_rates = ivb.time_compute([("MEM_ACCESS", 1e6, 8, [0.5, 0.5, 0.5])])
    assert by_reuse == pytest.approx(by_rates, rel=1e-12)


def test_shared_l3_capacity_shrinks_with_active_cores(ivb):
    # 4 MiB reuse distance: fits the 30 MiB L3 while at most 6 cores share each socket's L3
    # (5 MiB each), spills to memory when 12 share it (2.5 MiB each).
    tasks = [("MEM_ACCESS_REUSE", 1e6, 64, [(4 * MiB, 1.0)])]
    in_flight = 15.68e9 * 80e-9 / 64
    in_l3 = 1e6 * 30 / 2.4e9 / in_flight
    assert ivb.time_compute(tasks, 1) == pytest.approx(in_l3, rel=1e-12)
    assert ivb.time_compute(tasks, 12) == pytest.approx(in_l3, rel=1e-12)
    spilled = ivb.breakdown(tasks, 24)
    assert spilled.latency_s == pytest.approx(1e6 * 80e-9 / in_flight, rel=1e-12)
    assert spilled.total_s == pytest.approx(64e6 * 24 / 112.86e9, rel=1e-12)


def test_streaming_bandwidth_shared_by_active_cores():
    hsw = load_processor("haswell")   # 8.93 GB/s one core, 123.64 GB/s per node, 32 cores
    for cores in range(1, 33):
        expected = max(1e9 / 8.93e9, 1e9 * cores / 123.64e9)
        assert hsw.time_compute([("MEM_BYTES", 1e9)], cores) == pytest.approx(expected, rel=1e-12)
    assert hsw.breakdown([("MEM_BYTES", 1e9)], 13).bound == "latency"
    assert hsw.breakdown([("MEM_BYTES", 1e9)], 14).bound == "bandwidth"


def test_core_view_binds_active_cores(ivb):
    tasks = [("fALU", 1e6), ("MEM_ACCESS", 1e6, 8, [0.9, 0.5, 0.5])]
    view = ivb.core_view(np.int64(24))
    assert view.time_compute(tasks) == ivb.time_compute(tasks, cores_active=24)
    assert view.breakdown(tasks) == ivb.breakdown(tasks, cores_active=24)


# --- invariants ----------------------------------------------------------------------

def random_tasklist(rng):
    rates = rng.uniform(0, 1, size=3)
    return Tasklist(int_ops=rng.uniform(0, 1e7), float_ops=rng.uniform(0, 1e7), divides=rng.uniform(0, 1e5),
                    vector_ops=((rng.uniform(0, 1e6), int(rng.integers(1, 9))),),
                    accesses=(MemAccess(rng.uniform(0, 1e7), 8, hit_rates=tuple(rates)),),
                    stream_bytes=rng.uniform(0, 1e8))


@pytest.mark.parametrize("name", PRESETS)
def test_more_work_never_faster(name):
    node, rng = load_processor(name), np.random.default_rng(7)
    for _ in range(50):
        base = random_tasklist(rng)
        cores = int(rng.integers(1, node.cores + 1))
        t0 = node.time_compute(base, cores)
        for extra in ([("fALU", 1e6)], [("iALU", 1e6)], [("fDIV", 1e3)], [("VECTOR", 1e5, 4)],
                      [("MEM_ACCESS", 1e5, 8, [0.9])], [("MEM_BYTES", 1e6)]):
            assert node.time_compute(base + Tasklist.from_list(extra), cores) >= t0


@pytest.mark.parametrize("name", PRESETS)
def test_higher_hit_rate_never_slower(name):
    node, rng = load_processor(name), np.random.default_rng(11)
    for _ in range(100):
        rates = rng.uniform(0, 1, size=3)
        cores = int(rng.integers(1, node.cores + 1))
        work = [("fALU", rng.uniform(0, 1e6)), ("MEM_ACCESS", 1e6, 8, list(rates))]
        t0 = node.time_compute(work, cores)
        level = int(rng.integers(0, 3))
        better = rates.copy()
        better[level] = rng.uniform(rates[level], 1)
        assert node.time_compute([work[0], ("MEM_ACCESS", 1e6, 8, list(better))], cores) <= t0 * (1 + 1e-12)


@pytest.mark.parametrize("name", PRESETS)
def test_longer_reuse_distances_never_faster(name):
    node, rng = load_processor(name), np.random.default_rng(5)
    for _ in range(50):
        distances = np.sort(rng.uniform(0, 64 * MiB, size=4))
        probabilities = rng.dirichlet(np.ones(4))
        cores = int(rng.integers(1, node.cores + 1))
        near = node.time_compute([("MEM_ACCESS_REUSE", 1e6, 8, list(zip(distances, probabilities)))], cores)
        far = node.time_compute([("MEM_ACCESS_REUSE", 1e6, 8, list(zip(distances * 2, probabilities)))], cores)
        assert far >= near * (1 - 1e-12)


@pytest.mark.parametrize("name", PRESETS)
def test_time_is_linear_in_repetition(name):
    node, rng = load_processor(name), np.random.default_rng(3)
    work = random_tasklist(rng)
    assert node.time_compute(work.scaled(3)) == pytest.approx(3 * node.time_compute(work), rel=1e-12)
    assert node.time_compute(work + work) == pytest.approx(node.time_compute(work.scaled(2)), rel=1e-12)
    assert node.time_compute(Tasklist()) == 0.0


def test_from_list_builds_the_named_fields():
    work = Tasklist.from_list([("iALU", 1), ("iALU", 2), ("fALU", 3), ("fDIV", 4), ("VECTOR", 5, 4),
                               ("INTVEC", 6), ("MEM_ACCESS", 7, 8, {"L1": 0.5, "L3": 0.25}),
                               ("MEM_ACCESS_REUSE", 9, 8, {None: 0.5, 128: 0.5}), ("MEM_BYTES", 10)])
    assert (work.int_ops, work.float_ops, work.divides, work.stream_bytes) == (3, 3, 4, 10)
    assert work.vector_ops == ((5, 4), (6, 1))
    assert work.accesses[0].hit_rates == (0.5, 0.0, 0.25)
    assert work.accesses[1].reuse_profile == ((128.0, 0.5), (math.inf, 0.5))


def test_hit_rates_beyond_the_hierarchy_are_ignored():
    bgq = load_processor("bgq-a2")   # two cache levels
    two = bgq.time_compute([("MEM_ACCESS", 1e6, 8, [0.5, 0.5])])
    three = bgq.time_compute([("MEM_ACCESS", 1e6, 8, [0.5, 0.5, 0.99])])
    assert two == three


# --- presets ---------------------------------------------------------------------------

def test_preset_names_and_published_core_counts():
    assert list_processors() == PRESETS
    expected = {"ivybridge": (2, 12, 2.4e9, 4), "haswell": (2, 16, 2.3e9, 4), "magnycours": (2, 12, 2.1e9, 2),
                "bgq-a2": (1, 16, 1.6e9, 4), "sandybridge": (2, 8, 2.7e9, 4),
                "xeon-max-9480": (2, 56, 1.9e9, 8)}
    for name, (sockets, cores, clock, lanes) in expected.items():
        node = load_processor(name)
        assert (node.sockets, node.cores_per_socket, node.clock_hz, node.vector_lanes) == (sockets, cores, clock, lanes)


def numeric_fields(cfg):
    """Dotted names of every number a preset holds (caches by level name)."""
    names = [k for k, v in cfg.items() if isinstance(v, (int, float))]
    names += [f"{section}.{k}" for section in ("issue", "memory") for k in cfg[section]]
    names += [f"caches.{level['name']}" for level in cfg["caches"]]
    return names


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_number_is_cited(name):
    cfg = read_processor_config(name)
    references, sources = cfg["references"], cfg["sources"]
    for key in numeric_fields(cfg):
        cited = re.findall(r"\[([a-z0-9-]+)\]", sources.get(key, ""))
        assert cited, f"{name}: {key} has no [reference]"
        assert all(ref in references and references[ref].strip() for ref in cited)


def test_preset_file_path_and_bad_preset(tmp_path):
    cfg = read_processor_config("sandybridge")
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(cfg))
    assert load_processor(str(path)).cores == 16
    del cfg["memory"]["latency_s"]
    path.write_text(json.dumps(cfg))
    with pytest.raises(ConfigError, match=r"memory is missing the field 'latency_s'"):
        load_processor(str(path))
    assert (PROCESSORS_DIR / "sandybridge.json").is_file()


# --- bad input ---------------------------------------------------------------------------

@pytest.mark.parametrize("entries, message", [
    ([("fALU", -1)], "fALU count must be a finite number >= 0"),
    ([("fALU", float("nan"))], "fALU count"),
    ([("FLOPS", 1)], "unknown tasklist op 'FLOPS'"),
    ([("iALU",)], "takes one count"),
    ([("VECTOR", 10, 0)], "vector width must be a positive integer"),
    ([("MEM_ACCESS", 10, 8)], "takes \\(count, bytes_per_access, hit_rates\\)"),
    ([("MEM_ACCESS", 10, 8, [1.5])], "L1 hit rate must lie in \\[0, 1\\]"),
    ([("MEM_ACCESS", 10, 8, {"L0": 0.5})], "not a cache level name"),
    ([("MEM_ACCESS_REUSE", 10, 8, [(64, 0.5)])], "must sum to 1"),
    ([("MEM_ACCESS_REUSE", 10, 8, [(-1, 1.0)])], "reuse distance must be bytes >= 0"),
    ("fALU", "must be a list of"),
    ([42], "must be a tuple"),
])
def test_bad_tasklists_raise_one_line_config_errors(ivb, entries, message):
    with pytest.raises(ConfigError, match=message) as err:
        ivb.time_compute(entries)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("cores", [0, 25, 1.5, True])
def test_cores_active_out_of_range(ivb, cores):
    with pytest.raises(ConfigError, match="cores_active must be an integer from 1 to 24"):
        ivb.time_compute([("fALU", 1)], cores)


def test_unknown_processor_lists_known_ones():
    with pytest.raises(ConfigError) as err:
        load_processor("pentium")
    assert all(name in str(err.value) for name in PRESETS)


def test_inconsistent_hierarchy_is_rejected():
    cfg = read_processor_config("ivybridge")
    cfg["caches"][2]["latency_cycles"] = 2          # L3 faster than L2
    with pytest.raises(ConfigError, match="latencies must not decrease"):
        NodeModel.from_config(cfg)
    cfg = read_processor_config("ivybridge")
    cfg["caches"][2]["shared_by"] = 7               # does not divide 24 cores
    with pytest.raises(ConfigError, match="shared_by=7 must divide"):
        NodeModel.from_config(cfg)

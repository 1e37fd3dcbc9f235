"""SNAPSim: tasklist counts vs node-model time, message counts, sweep dependencies, errors, CLI."""
import json

import pytest

from ppt.apps.scaling import study_sim
from ppt.apps.snap import decompose
from ppt.apps.snap import SNAPSim
from ppt.apps.snap_counts import sweep_tasklist
from ppt.cli.main import main
from ppt.errors import ConfigError
from ppt.hardware.presets import load_processor
from ppt.hardware.systems import load_system
from ppt.machine import Machine
from ppt.provenance import comparable


@pytest.fixture(scope="module")
def edison():
    return Machine(load_system("edison"), network_kind="analytic")


def test_sweep_tasklist_time_matches_hand_count():
    # 2 cells (ichunk=2, ny=nz=1), nang=4, nmom=1: every reuse distance is tiny, so all data is in L1
    # and the time is the issue bound.  Hand count from dim3_sweep: per cell 64 angle-vector
    # loads/stores (59 repeats + 5 first touches), per x row 1 qtot + 2 flux0 + 6 leakage accesses,
    # per chunk 2 * ichunk * (ny + nz) = 8 face-vector accesses -> 2*64 + 9 + 8 = 145 memory ops;
    # 2 * 43 vector ops of 4 doubles (one AVX op each), 2 * 8 scalar flops, 2 * 18 integer ops.
    ivb = load_processor("ivybridge")
    work = sweep_tasklist(nang=4, ichunk=2, ny=1, nz=1, ng=1)
    cycles = max(145 / ivb.mem_ops_per_cycle, 86 / ivb.vector_ops_per_cycle, 16 / ivb.fp_ops_per_cycle,
                 36 / ivb.int_ops_per_cycle, (145 + 86 + 16 + 36) / ivb.issue_width)
    breakdown = ivb.breakdown(work, 1)
    assert breakdown.dram_bytes == 0 and breakdown.latency_s == 0
    assert ivb.time_compute(work) == pytest.approx(cycles / ivb.clock_hz)


def test_sweep_tasklist_streams_angular_flux_when_it_outgrows_the_caches():
    # A rank of 32x8x8 cells, 48 angles, 42 groups: ptr_in (8 octants x 42 groups x 16k cells x 48
    # angles x 8 B = 2 GB) cannot stay in cache; each chunk streams at least its ptr_in and dinv.
    ivb = load_processor("ivybridge")
    cells, nang = 8 * 8 * 8, 48
    breakdown = ivb.breakdown(sweep_tasklist(nang, 8, 8, 8, ng=42, nx=32), 24)
    assert breakdown.dram_bytes >= cells * nang * 8
    small = ivb.breakdown(sweep_tasklist(nang, 8, 8, 8, ng=1, nx=8), 24)
    assert small.dram_bytes < breakdown.dram_bytes


def _downwind(y, z, npey, npez):
    """Sends per (group, chunk) over SNAP's four corners, counted corner by corner."""
    count = 0
    for jd, kd in ((1, 1), (2, 1), (2, 2), (1, 2)):
        count += (y > 0) if jd == 1 else (y < npey - 1)
        count += (z > 0) if kd == 1 else (z < npez - 1)
    return count


def test_message_counts_match_the_closed_form(edison):
    sim = SNAPSim(nx=6, ny=4, nz=6, npey=2, npez=3, ichunk=2, nang=2, ng=2, inners=2)
    result = sim.run(edison, ranks_per_node=4)
    nc = 3
    for entry in result.job.per_rank:
        y, z = entry["rank"] % 2, entry["rank"] // 2
        expected = 2 * sim.ng * 2 * nc * _downwind(y, z, 2, 3)
        assert entry["calls"].get("MPI_Isend", 0) == expected == sim.sends_per_rank(y, z)
        assert entry["calls"].get("MPI_Recv", 0) == expected        # every face sent is received
    faces = sum(sim.sends_per_rank(r % 2, r // 2) for r in range(6))
    assert result.messages >= faces


def test_no_chunk_starts_before_its_upstream_faces_arrive(edison):
    sim = SNAPSim(nx=8, ny=6, nz=4, npey=3, npez=2, ichunk=2, nang=4, ng=2)
    result = sim.run(edison, ranks_per_node=2, record=True)
    logs = {rank: {entry[:3]: entry[3:] for entry in log} for rank, log in enumerate(result.job.returns)}
    npey, npez = 3, 2
    checked = 0
    for rank, log in logs.items():
        y, z = rank % npey, rank // npey
        for (corner, g, iop), (start, _) in log.items():
            jd, kd = sim.corners[corner]
            for up in ((y + 1, z) if jd == 1 else (y - 1, z), (y, z + 1) if kd == 1 else (y, z - 1)):
                if 0 <= up[0] < npey and 0 <= up[1] < npez:
                    _, upstream_end = logs[up[1] * npey + up[0]][(corner, g, iop)]
                    assert start > upstream_end            # the face needs a message latency to arrive
                    checked += 1
    assert checked == sum(_downwind(r % npey, r // npey, npey, npez) for r in range(6)) * sim.ng * 2 * sim.nc
    # Pipelining: the far corner starts the first corner's sweep before the origin rank finishes it.
    origin_last = max(end for (corner, _, _), (_, end) in logs[0].items() if corner == 0)
    far_first = min(start for (corner, _, _), (start, _) in logs[5].items() if corner == 0)
    assert far_first < origin_last


def test_decomposition_is_as_square_as_possible():
    assert decompose(24, 32, 48) == (4, 6)
    assert decompose(384, 32, 48) == (16, 24)
    assert decompose(192, 32, 48) == (16, 12)
    with pytest.raises(ConfigError, match="3072 cores cannot be split"):
        decompose(3072, 32, 48)


@pytest.mark.parametrize("kwargs, message", [
    ({"npey": 3}, "npey=3 does not divide ny=4"),
    ({"npez": 4}, "npez=4 does not divide nz=6"),
    ({"nang": 0}, "nang must be a positive integer"),
    ({"ichunk": -2}, "ichunk must be a positive integer"),
])
def test_bad_inputs_raise_one_line_errors(kwargs, message):
    fields = dict(nx=4, ny=4, nz=6, npey=2, npez=3, ichunk=2, nang=2, ng=2) | kwargs
    with pytest.raises(ConfigError, match=message):
        SNAPSim(**fields)


def test_study_inputs_follow_snap_nang_per_octant():
    sim = study_sim(2, 96)
    assert (sim.nx, sim.ny, sim.nz, sim.nang, sim.ng, sim.ichunk) == (64, 32, 48, 48, 42, 16)
    assert sim.npey * sim.npez == 96 and sim.y_face_B() == 48 * 16 * sim.nz_local * 8


@pytest.mark.parametrize("argv, message", [
    (["nosuch", "--cores", "24"], "unknown system 'nosuch'"),
    (["edison", "--cores", "30"], "30 cores is not a whole number of edison nodes"),
    (["edison", "--cores", "0"], "core count must be positive"),
    (["edison", "--cores", "24", "--npey", "5", "--npez", "4"], "npey x npez = 5 x 4 = 20"),
    (["edison", "--cores", "24", "--npey", "3", "--npez", "8"], "npey=3 does not divide ny=32"),
    (["edison", "--cores", "24", "--iterations", "0"], "--iterations must be at least 1"),
])
def test_cli_errors_are_one_line(argv, message, capsys):
    assert main(["snap", *argv, "--network", "analytic"]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


def test_cli_json_and_plot(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PPT_QUIET", "1")
    plot = tmp_path / "snap.png"
    assert main(["snap", "edison", "--study", "1", "--cores", "48,24", "--network", "analytic", "--json",
                 "--plot", str(plot)]) == 0
    out = json.loads(capsys.readouterr().out)
    results = out["results"]
    assert [r["cores"] for r in results] == [24, 48]
    for r in results:
        assert {"cores", "predicted_s", "compute_s", "comm_s"} <= set(r)
        assert r["npey"] * r["npez"] == r["cores"]
        assert r["predicted_s"] >= r["compute_s"] > 0 and r["comm_s"] > 0
    assert results[1]["speedup"] == pytest.approx(results[0]["predicted_s"] / results[1]["predicted_s"])
    assert 1 < results[1]["speedup"] < 2.5            # strong scaling: faster, not wildly superlinear
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_points_in_parallel_processes_give_the_serial_results(capsys, monkeypatch):
    monkeypatch.setenv("PPT_QUIET", "1")
    outputs = []
    for jobs in ("1", "3"):
        assert main(["snap", "edison", "--study", "1", "--cores", "24,48,96", "--json", "--jobs", jobs]) == 0
        outputs.append(capsys.readouterr().out)
    assert comparable(outputs[0], "command") == comparable(outputs[1], "command")   # but --jobs and the wall time
    assert [r["cores"] for r in json.loads(outputs[0])["results"]] == [24, 48, 96]


def test_study_2_beyond_one_rank_per_cell_column_runs_hybrid():
    from ppt.apps.scaling import study_sim
    sim = study_sim(2, 3072)
    assert (sim.threads, sim.npey, sim.npez) == (2, 32, 48)
    assert study_sim(2, 1536).threads == 1


def test_threads_split_a_ranks_tasklist_over_their_cores():
    from ppt.hardware.systems import load_system
    from ppt.hardware.tasklist import Tasklist
    from ppt.machine import Machine
    from ppt.mpi import MPIJob

    machine = Machine(load_system("edison"), "analytic")
    work = Tasklist.from_list([("fALU", 4e6), ("MEM_ACCESS", 1e6, 8, [0.5, 0.5, 0.5])])
    job = MPIJob.on_machine(machine, 12, threads_per_rank=2)

    class Rank:          # a rank on node 0, which the linear mapping fills with all 12 ranks
        node = 0

    assert job._ranks_on_node[0] == 12
    expected = machine.node_model.core_view(24).time_compute(work.scaled(0.5))
    assert job.time_compute(Rank, work) == expected
    # memory-bandwidth bound: a second thread per rank gains nothing, the node's bandwidth is shared
    assert expected == pytest.approx(machine.node_model.core_view(12).time_compute(work))
    flops = Tasklist.from_list([("fALU", 4e6)])
    assert job.time_compute(Rank, flops) == pytest.approx(machine.node_model.core_view(12).time_compute(flops) / 2)

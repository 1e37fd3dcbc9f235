"""``ppt bench mpi``: the workloads send the messages their algorithms do, and the result carries its fields.

Tiny sizes only: these check structure and counts, never speed."""
import json
from collections import Counter

import pytest

from ppt.bench.mpi import (allreduce_workload, alltoall_workload, halo_workload, replay_workload, run_once,
                           scaled_ranks, workloads)
from ppt.cli.main import main
from ppt.oprecord import AUX_LEN, AUX_START, CALL, KIND, PEER, REQUEST, Op
from ppt.traces.opstream import load, save
from ppt.traces.writers.synthetic import SyntheticTrace, recursive_doubling_messages

#: The smallest scale: every workload at its fewest ranks and iterations.
TINY = "0.01"


@pytest.mark.parametrize("workload, messages, calls", [
    (alltoall_workload(8), 8 * 7, 8),                         # pairwise: P*(P-1), one call per rank
    (alltoall_workload(16), 16 * 15, 16),
    (allreduce_workload(8, 2), 2 * 8 * 3, 2 * 8),             # recursive doubling: P*log2(P) per allreduce
    (allreduce_workload(16, 3), 3 * 16 * 4, 3 * 16),
    (halo_workload(8, 3), 8 * (2 + 4 + 6), 8 * (5 + 9 + 13)),  # 2, 4, 6 neighbours; isend+irecv each, a waitall
    (halo_workload(16, 4), 16 * (2 + 4 + 6 + 2), 16 * (5 + 9 + 13 + 5)),
    # 6 neighbours and an allreduce an iteration; Init, Finalize and 6 irecvs, 6 isends, waitall, allreduce
    (replay_workload(8, 3), 3 * 8 * 6 + 3 * 8 * 3, 8 * (2 + 3 * 14)),
    (replay_workload(12, 2), 2 * 12 * 6 + 2 * (8 * 3 + 2 * 4), 12 * (2 + 2 * 14)),   # 4 ranks fold in and out
])
def test_messages_and_calls_are_the_algorithms_counts(workload, messages, calls):
    row = run_once(workload)
    assert workload.messages == row["messages"] == messages
    assert row["calls"] == calls and row["events"] > 0 and row["wall_s"] > 0 and row["predicted_s"] > 0


def test_scaled_rank_counts_stay_powers_of_two_and_at_least_eight():
    assert [scaled_ranks(1024, f) for f in (1, 0.5, 0.3, 0.01)] == [1024, 512, 256, 8]
    assert [w.ranks for w in workloads(1.0)] == [512, 1024, 1024, 1024]


def test_json_result_has_every_workload_and_its_fields(capsys):
    assert main(["bench", "mpi", "--scale", TINY, "--repeats", "2", "--network", "own", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["repeats"] == 2 and result["scale"] == float(TINY)
    assert result["provenance"]["network"] == "analytic" and result["provenance"]["system"] is None
    assert {row["network"] for row in result["workloads"]} == {"analytic"}
    rows = {row["workload"]: row for row in result["workloads"]}
    assert list(rows) == [w.name for w in workloads(float(TINY))]
    for name, row in rows.items():
        assert row["messages"] == next(w.messages for w in workloads(float(TINY)) if w.name == name)
        assert 0 < row["wall_s"]["min"] <= row["wall_s"]["median"]
        assert row["messages_per_s"] == pytest.approx(row["messages"] / row["wall_s"]["min"])
        assert row["calls_per_s"] == pytest.approx(row["calls"] / row["wall_s"]["min"])
        assert row["ratio"] == pytest.approx(row["messages_per_s"] / row["baseline_events_per_s"])
        assert row["events"] > 0 and row["baseline_events_per_s"] > 0


def test_default_rows_add_a_dragonfly_and_a_torus_packet_network_with_the_same_messages(capsys):
    assert main(["bench", "mpi", "--scale", TINY, "--repeats", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["provenance"]["network"] == "analytic,packet" and result["provenance"]["system"] is None
    rows = result["workloads"]
    assert [row["network"] for row in rows[::len(workloads(float(TINY)))]] == [
        "analytic", "packet dragonfly-booksim", "packet torus-16x16x16"]
    by_network = {}
    for row in rows:
        by_network.setdefault(row["network"], []).append((row["workload"], row["messages"]))
    assert len({tuple(v) for v in by_network.values()}) == 1       # the same programs, whatever the network
    packet = [row["predicted_s"] for row in rows if row["network"] != "analytic"]
    assert len(set(packet)) == len(packet)                          # yet each network times them its own way


def test_packet_network_of_a_preset_runs_the_same_messages(capsys):
    assert main(["bench", "mpi", "--scale", TINY, "--repeats", "1", "--network", "packet",
                 "--system", "fattree-4-3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["provenance"]["network"] == "packet" and result["provenance"]["system"] == "fattree-4-3"
    assert {row["network"] for row in result["workloads"]} == {"packet fattree-4-3"}
    assert [row["messages"] for row in result["workloads"]] == [w.messages for w in workloads(float(TINY))]


@pytest.mark.parametrize("argv, words", [
    (["bench", "network", "--network", "packet"], "applies to 'ppt bench mpi' only"),
    (["bench", "mpi", "--system", "edison"], "needs --network KIND"),
])
def test_options_of_another_target_are_refused(argv, words, capsys):
    assert main(argv) == 2
    assert words in capsys.readouterr().err


def test_synthetic_streams_hold_the_calls_the_trace_counts():
    trace = SyntheticTrace(12, 5, chunk_ops=40)           # 2 iterations a chunk: three chunks per rank
    assert trace.shape == [3, 2, 2] and trace.messages == 5 * 12 * 6 + 5 * recursive_doubling_messages(12)
    counted = Counter()
    for rank in range(trace.num_ranks):
        started = set()
        for chunk in trace.stream(rank):
            aux = chunk.aux_list()
            for row in chunk.rows():
                counted[chunk.calls[row[CALL]]] += 1
                if row[KIND] in (Op.ISEND, Op.IRECV):
                    started.add(row[REQUEST])
                elif row[KIND] == Op.WAITALL:          # it waits for the requests its iteration started
                    waited = aux[row[AUX_START]:row[AUX_START] + row[AUX_LEN]]
                    assert len(waited) == 12 and set(waited) <= started
                    started -= set(waited)
        assert not started
    assert counted == trace.calls() and trace.translates("MPI_Isend") and trace.has_init(0)


def test_synthetic_trace_saves_and_loads_whole(tmp_path):
    trace = SyntheticTrace(8, 3, dims=1)
    loaded = load(save(trace, tmp_path / "syn"))
    assert loaded.num_ranks == 8 and loaded.calls() == trace.calls() and loaded.span() == trace.span()
    assert loaded.compute_gaps() == trace.compute_gaps()
    assert [row[PEER] for row in next(loaded.stream(3)).rows()[1:5]] == [2, 4, 4, 2]   # ring: down, up
    assert SyntheticTrace.of_messages(1024, 10_000_000).messages == pytest.approx(1e7, rel=0.01)

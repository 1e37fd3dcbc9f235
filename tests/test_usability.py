"""Progress bars on stderr, and human-readable results that fit a terminal."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time

import pytest

from ppt.cli.main import main
from ppt.cli.output import format_fields, format_result, format_table
from ppt.plotstyle import COLUMN_IN

TRAFFIC = ["traffic", "dragonfly-booksim", "--pattern", "ur", "--load", "0.5", "--warmup", "1e-6", "--time", "2e-6"]
RUN = ["run", "examples/halo3d.py", "--system", "hopper", "--ranks", "64", "--ranks-per-node", "16"]


@pytest.fixture
def every_report(monkeypatch):
    """Progress reported at every offer, on a terminal and in a log alike (a run of a second or two then
    shows it)."""
    monkeypatch.setenv("PPT_PROGRESS_INTERVAL", "0")
    monkeypatch.setenv("PPT_PROGRESS_LOG_INTERVAL", "0")
    monkeypatch.delenv("PPT_QUIET", raising=False)


def test_traffic_progress_has_a_total_and_eta_on_stderr_only(every_report, capsys):
    assert main(TRAFFIC) == 0
    out, err = capsys.readouterr()
    assert "traffic dragonfly-booksim:" in err and "/3.00 us simulated" in err and "events/s" in err
    assert " left]" in err                                # the time left, from the whole run's rate
    assert "traffic dragonfly-booksim:" not in out and "events/s" not in out


def test_run_progress_moves_before_any_rank_finishes(every_report, capsys):
    assert main(RUN) == 0
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.startswith("run hopper:")]
    early = [line for line in lines if "0/64 ranks done" in line]
    assert len({line.split(" simulated")[0] for line in early}) >= 2      # simulated time grows meanwhile
    assert all("events/s" in line for line in lines) and "64/64 ranks done" in lines[-1]
    assert "ranks done" not in out


def test_a_run_without_a_total_reports_simulated_time_and_rate(capsys, monkeypatch):
    from ppt.progress import Progress
    monkeypatch.setenv("PPT_PROGRESS_LOG_INTERVAL", "0")

    class Sim:
        rank, size, now, events, processes = 0, 1, 2e-6, 1 << 16, ()

    progress = Progress("x", interval_s=0.0)
    sim = Sim()
    progress(sim)
    sim.now, sim.events = 3e-6, 1 << 17
    progress(sim)
    progress.done()
    err = capsys.readouterr().err
    assert err.startswith("x: 3 us simulated, 131,072 events, ") and "events/s" in err and "\r" not in err


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_terminal_gets_a_redrawn_bar_and_a_log_plain_lines(monkeypatch):
    from ppt.progress import Line
    monkeypatch.setenv("PPT_PROGRESS_LOG_INTERVAL", "0")
    for stream in (_Terminal(), io.StringIO()):
        line = Line("x", stream, time.perf_counter() - 2.0)
        for n in (1, 2, 3):
            line.show(n, 4, "points", f"last {n}")
        line.close()
        text = stream.getvalue()
        assert "3/4 points" in text and "last 3" in text
        if isinstance(stream, _Terminal):
            assert "\r" in text and "75%|" in text
        else:
            assert "\r" not in text and text.count("\n") == 3 and "(75%), last 3 [0:02, 0:00 left]" in text


def test_progress_to_a_pipe_is_plain_lines_at_the_log_interval():
    env = {**os.environ, "PPT_PROGRESS_INTERVAL": "0", "PPT_PROGRESS_LOG_INTERVAL": "0.25", "COLUMNS": "80"}
    env.pop("PPT_QUIET", None)
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "ppt.cli.main", "run", "examples/halo3d.py", "--system", "hopper",
                           "-n", "256", "--ranks-per-node", "16"], env=env, capture_output=True, timeout=300)
    wall = time.perf_counter() - began
    assert done.returncode == 0 and b"\r" not in done.stderr
    lines = [line for line in done.stderr.decode().splitlines() if line.startswith("run hopper:")]
    assert 1 <= len(lines) <= wall / 0.25 + 2                  # at most one a log interval, and the last
    assert "256/256 ranks done" in lines[-1] and max(map(len, lines)) < 120


def test_a_rank_running_its_own_code_is_reported_while_the_hook_is_not_called(monkeypatch):
    """A rank that computes without MPI calls holds the engine, so its hook is not called and no bar can move:
    a watch thread says so every stall interval, counting from the hook's last call, and stops with the run."""
    import io
    import time
    from ppt.progress import Progress
    monkeypatch.delenv("PPT_QUIET", raising=False)
    monkeypatch.setenv("PPT_PROGRESS_STALL", "0.05")
    out = io.StringIO()
    busy = Progress("run x", stream=out, ranks=True, watch_stalls=True)
    time.sleep(0.2)
    busy.close()
    notes = out.getvalue().splitlines()
    assert len(notes) >= 2 and all(n.startswith("run x: no simulated progress for") and "without an MPI call" in n
                                   for n in notes), notes
    time.sleep(0.1)
    assert out.getvalue().splitlines() == notes            # closed: no more notes
    beating = Progress("run y", stream=(quiet := io.StringIO()), ranks=True, watch_stalls=True)
    for _ in range(20):
        beating.beat = time.perf_counter()                 # what every call of the hook does
        time.sleep(0.01)
    beating.close()
    assert quiet.getvalue() == ""


def test_a_serial_snap_reports_the_whole_run_over_its_points(every_report, capsys):
    assert main(["snap", "edison", "--study", "1", "-n", "24,48", "--network", "analytic", "--jobs", "1"]) == 0
    err = capsys.readouterr().err
    assert "snap edison: cores 24: predicted" in err and "this point" in err
    assert "24/72 ranks done over all points (33%)" in err and "72/72 ranks done over all points (100%)" in err


def test_a_sweep_in_a_log_reports_points_and_the_time_left(monkeypatch, capsys):
    from ppt.progress import PointProgress
    monkeypatch.setenv("PPT_PROGRESS_LOG_INTERVAL", "0")
    monkeypatch.delenv("PPT_QUIET", raising=False)

    class Point:
        def label(self):
            return "load=0.5"

    progress = PointProgress("sweep traffic")
    progress.start(4, done=1)                  # one point stored by an earlier run: not in the rate
    progress.advance(Point(), {"saturated": True, "measured_s": 2e-6})
    progress.close()
    err = capsys.readouterr().err
    assert "sweep traffic: load=0.5: saturated after 2 us" in err
    assert "sweep traffic: 2/4 points (50%), last load=0.5 [0:00, 0:00 left]" in err and "\r" not in err


def test_run_and_snap_take_n_as_mpiexec_does(capsys, monkeypatch):
    monkeypatch.setenv("PPT_QUIET", "1")
    results = []
    for flag in ("-n", "--ranks"):
        assert main(["run", "examples/halo3d.py", "--system", "hopper", flag, "16", "--network", "analytic",
                     "--json"]) == 0
        results.append(json.loads(capsys.readouterr().out)["predicted_s"])
    assert results[0] == results[1]
    for flag in ("-n", "--ranks", "--cores"):
        assert main(["snap", "edison", flag, "24", "--network", "analytic", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["results"][0]["cores"] == 24


def test_nested_results_become_flat_tables():
    text = format_result(width=80, result={"a": 1.0, "link_classes": {"X": {"links": 2, "utilization": 0.5}},
                          "busiest_links": [{"router": 0, "port": 1}, {"router": 2, "to_node": 3}],
                          "nested": {"p": 1, "q": {"r": 2}}, "pairs": [[1, 2], [3, 4]], "long": "word " * 60})
    assert "{" not in text and "[" not in text
    assert "link_classes:" in text and "busiest_links:" in text and "nested.q.r" in text
    assert max(len(line) for line in text.splitlines()) <= 80


def _commands():
    commands = [RUN, TRAFFIC, ["systems"],
                ["exec", "examples/mpi4py/jacobi.py", "-n", "4", "--system", "edison"],
                ["pingpong", "darter", "--sizes", "8,1k,64k"],
                ["topology", "dragonfly-3k", "--fail-links", "20%", "--fail-seed", "3",
                 "--set", "network.routing=ugal"],
                ["snap", "edison", "--study", "1", "--cores", "24,48", "--network", "analytic"],
                ["bench", "mpi", "--scale", "0.02", "--network", "own", "--repeats", "1"],
                ["sweep", "traffic", "dragonfly-booksim", "--loads", "0.2,0.4", "--set", "network.routing=min,ugal",
                 "--warmup", "2e-7", "--time", "4e-7", "--jobs", "2"],
                ["replay", "sample:cg_n8", "--system", "edison", "--ranks-per-node", "1"]]
    return commands


@pytest.mark.parametrize("command", _commands(), ids=lambda c: "-".join(c[:2]))
def test_human_output_fits_80_columns_without_reprs(command, monkeypatch, capsys):
    monkeypatch.setenv("PPT_QUIET", "1")
    monkeypatch.setenv("COLUMNS", "80")
    assert main(command) == 0
    captured = capsys.readouterr()
    out = captured.out + captured.err if command[0] == "exec" else captured.out     # exec's summary: stderr
    assert out.strip()
    for line in out.splitlines():
        assert len(line) <= 80, line
        assert "{" not in line and "[{" not in line, line


@pytest.mark.parametrize("columns", [80, 60])
def test_the_system_list_wraps_descriptions_at_spaces(columns, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", str(columns))
    assert main(["systems"]) == 0
    out = capsys.readouterr().out
    assert main(["systems", "--json"]) == 0
    systems = json.loads(capsys.readouterr().out)["systems"]
    assert max(len(line) for line in out.splitlines()) <= columns
    shown = out.split()
    for system in systems:                   # every word of every description whole, in order
        words = system["description"].split()
        start = shown.index(words[0], shown.index(system["name"]))
        assert shown[start:start + len(words)] == words


def test_a_wide_table_wraps_headers_and_text_then_leaves_out_its_last_columns():
    headers = ["network.routing", "accepted_fraction", "mean_latency_s", "note", "link_classes.global.bytes"]
    rows = [["ugal", 0.61234, 1.7e-7, "a sentence long enough to wrap onto further lines", 123456789],
            ["min", 0.5, 2.5e-6, "short", 42]]
    wide = format_table(headers, rows, 200)
    assert len(wide.splitlines()) == 4 and "170 ns" in wide and "2.5 µs" in wide and "0.6123" in wide
    text = format_table(headers, rows, 60)
    lines = text.splitlines()
    assert max(map(len, lines)) <= 60
    heading = lines[:next(i for i, line in enumerate(lines) if line.startswith("---"))]
    pieces = {"network.", "routing", "accepted_", "fraction", "mean_", "latency_s", "mean_latency_s", "note",
              "link_", "classes.", "global.", "bytes", "link_classes.", "global.bytes", "accepted_fraction",
              "network.routing", "classes.global.", "link_classes.global.", "classes.global.bytes"}
    assert len(heading) > 1 and set(" ".join(heading).split()) <= pieces      # wrapped after _ and . only
    for word in "a sentence long enough to wrap onto further lines".split():
        assert word in text.split()
    narrow = format_table(headers, rows, 40)
    assert max(map(len, narrow.splitlines())) <= 40
    note = " ".join(narrow.split("(1 more column")[1].split())
    assert note == "not shown at 40 columns: link_classes.global.bytes; --json has them all)"
    assert "a sentence" not in narrow and "sentence" in narrow.split()      # one word a line, none cut
    assert "123456789" not in narrow                           # the column left out


def test_a_table_without_rows_is_its_headers():
    """A program that made no MPI call has an empty table of calls: its headers alone, as wide as they are."""
    lines = format_table(["call", "count"], [], 80).splitlines()
    assert [line.split() for line in lines] == [["call", "count"], ["----", "-----"]]


def test_key_value_output_is_compact_and_wraps_under_itself():
    text = format_fields([("predicted_s", 0.00172205), ("system", "edison"), ("saturated", False),
                          ("stop_reason", None), ("windows_mean_latency_s", [1.6e-7, 1.62e-7] * 8)], 60)
    lines = text.splitlines()
    assert lines[0] == "predicted_s             1.722 ms" and lines[2] == "saturated               no"
    assert lines[3] == "stop_reason             -"
    assert lines[4].startswith("windows_mean_latency_s  160 ns, 162 ns") and lines[5].startswith(" " * 24 + "160 ns")
    assert max(map(len, lines)) <= 60


@pytest.mark.parametrize("name, value, text", [
    ("predicted_s", 4.82561e-07, "482.6 ns"), ("wall_s.min", 0.01294, "12.94 ms"),
    ("messages_per_s", 125082.3, "125,082"), ("nic_bandwidth_Bps", 1.6e10, "16 GB/s"), ("ratio", 0.0559612, "0.05596"),
    ("events", 1700323, "1700323"), ("latencies_s", [1e-6, 2.5e-3], "1 µs, 2.5 ms"),
])
def test_a_cell_carries_its_unit(name, value, text):
    from ppt.cli.output import cell
    assert cell(value, name) == text


def test_the_width_is_the_terminal_s_or_80(monkeypatch):
    from ppt.cli.output import terminal_width
    monkeypatch.setenv("COLUMNS", "132")
    assert terminal_width() == 132
    monkeypatch.delenv("COLUMNS")
    with open(os.devnull, "w") as pipe:
        monkeypatch.setattr("sys.__stdout__", pipe)            # not a terminal: a pipe or a file
        assert terminal_width() == 80


def test_sweep_plot_axes_carry_units_and_the_prediction_comes_first():
    from ppt.sweep.plot import chosen, unit
    assert unit("mean_latency_s", [2e-7, 3e-7]) == (1e9, "mean_latency (ns)")
    assert unit("network.mean_latency_s", [2e-6]) == (1e6, "network.mean_latency (µs)")
    assert unit("predicted_s", [1.5]) == (1.0, "predicted (s)")
    assert unit("bandwidth_Bps", [5e9]) == (1e-9, "bandwidth (GB/s)")
    assert unit("link_classes.global.bytes", [3e7]) == (1e-6, "link_classes.global.bytes (MB)")
    assert unit("accepted_fraction", [0.5])[1] == "accepted_fraction (0..1)"
    rows = [{"ranks": r, "comm_s": 1.0 / r, "predicted_s": 2.0 / r} for r in (16, 64)]
    assert chosen(rows, ["ranks"], "ranks")[0] == "predicted_s"
    assert chosen(rows, ["ranks"], "ranks", ["comm_s"]) == ["comm_s"]


def test_sweep_plot_draws_a_categorical_axis_and_marks_saturated_points(tmp_path):
    from ppt.sweep.plot import plot_sweep
    rows = [{"network.routing": routing, "load": load, "accepted_fraction": load / (1 + (routing == "min")),
             "mean_latency_s": 1e-6 * load, "saturated": routing == "min" and load > 0.5}
            for routing in ("min", "ugal") for load in (0.2, 0.8)]
    path = tmp_path / "sweep.png"
    plot_sweep(rows, ["network.routing", "load"], "network.routing", str(path), "t", ["accepted_fraction"])
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_sample_file_names_the_workload_and_groups_are_utilizations(tmp_path, monkeypatch, capsys):
    from ppt.drivers.sample_plots import describe, group_utilization
    from ppt.drivers.sampling import read_samples
    import numpy as np
    monkeypatch.setenv("PPT_QUIET", "1")
    samples = tmp_path / "s.npz"
    assert main(["traffic", "dragonfly-booksim", "--pattern", "wc", "--routing", "ugal", "--load", "0.5",
                 "--warmup", "1e-6", "--time", "1e-6", "--sample-every", "1e-6", "--samples", str(samples)]) == 0
    meta, arrays = read_samples(str(samples))
    assert meta["workload"] == {"pattern": "wc", "routing": "ugal", "load": 0.5}
    assert describe(meta) == "dragonfly-booksim, WC traffic, UGAL routing, load 0.5"
    used = group_utilization(arrays)
    assert np.nanmax(used) <= 1.0 and np.nanmin(used) >= 0.0
    assert main(["plot", str(samples), str(samples.with_name("t.npz"))]) == 2     # no such second file
    capsys.readouterr()
    assert main(["plot", str(samples)]) == 0
    assert (tmp_path / "s-groups.png").is_file()


def test_snap_points_in_parallel_count_ranks_done_over_all_points(every_report, capsys):
    assert main(["snap", "edison", "--study", "1", "--cores", "24,48", "--network", "analytic", "--jobs", "2"]) == 0
    out, err = capsys.readouterr()
    assert "/72 ranks done over all points" in err and "ranks done" not in out


def _figure_of(monkeypatch):
    """The axes (y label, y scale) of each figure saved from now on, and the saved PNGs' sizes."""
    import struct

    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    saved, original = [], Figure.savefig

    def savefig(fig, path, *args, **kwargs):
        original(fig, path, *args, **kwargs)
        with open(path, "rb") as png:
            width, height = struct.unpack(">II", png.read(24)[16:24])
        saved.append(([(ax.get_ylabel(), ax.get_yscale()) for ax in fig.axes if ax.get_visible()], (width, height)))
    monkeypatch.setattr(Figure, "savefig", savefig)
    return saved


def test_a_scaling_figure_draws_time_speedup_and_efficiency_at_the_dpi_asked(tmp_path, monkeypatch):
    from ppt.apps.scaling import plot_scaling
    saved = _figure_of(monkeypatch)
    entries = [{"ranks": r, "predicted_s": 1.0 / r + 1e-3, "comm_s": 1e-3, "speedup": (1 / 16 + 1e-3) / (1 / r + 1e-3),
                "efficiency": (1 / 16 + 1e-3) / (1 / r + 1e-3) * 16 / r} for r in (16, 64, 256)]
    for dpi in (100, 200):
        plot_scaling({"edison": entries}, str(tmp_path / f"s{dpi}.png"), "t", x="ranks", dpi=dpi)
    (axes, small), (_, large) = saved
    assert [label for label, _ in axes] == ["time (s)", "speed-up over 16 ranks", "parallel efficiency"]
    assert [scale for _, scale in axes] == ["log", "log", "linear"]
    assert large[0] == 2 * small[0] == round(2 * 100 * COLUMN_IN)              # one column wide, at the dpi asked


def test_systems_of_different_node_sizes_get_their_own_ideal_speed_up(tmp_path, monkeypatch):
    # edison's first point is 24 ranks, mira's 16: a speed-up over 16 ranks would misplace edison's.
    from ppt.apps.scaling import plot_scaling
    saved = _figure_of(monkeypatch)
    series = {system: [{"ranks": n * r, "predicted_s": 1.0 / n, "comm_s": 1e-3, "speedup": float(n),
                        "efficiency": 1.0} for n in (1, 4)] for system, r in (("edison", 24), ("mira", 16))}
    plot_scaling(series, str(tmp_path / "s.png"), "t", x="ranks", dpi=50)
    (axes, _), = saved
    assert axes[1][0] == "speed-up over the first point"


def test_a_strong_scaling_sweep_plots_times_on_a_log_axis(tmp_path, monkeypatch):
    from ppt.sweep.plot import plot_sweep
    saved = _figure_of(monkeypatch)
    rows = [{"system": "edison", "ranks": r, "predicted_s": 1.0 / r, "network.mean_hops": r / 100} for r in (16, 1024)]
    plot_sweep(rows, ["system", "ranks"], "ranks", str(tmp_path / "p.png"), "t", command="run", dpi=150)
    axes, (width, _) = saved[0]
    assert dict(axes) == {"predicted (ms)": "log", "network.mean_hops": "linear"} and width == COLUMN_IN * 150


def test_notes_wrap_to_a_terminal_and_stay_one_line_in_a_log(monkeypatch):
    """A note longer than the terminal (a saturated traffic run's reason) is wrapped at spaces on a terminal,
    its words kept in order; a pipe or a file keeps it one line, as a log is searched by."""
    from ppt.log import logger, to_stderr
    monkeypatch.setenv("COLUMNS", "80")
    to_stderr()
    note = ("saturated: the source backlog grew in each of the last 3 windows, by 2,431 packets in the last "
            "(the sources offer 12,672 per window); stopped early after 0.6 of 2 us")
    for stream in (_Terminal(), io.StringIO()):
        monkeypatch.setattr(sys, "stderr", stream)
        logger.info(note)
        lines = stream.getvalue().splitlines()
        if isinstance(stream, _Terminal):
            assert len(lines) == 3 and max(map(len, lines)) <= 80 and lines[1].startswith("  ")
            assert " ".join(line.strip() for line in lines) == note
        else:
            assert lines == [note]


def test_a_progress_note_above_a_terminal_bar_fits_the_terminal(monkeypatch):
    from ppt.progress import Line
    monkeypatch.setenv("COLUMNS", "80")
    stream = _Terminal()
    line = Line("run x", stream, time.perf_counter())
    line.show(1, 4, "points", "last 1")
    line.note("no simulated progress for 30 s of host time: a rank is running its own code without an MPI call "
              "(one that never calls MPI runs until Ctrl-C)")
    line.close()
    frames = [frame for text in stream.getvalue().split("\n") for frame in text.split("\r")]
    assert max(map(len, frames)) <= 80
    assert any(frame.startswith("run x: no simulated progress for 30 s") for frame in frames)


def _saturated_traffic_on_a_terminal(monkeypatch, *flags) -> str:
    """What a saturated traffic run (the tour's) writes on an 80-column terminal's stderr, bar frames included."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("PPT_PROGRESS_INTERVAL", "0")
    monkeypatch.delenv("PPT_QUIET", raising=False)
    stream = _Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    assert main(["traffic", "dragonfly-booksim", "--pattern", "wc", "--routing", "ugal", "--load", "0.6",
                 "--warmup", "1e-6", "--time", "2e-6", *flags]) == 0
    return stream.getvalue()


def test_a_saturated_traffic_run_on_an_80_column_terminal_fits_it(monkeypatch, capsys):
    """Everything the tour's saturated traffic line writes on a terminal, bar frames and notes, fits 80 columns."""
    text = _saturated_traffic_on_a_terminal(monkeypatch)
    assert "saturated: the source backlog grew" in text and "%|" in text
    frames = [frame for line in text.split("\n") for frame in line.split("\r")]
    assert max(map(len, frames)) <= 80, [frame for frame in frames if len(frame) > 80]
    assert max(map(len, capsys.readouterr().out.splitlines())) <= 80


@pytest.mark.parametrize("flags,end_us", [([], 2.5), (["--no-early-stop"], 3.0)])
def test_a_traffic_bar_ends_at_100_percent_of_the_time_the_run_simulated(monkeypatch, flags, end_us):
    """The core runs a window's packets within a few of the engine's events, so the last event's time lags the
    window's end: the bar ends where the driver says the run ended (the warm-up and the windows measured:
    3 of 4 when this saturated run stops early), not at that last event's time."""
    text = _saturated_traffic_on_a_terminal(monkeypatch, "--windows", "4", *flags)
    bars = [frame for line in text.split("\n") for frame in line.split("\r") if "%|" in frame]
    done, total = bars[-1].split("| ")[1].split(" us simulated")[0].split("/")
    assert float(done) / float(total) == 1.0 and float(total) == end_us and " 100%|" in bars[-1]


@pytest.mark.parametrize("columns", [80, 200])
def test_a_terminal_bar_drops_its_event_rate_only_when_the_line_would_not_fit(monkeypatch, columns):
    """tqdm cuts a line too long for the terminal at its end, mid-number; the bar leaves out its rate instead,
    and keeps it where there is room."""
    from ppt.progress import Line
    monkeypatch.setenv("COLUMNS", str(columns))
    stream = _Terminal()
    line = Line("traffic dragonfly-booksim", stream, time.perf_counter() - 1.0)
    line.show(1.89, 8.0, "us simulated", "2,273,512 events/s", 2)
    line.close()
    frames = [frame for text in stream.getvalue().split("\n") for frame in text.split("\r") if frame]
    assert frames and max(map(len, frames)) <= columns
    assert ("2,273,512 events/s" in frames[-1]) == (columns == 200) and "1.89/8.00 us simulated" in frames[-1]
    sweep = _Terminal()                        # a sweep's last point: dropped only when the bar has no room
    line = Line("sweep traffic", sweep, time.perf_counter() - 23.0)
    line.show(4, 4, "points", "last network.routing=ugal load=0.5")
    line.close()
    frames = [frame for text in sweep.getvalue().split("\n") for frame in text.split("\r") if frame]
    assert max(map(len, frames)) <= columns and "4/4 points" in frames[-1] and "|#" in frames[-1]
    assert ("last network.routing=ugal load=0.5" in frames[-1]) == (columns == 200)

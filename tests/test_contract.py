"""The network contract: every network kind serves the same drivers, and presets hold no unknown key."""
import json

import pytest

from ppt.apps.microbench import pingpong
from ppt.cli.main import main
from ppt.hardware.systems import list_systems, load_system
from ppt.interconnects.networks.kinds import network_kinds
from ppt.drivers.survey import latency_survey
from ppt.machine import Machine
from ppt.mpi.job import MPIJob


@pytest.mark.parametrize("kind", network_kinds())
def test_every_network_kind_serves_the_survey_pingpong_and_an_mpi_job(kind):
    machine = Machine(load_system("fattree-4-3"), network_kind=kind)
    survey = latency_survey(machine)
    assert survey["count"] == machine.num_nodes - 1
    assert 0 < survey["min_s"] <= survey["mean_s"] <= survey["max_s"]
    small, large = pingpong(machine, [8, 1 << 16])
    assert small["latency_s"] < large["latency_s"]
    assert large["bandwidth_Bps"] <= machine.network().injection_bandwidth_Bps

    def exchange(mpi):
        comm = mpi.COMM_WORLD
        return comm.sendrecv(comm.rank, dest=1 - comm.rank, source=1 - comm.rank, nbytes=64)

    result = MPIJob.on_machine(machine, 2, ranks_per_node=1, comm=None).run(exchange)
    assert result.returns == [1, 0] and result.predicted_s > 0


@pytest.mark.parametrize("name", list_systems())
def test_every_preset_builds_with_no_unknown_key(name):
    machine = Machine(load_system(name))         # the sections' keys are checked when loading
    assert machine.topology.num_nodes > 0        # and the topology's keys when it is built


@pytest.mark.parametrize("setting, message", [
    ("topology.levelz=9", "unknown setting topology.levelz; did you mean topology.levels?"),
    ("network.eager_treshold_B=1", "unknown setting network.eager_treshold_B; did you mean mpi.eager_threshold_B?"),
    ("network.packet.chunk=3", "did you mean network.packet.chunk_B?"),
    ("node.coress=4", "did you mean node.cores?"),
    ("mpi.eager=1", "unknown setting mpi.eager"),
    ("mpi.send_overhead=1e-6", "did you mean mpi.send_overhead_s?"),
    ("network.recv_overhead_s=1e-6", "did you mean mpi.recv_overhead_s?"),
    ("topolgy.levels=2", "did you mean topology?"),
])
def test_a_misspelled_setting_is_one_line_naming_the_nearest_key(capsys, setting, message):
    argv = ["traffic", "fattree-4-3", "--set", setting, "--load", "0.1", "--time", "1e-7", "--json"]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert message in err and err.count("\n") == 1 and "Traceback" not in err and out == ""


def test_network_vcs_below_what_the_routing_needs_is_refused(capsys):
    argv = ["traffic", "dragonfly-booksim", "--set", "network.vcs=2", "--routing", "ugal", "--load", "0.1",
            "--time", "1e-7"]
    assert main(argv) == 2
    assert "routing 'ugal' needs 3 virtual channels to be deadlock-free but network.vcs is 2" in \
        capsys.readouterr().err


def test_a_known_key_in_a_json_preset_file_loads_and_a_typo_does_not(tmp_path, capsys):
    preset = load_system("fattree-4-3")
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(preset))
    assert main(["topology", str(path), "--json"]) == 0
    preset["topology"]["portz"] = 4
    path.write_text(json.dumps(preset))
    capsys.readouterr()
    assert main(["topology", str(path)]) == 2
    assert "unknown setting topology.portz; did you mean topology.ports?" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["pingpong", "fattree-4-3", "--set", "topology.link_latency_s=-1e-7", "--sizes", "8"],
     "topology.link_latency_s must not be negative, got -1e-07"),
    (["pingpong", "fattree-4-3", "--set", "topology.router_delay_s=-1e-9", "--sizes", "8"],
     "topology.router_delay_s must not be negative"),
    (["pingpong", "dragonfly-booksim", "--set", "topology.global_bandwidth_Bps=0", "--sizes", "8"],
     "topology.global_bandwidth_Bps must be positive"),
    (["pingpong", "fattree-4-3", "--set", "mpi.recv_overhead_s=-1e-6", "--sizes", "8"],
     "mpi.recv_overhead_s must not be negative, got -1e-06"),
    (["traffic", "fattree-4-3", "--load", "0.1", "--time", "inf"], "argument --time: must be a finite number"),
    (["traffic", "fattree-4-3", "--load", "0.1", "--warmup", "inf"], "argument --warmup: must be a finite number"),
    (["traffic", "fattree-4-3", "--load", "0.1", "--warmup", "nan"], "argument --warmup: must be a finite number"),
    (["run", "examples/halo3d.py", "--system", "hopper", "--ranks", "8", "--ranks-per-node", "0"],
     "argument --ranks-per-node: must be a whole number of at least 1, got '0'"),
])
def test_values_without_physical_sense_are_refused_in_one_line(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_run_json_stays_json_when_the_script_prints(tmp_path, capsys):
    script = tmp_path / "chatty.py"
    script.write_text("def main(mpi):\n    print('rank', mpi.COMM_WORLD.rank, 'says hello')\n")
    assert main(["run", str(script), "--system", "hopper", "--ranks", "2", "--network", "analytic", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["ranks"] == 2 and "says hello" in err


@pytest.mark.parametrize("source, message", [
    ("def main(mpi)\n    pass\n", "script bad.py line 1: syntax error"),
    ("import no_such_module_here\n", "script bad.py line 1 failed while loading: ModuleNotFoundError"),
])
def test_a_broken_script_is_one_line(tmp_path, capsys, source, message):
    (tmp_path / "bad.py").write_text(source)
    assert main(["run", str(tmp_path / "bad.py"), "--system", "hopper", "--ranks", "2"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_unbalanced_script_args_and_an_unwritable_plot_fail_before_running(tmp_path, capsys):
    (tmp_path / "ok.py").write_text("def main(mpi):\n    pass\n")
    assert main(["run", str(tmp_path / "ok.py"), "--system", "hopper", "--ranks", "2",
                 "--script-args", "'open"]) == 2
    assert "--script-args" in capsys.readouterr().err
    missing = tmp_path / "no" / "such" / "plot.png"
    assert main(["snap", "mira", "--study", "2", "--cores", "64", "--network", "analytic",
                 "--plot", str(missing)]) == 2
    out, err = capsys.readouterr()
    assert "does not exist" in err and out == ""           # refused before any simulation ran


def test_progress_reports_no_rate_from_an_instant():
    from ppt.progress import Progress

    class Sim:
        rank, now, events = 0, 1e-6, 65536

    lines = []
    progress = Progress("x", interval_s=0.0)
    progress.note = lines.append
    progress(Sim())                      # a new simulation: too soon to know its rate
    assert lines == []


def test_a_topology_too_large_for_memory_is_refused_with_its_estimate(capsys):
    assert main(["topology", "torus-16x16x16", "--set", "topology.dims=[1000,1000,1000]"]) == 2
    err = capsys.readouterr().err
    assert "needs about 7" in err and "GiB" in err and "memory is available" in err and err.count("\n") == 1


@pytest.mark.parametrize("system, setting", [
    ("edison", "topology.green_latency_s=-1"),
    ("dragonfly-booksim", "topology.global_latency_s=-1"),
    ("slimfly-3k", "topology.link_latency_s=-1"),
    ("fattree-4-3", "topology.router_delay_s=-1"),
    ("torus-16x16x16", "topology.link_latency_s=-1"),
    ("fattree-4-3", "topology.link_latency_s=nan"),
])
def test_a_negative_or_undefined_latency_is_refused_naming_the_field(capsys, system, setting):
    assert main(["topology", system, "--set", setting]) == 2
    err = capsys.readouterr().err
    assert setting.split("=")[0] in err and err.count("\n") == 1, err

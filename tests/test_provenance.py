"""Every ``--json`` result says where it came from (``provenance``); ``ppt --version`` and ``ppt.__version__``
are setup.cfg's version; the repository carries its licence and changelog."""
import configparser
import json
from pathlib import Path

import pytest

import ppt
from ppt.cli.main import main
from ppt.provenance import FIELDS, comparable

ROOT = Path(__file__).resolve().parents[1]
MODEL = "def main(mpi):\n    mpi.COMM_WORLD.allreduce(1.0, nbytes=8)\n"


def setup_version():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    return cfg["metadata"]["version"]


def json_of(capsys, *argv):
    assert main([*map(str, argv), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("argv, system, network", [
    (["systems"], None, None),
    (["topology", "fattree-4-3"], "fattree-4-3", "packet"),
    (["pingpong", "fattree-4-3", "--sizes", "8"], "fattree-4-3", "packet"),
    (["traffic", "fattree-4-3", "--load", "0.2", "--warmup", "1e-6", "--time", "2e-6", "--routing", "single"],
     "fattree-4-3", "packet"),
    (["run", "{model}", "--system", "fattree-4-3", "--ranks", "2", "--network", "analytic", "--seed", "3"],
     "fattree-4-3", "analytic"),
    (["exec", "{program}", "-n", "2", "--system", "fattree-4-3", "--network", "analytic"], "fattree-4-3", "analytic"),
    (["snap", "edison", "--cores", "24", "--network", "auto", "--study", "1"], "edison", None),
])
def test_every_json_result_carries_its_provenance(argv, system, network, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PPT_QUIET", "1")
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "prog.py").write_text("from mpi4py import MPI\nMPI.COMM_WORLD.allreduce(1)\n")
    argv = [str(tmp_path / "model.py") if a == "{model}" else str(tmp_path / "prog.py") if a == "{program}" else a
            for a in argv]
    result = json_of(capsys, *argv)
    prov = result["provenance"]
    assert tuple(sorted(prov)) == tuple(sorted(FIELDS))
    assert prov["version"] == setup_version() and prov["system"] == system
    assert prov["command"] == " ".join(["ppt", *argv, "--json"]) and prov["wall_s"] > 0
    if system is None:
        assert prov["preset_sha256"] is None and prov["network"] is None
        return
    assert len(prov["preset_sha256"]) == 64 and prov["seed"] == (3 if "--seed" in argv else 0)
    assert prov["network"] == (network or result["network"])          # auto: the kind that ran
    assert prov["routing"] == ("single" if argv[0] == "traffic" else prov["routing"]) and prov["routing"]


def test_the_preset_hash_follows_the_resolved_preset(capsys):
    base = json_of(capsys, "topology", "fattree-4-3")["provenance"]["preset_sha256"]
    again = json_of(capsys, "topology", "fattree-4-3")["provenance"]["preset_sha256"]
    changed = json_of(capsys, "topology", "fattree-4-3", "--set", "network.nic_latency_s=1e-6")
    assert base == again != changed["provenance"]["preset_sha256"]


def test_comparable_drops_only_the_wall_time():
    one = json.dumps({"a": 1.5, "provenance": {"wall_s": 1.0, "command": "ppt x", "version": "1"}})
    two = json.dumps({"a": 1.5, "provenance": {"wall_s": 2.0, "command": "ppt x", "version": "1"}})
    assert one != two and comparable(one) == comparable(two)
    assert comparable(one) != comparable(two.replace("1.5", "1.25"))
    assert comparable(one, "command") == comparable(one.replace("ppt x", "ppt y"), "command")


def test_version_is_setup_cfgs(capsys):
    assert ppt.__version__ == setup_version()
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out == f"ppt {setup_version()}\n"


def test_without_installed_metadata_the_version_is_read_from_setup_cfg(monkeypatch):
    from importlib import metadata

    from ppt import provenance

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    provenance.version.cache_clear()
    try:
        assert provenance.version() == setup_version()
    finally:
        provenance.version.cache_clear()


def test_licence_and_changelog_match_the_release():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    assert cfg["metadata"]["license"] == "BSD-3-Clause"
    licence = (ROOT / "LICENSE").read_text()
    assert "The PPT developers" in licence and "Neither the name of the copyright holder" in licence
    assert f"## {setup_version()}" in (ROOT / "CHANGELOG.md").read_text()

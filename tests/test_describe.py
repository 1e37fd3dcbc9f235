"""ppt describe, and the declarations it prints: every preset key is declared, an undeclared one is refused."""
from __future__ import annotations

import json

import pytest

from ppt.catalogue import components, preset_sections
from ppt.cli.tool.describe import shown
from ppt.cli.main import main
from ppt.errors import ConfigError
from ppt.hardware.systems import PRESET_PARAMS, list_systems, load_system, section_of

EVERY = components()
SHOWN = ["dragonfly", "torus", "gemini", "aries", "network", "network.packet", "mpi", "node"]


@pytest.fixture(autouse=True)
def columns(monkeypatch):
    """A terminal of 80 columns, whatever runs the tests."""
    monkeypatch.setenv("COLUMNS", "80")


def describe(capsys, *argv) -> str:
    assert main(["describe", *argv]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("name", list_systems())
def test_every_key_of_every_shipped_preset_is_declared(name):
    preset = load_system(name)
    assert set(preset) <= {param.name for param in PRESET_PARAMS}
    for section, component in preset_sections(preset, EVERY).items():
        declared = {param.name for param in component.params} | ({"kind"} if section == "topology" else set())
        assert set(section_of(preset, section)) <= declared, (section, set(section_of(preset, section)) - declared)


@pytest.mark.parametrize("section", ["preset", "topology", "network", "network.packet", "mpi", "node"])
def test_a_preset_key_without_a_declared_parameter_is_refused(tmp_path, capsys, section):
    preset = load_system("fattree-4-3")
    section_of(preset, section)["undeclared_key"] = 1
    path = tmp_path / "typo.json"
    path.write_text(json.dumps(preset))
    with pytest.raises(ConfigError) as error:
        load_system(str(path))
    message = str(error.value)
    assert f"{section}.undeclared_key" in message and "\n" not in message
    # and so from the command line: one line, no traceback
    assert main(["describe", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{section}.undeclared_key" in err and "Traceback" not in err


def test_the_list_has_one_line_per_kind_and_section(capsys):
    lines = describe(capsys).splitlines()
    for name, component in EVERY.items():
        line = next(line for line in lines if line.startswith(f"{name}  "))
        assert line.split(None, 1)[1] == component.summary            # the whole summary, on its one line


@pytest.mark.parametrize("name", SHOWN)
def test_a_component_shows_each_declared_parameter_with_its_default(capsys, name):
    lines = describe(capsys, name).splitlines()
    rows = {line.split()[0]: line for line in lines if line[:1] not in ("", " ", "-")}
    for param in EVERY[name].params:
        assert param.name in rows, param.name
        assert f"  {shown(param.default)}" in rows[param.name], (param.name, rows[param.name])
        after = lines[lines.index(rows[param.name]) + 1:][:4]      # its meaning, under the row's wrapped cells
        assert any(line.startswith(f"    {param.meaning.split()[0]} ") for line in after), (param.name, after)


def test_a_topology_lists_its_routings(capsys):
    out = describe(capsys, "dragonfly")
    assert "routings (network.routing):" in out and "ugal" in out


@pytest.mark.parametrize("name", [None, *EVERY, "edison", "dgx-a100", "hopper"])
def test_every_line_fits_80_columns(capsys, name):
    lines = describe(capsys, *([name] if name else [])).splitlines()
    assert lines and max(len(line) for line in lines) <= 80


def test_json_gives_the_declarations_with_version_and_command(capsys):
    result = json.loads(describe(capsys, "dragonfly", "--json"))
    params = EVERY["dragonfly"].params
    assert [row["parameter"] for row in result["parameters"]] == [param.name for param in params]
    assert [row["default"] for row in result["parameters"]] == [param.default for param in params]
    assert result["provenance"]["version"] and result["provenance"]["command"] == "ppt describe dragonfly --json"
    listed = json.loads(describe(capsys, "--json"))
    assert {row["name"] for row in listed["topologies"] + listed["sections"]} == set(EVERY)


def test_a_preset_shows_its_values_against_the_defaults_and_their_sources(capsys):
    result = json.loads(describe(capsys, "edison", "--json"))
    eager = next(row for row in result["sections"]["mpi"] if row["parameter"] == "eager_threshold_B")
    assert eager["set"] and eager["value"] == 8192 and eager["default"] == 8192
    assert any(result["sources"][i - 1].startswith("eager_threshold_B") for i in eager["sources"])
    poll = next(row for row in result["sections"]["mpi"] if row["parameter"] == "poll_overhead_s")
    assert not poll["set"] and poll["sources"] == []
    assert result["topology_kind"] == "aries"
    out = describe(capsys, "edison")
    assert "topology (aries):" in out and "sources:" in out


@pytest.mark.parametrize("name, suggested", [("dragonfyl", "dragonfly"), ("edisn", "edison"), ("netwrk", "network")])
def test_an_unknown_name_is_one_line_with_the_closest_names(capsys, name, suggested):
    assert main(["describe", name]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and suggested in err and "Traceback" not in err


def test_the_docs_reference_page_is_what_the_declarations_generate():
    from pathlib import Path
    from ppt.cli.tool.describe import REFERENCE_COMMAND, REFERENCE_PAGE, reference_markdown
    page = Path(__file__).resolve().parent.parent / REFERENCE_PAGE
    assert page.read_text(encoding="utf-8") == reference_markdown(list(EVERY.values())), \
        f"{REFERENCE_PAGE} differs from the Param declarations; regenerate it: {REFERENCE_COMMAND}"


def test_the_reference_page_has_a_row_per_declared_key_with_its_unit_and_default():
    from ppt.cli.tool.describe import reference_markdown
    text = reference_markdown(list(EVERY.values()))
    for component in EVERY.values():
        assert f"### {component.name}\n" in text
        for param in component.params:
            row = next(line for line in text.split(f"### {component.name}\n")[1].splitlines()
                       if line.startswith(f"| `{param.name}` |"))
            cells = [cell.strip() for cell in row.strip("|").split(" | ")]
            assert cells[2] == param.unit
            assert cells[3] == ("required" if param.default == "required" else f"`{shown(param.default)}`")
    assert "| `nic_bandwidth_Bps` | float | B/s | required | > 0 |" in text


def test_describe_markdown_prints_one_component_and_refuses_a_system_preset(capsys):
    text = describe(capsys, "--markdown", "dragonfly")
    assert text.startswith("# dragonfly\n") and "| `global_bandwidth_Bps` |" in text and "# mpi" not in text
    assert "Routings (`network.routing`):" in text and "`ugal`" in text
    for name, said in (("edison", "not the system preset 'edison'"), ("dragonfy", "did you mean dragonfly")):
        assert main(["describe", "--markdown", name]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and said in err

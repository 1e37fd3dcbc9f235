"""``ppt describe``: the keys each topology kind and preset section declares, or a preset's values."""
from __future__ import annotations

import json
import textwrap

from ppt.cli.output import add_json_flag, emit, format_table, paragraph, terminal_width
from ppt.errors import PPTError

HELP = "the parameters of a topology kind or preset section, or a system preset's values against the defaults"


def add_arguments(parser) -> None:
    parser.add_argument("name", nargs="?", metavar="NAME",
                        help="a topology kind (dragonfly), a preset section (network, mpi) or a system preset "
                             "(see 'ppt systems'); none: list the kinds and sections")
    parser.add_argument("--markdown", action="store_true",
                        help="print the parameters of every kind and section (or of NAME) as the Markdown of "
                             f"the docs reference page ({REFERENCE_PAGE} is '{REFERENCE_COMMAND}')")
    add_json_flag(parser)


#: The docs reference page, generated from the declarations by ``ppt describe --markdown``.
REFERENCE_PAGE = "docs/reference/parameters.md"
#: The command that writes it, from the checkout's root.
REFERENCE_COMMAND = f"ppt describe --markdown > {REFERENCE_PAGE}"


def run(args) -> int:
    from ppt.catalogue import components
    every = components()
    if args.markdown:
        if args.json:
            raise PPTError("--markdown and --json each choose the output; give one")
        if args.name is not None and args.name not in every:
            read_named_preset(args.name, every)          # the same error for a misspelling
            raise PPTError(f"--markdown describes topology kinds and preset sections, not the system preset "
                           f"{args.name!r}; drop --markdown for its values")
        chosen = [every[args.name]] if args.name is not None else list(every.values())
        print(reference_markdown(chosen, whole=args.name is None), end="")
    elif args.name is None:
        show_catalogue(args, every)
    elif args.name in every:
        show_component(args, every[args.name])
    else:
        show_preset(args, read_named_preset(args.name, every))
    return 0


def read_named_preset(name: str, every: dict) -> dict:
    """System preset ``name`` (a name or a .json file); for any other name, a one-line error suggesting
    the closest names."""
    from ppt.cli.common import read_system
    from ppt.config import closest
    from ppt.hardware.systems import list_systems, list_user_systems
    presets = [*list_systems(), *list_user_systems()]
    if name in presets or name.endswith(".json") or "/" in name:
        return read_system(name)
    close = closest(name, [*every, *presets])
    hint = f"did you mean {', '.join(close)}?" if close else "see 'ppt describe' and 'ppt systems'"
    raise PPTError(f"{name!r} is no topology kind, preset section or system preset; {hint}")


def show_catalogue(args, every: dict) -> None:
    """One line per topology kind and per section."""
    groups = {"topologies": ("topology kinds", "topology"), "sections": ("preset sections", "section")}
    result = {key: [{"name": c.name, "summary": c.summary} for c in every.values() if c.kind == kind]
              for key, (_, kind) in groups.items()}
    parts = [f"{title}:\n" + format_table(["name", "summary"], [[r["name"], r["summary"]] for r in result[key]])
             for key, (title, _) in groups.items()]
    parts.append("ppt describe NAME: the parameters of a kind or section\n"
                 "ppt describe SYSTEM: a preset's values against the defaults (see ppt systems)")
    emit(args, result, text="\n\n".join(parts))


def show_component(args, component) -> None:
    """Every parameter of one kind or section: name, type, unit, default, allowed values and meaning."""
    rows = [param.describe() for param in component.params]
    result = {"name": component.name, "kind": component.kind, "summary": component.summary, "parameters": rows}
    if component.routings:
        result["routings"] = list(component.routings)
    text = [paragraph(f"{component.name} ({component.kind}): {component.summary}"), parameter_table(rows)]
    if component.routings:
        text.append(paragraph(f"routings (network.routing): {', '.join(component.routings)}"))
    emit(args, result, text="\n".join(text))


def parameter_table(rows: list[dict]) -> str:
    """The parameters as a table of name, type, unit, default and allowed values, each row followed by its
    meaning, indented and wrapped, so the meaning has the terminal's width."""
    width = terminal_width()
    lines = format_table(["parameter", "type", "unit", "default", "allowed"],
                         [[r["parameter"], r["type"], r["unit"], shown(r["default"]), r["allowed"]] for r in rows],
                         width).splitlines()
    rule = next(i for i, line in enumerate(lines) if line.startswith("-") and set(line) <= {"-", " "})
    text = lines[:rule + 1]
    for row_lines, row in zip(_rows(lines[rule + 1:]), rows):
        text += row_lines + textwrap.wrap(row["meaning"], width, initial_indent="    ", subsequent_indent="    ",
                                          break_long_words=False, break_on_hyphens=False)
    return "\n".join(text)


def _rows(lines: list[str]) -> list[list[str]]:
    """A table's lines under its rule, by row: a row's first line starts with its first cell, the lines
    it wraps onto with blanks."""
    rows = []
    for line in lines:
        if line[:1] != " " or not rows:
            rows.append([])
        rows[-1].append(line)
    return rows


def show_preset(args, preset: dict) -> None:
    """A preset's values, section by section, against the declared defaults, and its sources."""
    from ppt.catalogue import compare
    sections = compare(preset)
    sources = [str(s) for s in preset.get("sources", [])]
    kind = preset["topology"].get("kind")
    result = {"system": preset.get("name"), "description": preset.get("description", ""), "topology_kind": kind,
              "sections": sections, "sources": sources}
    text = [paragraph(f"{result['system']}: {result['description']}".rstrip(": "))]
    for name, rows in sections.items():
        title = f"{name} ({kind})" if name == "topology" else name
        table = format_table(["parameter", "unit", "value", "default", "sources"],
                             [[r["parameter"], r["unit"], shown(r["value"]) if r["set"] else "",
                               shown(r["default"]), ", ".join(map(str, r["sources"]))] for r in rows])
        text.append(f"\n{title}:\n{table}")
    if sources:
        text.append("\nsources:")
        width = terminal_width()
        for i, source in enumerate(sources, 1):     # addresses are cut where they pass the terminal's width
            text += textwrap.wrap(f"[{i}] {source}", width, subsequent_indent="    ", break_on_hyphens=False)
    emit(args, result, text="\n".join(text))


def shown(value) -> str:
    """A default or a value as a preset writes it (JSON), floats to 6 significant digits."""
    if isinstance(value, str):          # a name, or ppt.params.REQUIRED
        return value
    return f"{value:.6g}" if isinstance(value, float) else json.dumps(value)


def reference_markdown(chosen, whole: bool = True) -> str:
    """The Markdown of the parameters reference page: for each component of ``chosen`` (topology kinds,
    then preset sections), its summary, a table of its parameters (name, type, unit, default, allowed,
    meaning) and its routings; ``whole``: with the page's title and introduction."""
    from ppt.params import REQUIRED
    text = []
    if whole:
        text += ["# Preset parameters", "",
                 f"<!-- Generated from the Param declarations by '{REFERENCE_COMMAND}'; do not edit. -->", "",
                 "Every key a system preset may set, as the component that reads it declares it "
                 "(`ppt describe NAME` prints the same on a terminal). A key none declares is an error naming "
                 "the nearest valid key; `--set SECTION.KEY=VALUE` overrides any of them on the command line. "
                 "Units are SI, named by the key's suffix (`_s` seconds, `_B` bytes, `_Bps` bytes per second).",
                 ""]
        for kind, title in (("topology", "Topology kinds"), ("section", "Preset sections")):
            names = [f"[`{c.name}`](#{anchor(c.name)})" for c in chosen if c.kind == kind]
            text.append(f"- {title} (`topology.kind`):" if kind == "topology" else f"- {title}:")
            text[-1] += " " + ", ".join(names)
        text.append("")
    for kind, title in (("topology", "Topology kinds"), ("section", "Preset sections")):
        members = [c for c in chosen if c.kind == kind]
        if whole and members:
            text += [f"## {title}", ""]
        for component in members:
            text += [f"{'###' if whole else '#'} {component.name}", "", f"{_cell(component.summary)}.", "",
                     "| parameter | type | unit | default | allowed | meaning |", "|---|---|---|---|---|---|"]
            for row in (param.describe() for param in component.params):
                default = row["default"] if row["default"] == REQUIRED else f"`{_cell(shown(row['default']))}`"
                text.append(f"| `{row['parameter']}` | {row['type']} | {row['unit']} | {default} | "
                            f"{_cell(row['allowed'])} | {_cell(row['meaning'])} |")
            if component.routings:
                text += ["", "Routings (`network.routing`): " + ", ".join(f"`{r}`" for r in component.routings) + "."]
            text.append("")
    return "\n".join(text)


def anchor(name: str) -> str:
    """The anchor MkDocs gives a heading ``name`` ("network.packet" -> "networkpacket")."""
    return "".join(ch for ch in name.lower() if ch.isalnum() or ch in "-_ ").replace(" ", "-")


def _cell(text: str) -> str:
    """``text`` as a Markdown table cell: pipes escaped."""
    return str(text).replace("|", "\\|")

"""mkdocs hooks (see mkdocs.yml): let the API reference read the ``ppt`` package as it is installed.

setup.cfg maps the folders ``hardware/``, ``interconnects/``, ``apps/`` and
``traces/`` into the ``ppt`` namespace (``package_dir``).  Python's import
system follows that map, but the reference's static reader (griffe) looks for
``ppt.hardware`` in ``ppt/hardware/``.  Before the build, this hook lays the
package out as installed -- a temporary folder whose ``ppt/`` holds links to the
entries of ``ppt/`` and to the mapped folders -- and points the reader there.
It also turns the reStructuredText roles of the docstrings (``:class:`~a.B```)
into code spans, since the reference renders docstrings as Markdown.
"""
from __future__ import annotations

import atexit
import configparser
import re
import shutil
import tempfile
from pathlib import Path

import griffe
from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parents[1]

#: ``:role:`target``` and ``:role:`~dotted.target``` (the latter shows the last name only).
ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const):`(~?)([^`]+)`")


def package_dirs() -> dict[str, str]:
    """``package_dir`` of setup.cfg: import name -> folder (relative to the repository)."""
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    pairs = (line.split("=", 1) for line in config["options"]["package_dir"].splitlines() if "=" in line)
    return {name.strip(): folder.strip() for name, folder in pairs}


def installed_layout() -> Path:
    """A temporary folder holding ``ppt/`` as installed (symbolic links), removed at exit."""
    stage = Path(tempfile.mkdtemp(prefix="ppt-docs-"))
    atexit.register(shutil.rmtree, stage, True)
    folders = package_dirs()
    package = stage / "ppt"
    package.mkdir()
    for entry in (ROOT / folders.pop("ppt")).iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    for name, folder in folders.items():
        (package / name.split(".", 1)[1]).symlink_to(ROOT / folder, target_is_directory=True)
    return stage


@event_priority(100)          # before mkdocstrings sets up its handler from this configuration
def on_config(config):
    python = config.plugins["mkdocstrings"].config.handlers.setdefault("python", {})
    python["paths"] = [str(installed_layout())]
    options = python.setdefault("options", {})
    options["extensions"] = [*options.get("extensions", []), {f"{Path(__file__)}:ReSTRoles": {}}]
    return config


class ReSTRoles(griffe.Extension):
    """Docstrings' reStructuredText as Markdown shows it: roles as code spans
    (``:class:`~ppt.machine.Machine``` -> ``Machine``), ``::`` before a literal block as ``:``
    and simple tables as preformatted text."""

    def on_instance(self, *, obj, **kwargs) -> None:
        if obj.docstring is not None:
            text = ROLE.sub(_code, obj.docstring.value)
            text = LITERAL.sub(r"\1:\n", text)      # "e.g.::" before an indented block: the block stays code
            obj.docstring.value = _tables_as_text(text)


def _code(match: re.Match) -> str:
    short, target = match.groups()
    return f"`{target.rsplit('.', 1)[-1] if short else target}`"


#: The ``::`` that ends a paragraph introducing a literal block.
LITERAL = re.compile(r"(\S)::\n(?=\s*\n)")

#: A border line of a reStructuredText simple table: columns of ``=`` separated by spaces.
BORDER = re.compile(r"^\s*=+( +=+)+\s*$")


def _tables_as_text(text: str) -> str:
    """Wrap each simple table (from its first border to the border that ends it, one followed by a
    blank line or the end) in a fenced block, so its columns keep their alignment."""
    lines = text.splitlines()
    out, i = [], 0
    while i < len(lines):
        if BORDER.match(lines[i]):
            end = next((j for j in range(i + 1, len(lines))
                        if BORDER.match(lines[j]) and (j + 1 == len(lines) or not lines[j + 1].strip())), None)
            if end is not None:
                out += ["", "```text", *lines[i:end + 1], "```", ""]
                i = end + 1
                continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


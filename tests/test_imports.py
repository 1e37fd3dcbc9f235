"""The package's modules import one another without circles.

A circle (A imports B, B imports A, at module level or inside a function)
means neither module can be read, tested or moved without the other.  The
graph counts every ``import`` statement of every module of the installed
packages (of a Cython module, its Python imports); ``from package import
name`` counts an edge to the module ``package.name`` where one exists, else to
the package.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Import name -> folder, as setup.cfg's package_dir maps them.
FOLDERS = {"ppt": "ppt", "ppt.hardware": "hardware", "ppt.interconnects": "interconnects", "ppt.apps": "apps",
           "ppt.traces": "traces"}


def modules() -> dict[str, Path]:
    found = {}
    for package, folder in FOLDERS.items():
        for path in [*(ROOT / folder).rglob("*.py"), *(ROOT / folder).rglob("*.pyx")]:
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((package, *parts))] = path
    return found


def python_source(path: Path) -> str:
    """The text of module ``path`` that ``ast`` reads: of a Cython module, its Python imports alone, one a line
    (its ``cimport`` lines and the rest are Cython's)."""
    text = path.read_text()
    if path.suffix != ".pyx":
        return text
    return "\n".join(m.group(1) for m in re.finditer(r"^[ \t]*((?:from [\w.]+ )?import (?:\([^)]*\)|.*))$", text, re.M))


def import_graph(found: dict[str, Path]) -> dict[str, set[str]]:
    graph = {}
    for name, path in found.items():
        targets = set()
        for node in ast.walk(ast.parse(python_source(path), str(path))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                submodules = {f"{node.module}.{alias.name}" for alias in node.names} & found.keys()
                targets.update(submodules)
                if len(submodules) < len(node.names):
                    targets.add(node.module)
        graph[name] = {target for target in targets if target in found and target != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for succ in edges:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_circles_are_found_in_a_small_graph():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e2"}, "e2": set()}
    assert circles(graph) == [["a", "b", "c"]]


def test_no_module_of_the_package_imports_itself_in_a_circle():
    found = modules()
    assert "ppt.interconnects.networks.packetnet" in found and "ppt.mpi.surface.communicators.comm" in found
    assert circles(import_graph(found)) == []


def test_an_import_inside_a_function_closes_a_circle(tmp_path):
    # a function-level import is an edge too: that is where circles hide
    (tmp_path / "a.py").write_text("def late():\n    from pkg import b\n    return b\n")
    (tmp_path / "b.py").write_text("from pkg.a import late\n")
    (tmp_path / "c.py").write_text("from pkg import a\n")
    found = {f"pkg.{name}": tmp_path / f"{name}.py" for name in "abc"}
    assert circles(import_graph(found)) == [["pkg.a", "pkg.b"]]


#: The subsystems from the bottom up: a module may import its own subsystem's modules and those of lower
#: layers, never a higher layer's or a sibling's in its own layer.  A subsystem is a folder of the
#: package (``ppt.mpi``) or a module at its top (``ppt.errors``).
LAYERS = (
    ("ppt.errors",),
    ("ppt.units", "ppt.terminal", "ppt.plotstyle"),
    ("ppt.config", "ppt.textfile", "ppt.atomicfile", "ppt.log", "ppt.oprecord", "ppt.progress", "ppt.hostmemory"),
    ("ppt.params",),
    ("ppt.engine",),
    ("ppt.interconnects",),
    ("ppt.mpi",),
    ("ppt.hardware", "ppt.traces"),
    ("ppt.provenance", "ppt.scripts", "ppt.exec", "ppt.record"),
    ("ppt.machine", "ppt.hint", "ppt.drivers", "ppt.catalogue"),
    ("ppt.jobs", "ppt.apps"),
    ("ppt.sweep", "ppt.bench"),
    ("ppt.cli",),
    ("ppt.api",),
)


#: The rooms of ``ppt.mpi``, lowest first, in the same way: the base modules, the collectives, the
#: compiled engine (``ppt.mpi.engine.core``, its C extension, which the surface calls: a room of its own
#: below its parent's), the mpi4py surface, the engine's Python, and the job (the package's ``__init__``
#: above all).
MPI_LAYERS = (
    ("ppt.mpi.constants", "ppt.mpi.errors", "ppt.mpi.classes"),
    ("ppt.mpi.settings", "ppt.mpi.stats", "ppt.mpi.mapping"),
    ("ppt.mpi.unsupported",),
    ("ppt.mpi.collectives",),
    ("ppt.mpi.engine.core",),
    ("ppt.mpi.surface",),
    ("ppt.mpi.engine",),
    ("ppt.mpi.job",),
)


#: The rooms of ``ppt.cli`` in the same way: the shared plumbing (output, common arguments, job lists, the
#: parser, which finds each command module by name), the commands' rooms, and ``main`` above all.
CLI_LAYERS = (
    ("ppt.cli.output",),
    ("ppt.cli.common",),
    ("ppt.cli.jobmix", "ppt.cli.parser"),
    ("ppt.cli.network", "ppt.cli.predict", "ppt.cli.tool", "ppt.cli.traces"),
    ("ppt.cli.main",),
)


#: The rooms of ``ppt.mpi.surface`` in the same way: buffers and datatypes, the core of every call, the
#: communicators, the topologies beside RMA, and above them the modules that tie the rooms together, ``api``
#: (the ``MPI`` object) above all.
SURFACE_LAYERS = (
    ("ppt.mpi.surface.buffers",),
    ("ppt.mpi.surface.core",),
    ("ppt.mpi.surface.communicators",),
    ("ppt.mpi.surface.topology", "ppt.mpi.surface.rma"),
    ("ppt.mpi.surface.environment", "ppt.mpi.surface.lanl"),
    ("ppt.mpi.surface.names",),
    ("ppt.mpi.surface.api",),
)


def subsystem(module: str, depth: int = 2) -> str:
    """The subsystem ``module`` belongs to: ``ppt.mpi.surface.api`` -> ``ppt.mpi`` (``depth`` 3: its room
    in the subsystem, ``ppt.mpi.surface``)."""
    return ".".join(module.split(".")[:depth])


def room(module: str, layers, depth: int) -> str:
    """The room of ``module`` in ``layers``: the deepest package listed that holds it (a room listed
    inside another, as ``ppt.mpi.engine.core`` inside ``ppt.mpi.engine``, is one apart), else its
    subsystem at ``depth``."""
    held = [name for layer in layers for name in layer if module == name or module.startswith(name + ".")]
    return max(held, key=len, default=subsystem(module, depth))


def upward_imports(graph: dict[str, set[str]], layers=LAYERS, top: str = "ppt") -> list[tuple[str, str]]:
    """Every import edge among the modules under ``top`` that points to a higher layer or to a sibling
    subsystem of its own layer; ``top`` itself (its package's ``__init__``) is above all."""
    depth = top.count(".") + 2
    level = {name: k for k, layer in enumerate(layers) for name in layer}
    found = []
    for source, targets in sorted(graph.items()):
        if source == top or not source.startswith(top + "."):
            continue
        for target in sorted(targets):
            if not target.startswith(top + "."):
                continue
            a, b = room(source, layers, depth), room(target, layers, depth)
            if a != b and level[b] >= level[a]:
                found.append((source, target))
    return found


def test_every_subsystem_has_a_layer():
    assert {subsystem(name) for name in modules() if name != "ppt"} == {n for layer in LAYERS for n in layer}


def test_an_upward_or_sideways_import_is_found():
    graph = {"ppt.mpi.surface.comm": {"ppt.traces.replay", "ppt.engine.core"}, "ppt.hardware.node": {"ppt.traces.opstream"},
             "ppt.traces.replay": {"ppt.mpi.surface.comm"}}
    assert upward_imports(graph) == [("ppt.hardware.node", "ppt.traces.opstream"),
                                     ("ppt.mpi.surface.comm", "ppt.traces.replay")]


def test_a_room_listed_inside_another_is_a_room_apart():
    # the compiled engine sits below the surface that calls it, the engine's Python above the surface
    graph = {"ppt.mpi.surface.core.fast": {"ppt.mpi.engine.core"}, "ppt.mpi.engine.core": {"ppt.mpi.engine.replay"},
             "ppt.mpi.surface.rma.window": {"ppt.mpi.engine.replay"}}
    assert upward_imports(graph, MPI_LAYERS, "ppt.mpi") == [("ppt.mpi.engine.core", "ppt.mpi.engine.replay"),
                                                           ("ppt.mpi.surface.rma.window", "ppt.mpi.engine.replay")]


def test_imports_point_down_only():
    assert upward_imports(import_graph(modules())) == []


def test_every_room_of_the_mpi_subsystem_has_a_layer():
    rooms = {room(name, MPI_LAYERS, 3) for name in modules() if name.startswith("ppt.mpi.")}
    assert rooms == {n for layer in MPI_LAYERS for n in layer}


def test_imports_within_the_mpi_subsystem_point_down_only():
    assert upward_imports(import_graph(modules()), MPI_LAYERS, "ppt.mpi") == []


def test_every_room_of_the_mpi_surface_has_a_layer():
    rooms = {subsystem(name, 4) for name in modules() if name.startswith("ppt.mpi.surface.")}
    assert rooms == {n for layer in SURFACE_LAYERS for n in layer}


def test_imports_within_the_mpi_surface_point_down_only():
    graph = import_graph(modules())
    assert {"ppt.mpi.surface.buffers.arguments", "ppt.mpi.surface.core.requests"} <= graph["ppt.mpi.surface.core.fast"]
    assert upward_imports(graph, SURFACE_LAYERS, "ppt.mpi.surface") == []


def test_every_room_of_the_cli_has_a_layer():
    rooms = {subsystem(name, 3) for name in modules() if name.startswith("ppt.cli.")}
    assert rooms == {n for layer in CLI_LAYERS for n in layer}


def test_imports_within_the_cli_point_down_only():
    assert upward_imports(import_graph(modules()), CLI_LAYERS, "ppt.cli") == []


def test_every_command_module_is_in_the_room_the_registry_names():
    from ppt.cli.parser import COMMANDS
    rooms = CLI_LAYERS[3]
    in_rooms = {name for name in modules() if subsystem(name, 3) in rooms and name not in rooms}
    assert in_rooms == {f"ppt.cli.{room}.{command}" for command, room in COMMANDS.items()}

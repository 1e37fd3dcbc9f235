"""The compiled core's structure, read from its sources: no include cycle between its units, the live
network's private state seen only by the network's own parts, public headers free of private ones,
and the MPI engine (an extension of its own) built against the packet core's public headers only.

A unit is a .c file with its headers, named alike: ``net.c``, ``net.h`` and the private ``_net.h``
are the unit ``net``.  Unit A depends on unit B when a file of A includes a header of B; a cycle
(A's files include B's headers and B's files include A's) would mean neither can be read, changed
or tested without the other.
"""
import re
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parent.parent / "interconnects" / "core"
ENGINE = CORE.parent.parent / "ppt" / "mpi" / "engine" / "core"
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)"', re.M)
#: The files that may see the live network's struct (_net.h): the network's own parts.
NET_PARTS = {"net.c", "observe.c", "traffic.c"}


def includes(folder: Path = CORE) -> dict[str, set[str]]:
    """The local headers each C source and header of ``folder`` includes."""
    return {p.name: set(INCLUDE.findall(p.read_text())) for p in sorted(folder.glob("*.[ch]"))}


def unit(name: str) -> str:
    return Path(name).stem.lstrip("_")


def unit_graph(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """Unit -> the other units whose headers its files include."""
    graph: dict[str, set[str]] = {}
    for name, headers in edges.items():
        graph.setdefault(unit(name), set()).update(unit(h) for h in headers if unit(h) != unit(name))
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The units of every strongly connected component of more than one unit (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(u: str) -> None:
        index[u] = low[u] = len(index)
        stack.append(u)
        for v in sorted(graph.get(u, ())):
            if v not in index:
                visit(v)
                low[u] = min(low[u], low[v])
            elif v in stack:
                low[u] = min(low[u], index[v])
        if low[u] == index[u]:
            component = []
            while True:
                v = stack.pop()
                component.append(v)
                if v == u:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for u in sorted(graph):
        if u not in index:
            visit(u)
    return found


def test_the_checker_finds_a_cycle_through_a_private_header():
    edges = {"a.c": {"a.h", "_b.h"}, "_b.h": {"b.h"}, "b.c": {"_b.h", "c.h"}, "c.c": {"a.h"}, "d.c": {"a.h"}}
    assert cycles(unit_graph(edges)) == [["a", "b", "c"]]
    assert cycles(unit_graph({"a.c": {"a.h", "_a.h"}, "b.c": {"a.h"}})) == []


def test_no_include_cycle_between_units_of_the_core():
    assert cycles(unit_graph(includes())) == []


def test_only_the_networks_own_parts_see_its_struct():
    seen_by = {name for name, headers in includes().items() if "_net.h" in headers}
    assert seen_by <= NET_PARTS, f"{sorted(seen_by - NET_PARTS)} include _net.h; give them an accessor in net.c"


@pytest.mark.parametrize("header", sorted(p.name for p in CORE.glob("*.h") if not p.name.startswith("_")))
def test_public_headers_include_only_public_headers(header):
    private = sorted(h for h in includes()[header] if h.startswith("_"))
    assert not private, f"{header} (public: read by cffi and the MPI engine) includes private {private}"


def test_the_engine_includes_only_public_headers_of_the_packet_core():
    # the engine reaches the packet core through its public headers and the table of calls coreapi.h
    # declares, never through the packet core's private state
    own = {p.name for p in ENGINE.glob("*.h")}
    public = {p.name for p in CORE.glob("*.h") if not p.name.startswith("_")}
    assert "coreapi.h" in includes(ENGINE)["_mpicore.h"]
    assert not own & {p.name for p in CORE.glob("*.h")}, "a header named alike in both folders: ambiguous includes"
    wrong = {name: sorted(headers - own - public) for name, headers in includes(ENGINE).items()
             if headers - own - public}
    assert not wrong, f"the MPI engine includes headers that are not the packet core's public ones: {wrong}"


def test_the_core_and_the_engine_lay_out_event_keys_alike():
    from ppt.engine.entity import KEY_BITS
    from ppt.interconnects.core import lib
    assert lib.PPT_KEY_BITS == KEY_BITS


def test_the_engine_numbers_op_kinds_as_the_op_record_does():
    # the build defines OP_<NAME> for the C engine from ppt/oprecord.py's source: every kind, its own value
    import importlib.util
    from ppt.oprecord import Op
    spec = importlib.util.spec_from_file_location("engine_build", ENGINE / "build.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    assert dict(build.op_kinds()) == {f"OP_{kind.name}": str(kind.value) for kind in Op}
    used = set(re.findall(r"\bOP_[A-Z_]+\b", (ENGINE / "replay.c").read_text()))
    assert used - {"OP_DONE", "OP_BLOCKED"} <= {f"OP_{kind.name}" for kind in Op}

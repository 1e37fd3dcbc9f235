"""Fixtures shared by the test modules."""
import shutil

import pytest


@pytest.fixture
def copied_set(tmp_path):
    """A writable copy of a small real trace set; returns (folder, .meta path, rank files)."""
    from shared_traces import MANIFEST, TRACES
    folder = tmp_path / "set"
    shutil.copytree(TRACES / MANIFEST["npb_ft_W_n4"]["folder"], folder)
    for f in folder.iterdir():
        f.chmod(0o644)
    return folder, next(folder.glob("*.meta")), sorted(folder.glob("*.bin"))


#: The words every skip for want of the shared DUMPI traces says (shared_traces.SKIP_REASON).
SHARED_SKIP = "shared DUMPI traces not found"


def _tests_in(path) -> int:
    """Test functions defined in the module at ``path`` (a parametrized one counts once)."""
    import ast
    from pathlib import Path
    try:
        tree = ast.parse(Path(path).read_text())
    except (OSError, SyntaxError):
        return 0
    return sum(isinstance(node, ast.FunctionDef) and node.name.startswith("test") for node in ast.walk(tree))


def pytest_terminal_summary(terminalreporter):
    """One line saying how many tests did not run for want of the shared DUMPI traces, and why."""
    tests, modules = 0, set()
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        if not (isinstance(longrepr, tuple) and SHARED_SKIP in str(longrepr[2])):
            continue
        if getattr(report, "when", "collect") == "collect":     # a module skipped whole at import
            modules.add(report.nodeid)
            tests += _tests_in(terminalreporter.config.rootpath / report.nodeid)
        else:
            tests += 1
    if tests:
        where = f" ({len(modules)} modules skipped whole)" if modules else ""
        terminalreporter.write_line(
            f"shared traces: {tests} trace tests did not run{where}: the SST-DUMPI traces of real runs are not "
            "at ../shared/traces; set PPT_SHARED_TRACES to their folder to run them (the shipped samples, "
            "'ppt samples', cover recording and replay without them)")

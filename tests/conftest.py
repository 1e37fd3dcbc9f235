"""Fixtures shared by the test modules."""
import shutil

import pytest


@pytest.fixture
def copied_set(tmp_path):
    """A writable copy of a small shipped DUMPI sample (8 ranks); returns (folder, .meta path, rank files)."""
    from shared_traces import path
    folder = tmp_path / "set"
    shutil.copytree(path("samplesort_n8"), folder)
    for f in folder.iterdir():
        f.chmod(0o644)
    return folder, next(folder.glob("*.meta")), sorted(folder.glob("*.bin"))


#: The words every skip for want of the shared DUMPI traces says (shared_traces.SKIP_REASON).
SHARED_SKIP = "shared DUMPI traces not found"


def pytest_terminal_summary(terminalreporter):
    """One line saying how many real-trace cases did not run for want of the shared DUMPI traces (none: no line)."""
    cases = sum(1 for report in terminalreporter.stats.get("skipped", [])
                if isinstance(report.longrepr, tuple) and SHARED_SKIP in str(report.longrepr[2]))
    if cases:
        terminalreporter.write_line(
            f"shared traces: {cases} real-trace test {'case' if cases == 1 else 'cases'} did not run: the SST-DUMPI traces of real runs are not "
            "at ../shared/traces; set PPT_SHARED_TRACES to their folder to run them (every trace test ran on the "
            "shipped DUMPI samples)")

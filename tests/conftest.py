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


#: How many real-trace test cases the session left out (pytest's stash key).
NOT_RUN = pytest.StashKey[int]()


def pytest_collection_modifyitems(config, items):
    """Without the real DUMPI traces, leave out the cases marked ``real_traces`` (shared_traces.needs_real)."""
    from shared_traces import HAVE_SHARED
    left_out = [] if HAVE_SHARED else [item for item in items if item.get_closest_marker("real_traces")]
    if left_out:
        items[:] = [item for item in items if not item.get_closest_marker("real_traces")]
        config.hook.pytest_deselected(items=left_out)
    config.stash[NOT_RUN] = len(left_out)


def pytest_terminal_summary(terminalreporter, config):
    """One line saying how many real-trace test cases did not run for want of the real traces (none: no line)."""
    cases = config.stash.get(NOT_RUN, 0)
    if cases:
        from shared_traces import SHARED
        terminalreporter.write_line(
            f"shared traces: {cases} real-trace test {'case' if cases == 1 else 'cases'} not collected (counted in "
            f"'deselected'): the SST-DUMPI traces of real runs are not at {SHARED}; set PPT_SHARED_TRACES to their "
            "folder to run them.  Every other trace test ran, on the DUMPI samples shipped with ppt.")

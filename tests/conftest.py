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

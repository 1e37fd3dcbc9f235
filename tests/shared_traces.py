"""The real DUMPI trace sets kept beside the repository (``../shared/traces``, or the folder
``PPT_SHARED_TRACES`` names): a module that imports this one is skipped without them, with
:data:`SKIP_REASON`, which the session's summary counts (conftest.py)."""
import json
import os
from pathlib import Path

import pytest

TRACES = Path(os.environ.get("PPT_SHARED_TRACES") or Path(__file__).resolve().parents[1].parent / "shared" / "traces")
#: Every skip for want of the shared traces says this.
SKIP_REASON = "shared DUMPI traces not found"
if not (TRACES / "MANIFEST.json").is_file():
    pytest.skip(f"{SKIP_REASON} at {TRACES} (expected next to the repository)", allow_module_level=True)
MANIFEST = {s["name"]: s for s in json.loads((TRACES / "MANIFEST.json").read_text())["sets"]}

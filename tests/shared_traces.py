"""The real DUMPI trace sets shipped beside the repository (``../shared/traces``)."""
import json
from pathlib import Path

import pytest

TRACES = Path(__file__).resolve().parents[1].parent / "shared" / "traces"
if not (TRACES / "MANIFEST.json").is_file():
    pytest.skip(f"shared DUMPI traces not found at {TRACES} (expected next to the repository)",
                allow_module_level=True)
MANIFEST = {s["name"]: s for s in json.loads((TRACES / "MANIFEST.json").read_text())["sets"]}


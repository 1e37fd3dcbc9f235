"""The documentation: the site (guide, notes and the API reference from the docstrings) builds with
warnings as errors, the guide's notebook example runs as written, and every example says what it teaches."""
import ast
import contextlib
import io
import logging
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide"


def test_the_site_builds_strictly_with_the_api_reference(tmp_path):
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f",
                           str(ROOT / "mkdocs.yml"), "-d", str(site)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    reference = (site / "api" / "api" / "index.html").read_text()
    assert "ppt.api.machine" in reference and "to_pandas" in reference         # read from the docstrings
    hardware = (site / "api" / "hardware" / "index.html").read_text()
    assert "MEM_ACCESS_REUSE" in hardware and ":class:`" not in hardware      # ppt.hardware, roles rendered
    assert (site / "guide" / "models" / "index.html").is_file()


def python_blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(), re.S)


def test_the_notebook_example_of_the_guide_runs(monkeypatch):
    monkeypatch.chdir(ROOT)                      # its paths are relative to the repository, as a reader runs it
    level = logging.getLogger("ppt").level
    namespace = {"__name__": "__notebook__"}
    try:
        with contextlib.redirect_stdout(io.StringIO()) as out:
            exec(compile(python_blocks(GUIDE / "notebook.md")[0], "notebook.md", "exec"), namespace)
    finally:
        logging.getLogger("ppt").setLevel(level)
    assert namespace["result"].predicted_s > 0 and len(namespace["per_rank"]) == 64
    assert 0.4 < namespace["load"]["accepted_fraction"] <= 0.5
    assert "pi is approximately 3.14159265" in out.getvalue()


def test_the_tasklist_of_the_guide_is_valid_and_the_breakdown_example_holds():
    from ppt.hardware.presets import load_processor
    from ppt.hardware.tasklist import Tasklist
    models = (GUIDE / "models.md").read_text()
    block = re.search(r"work = (\[\n.*?\n\])", models, re.S).group(1)
    work = Tasklist.from_list(eval(block))                        # every entry kind of the guide's table
    assert work.int_ops and work.float_ops and work.divides and len(work.vector_ops) == 2
    assert len(work.accesses) == 2 and work.stream_bytes
    node = load_processor("ivybridge")
    b = node.breakdown([("fALU", 2e6), ("MEM_ACCESS", 5e5, 8, [0.9, 0.8])], cores_active=24)
    assert (round(b.total_s, 6), b.bound) == (0.000417, "issue")
    reuse = [("MEM_ACCESS_REUSE", 1e6, 8, [(256, 0.7), (65536, 0.2), (None, 0.1)])]
    assert (node.time_compute(reuse, 1) * 1e3, node.time_compute(reuse, 24) * 1e3) == pytest.approx((0.46, 1.36),
                                                                                                   abs=0.005)


@pytest.mark.parametrize("example", sorted(p.name for p in (ROOT / "examples").glob("*.py")))
def test_every_example_says_what_it_is_and_how_to_run_it(example):
    doc = ast.get_docstring(ast.parse((ROOT / "examples" / example).read_text()))
    assert doc and len(doc.splitlines()) > 2 and f"examples/{example}" in doc

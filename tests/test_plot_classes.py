"""``ppt plot RESULT.json``: the per-traffic-class figure of a result with ``network.classes``, refused in one
line for a result without them."""
import json
from pathlib import Path

from ppt.cli.main import main
from ppt.plotstyle import COLUMN_IN
from test_message_classes import flood, run


def result_file(tmp_path, **settings) -> Path:
    """The flood job's result (``--json``'s form) on the test ring with ``settings`` (run's)."""
    result, _ = run(flood, **settings)
    path = tmp_path / "result.json"
    path.write_text(json.dumps(result.as_json()))
    return path


def test_a_result_with_classes_gets_its_class_figure(tmp_path, capsys):
    path = result_file(tmp_path, class_of={"collectives": 1}, traffic_classes=2, class_priority=[0, 1])
    assert main(["plot", str(path), "--out", str(tmp_path / "fig"), "--dpi", "100", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)["figures"]
    assert figures == [str(tmp_path / "fig-classes.png")]
    from PIL import Image
    with Image.open(figures[0]) as image:
        assert [round(x) for x in image.info["dpi"]] == [100, 100] and image.size[0] == round(COLUMN_IN * 100)


def test_a_result_without_classes_is_refused_in_one_line(tmp_path, capsys):
    path = result_file(tmp_path)
    assert main(["plot", str(path)]) == 2
    error = capsys.readouterr().err.strip()
    assert "\n" not in error and "has no per-class statistics (network.classes)" in error
    assert not (tmp_path / "result-classes.png").exists()


def test_results_and_sample_files_are_not_plotted_together(tmp_path, capsys):
    path = result_file(tmp_path, traffic_classes=2)
    (tmp_path / "s.npz").write_bytes(b"")
    assert main(["plot", str(path), str(tmp_path / "s.npz")]) == 2
    assert "not both" in capsys.readouterr().err

"""The one figure style (``ppt.plotstyle``): Okabe-Ito colours, and text no smaller than it promises at one
column width."""
import matplotlib.text
import pytest

from ppt import plotstyle

#: Okabe & Ito's eight colours, as they published them.
OKABE_ITO = {"#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"}


def test_the_colour_cycle_is_okabe_ito_with_a_marker_and_line_style_per_colour():
    cycle = plotstyle.rc()["axes.prop_cycle"].by_key()
    assert set(cycle["color"]) == OKABE_ITO and len(cycle["color"]) == 8
    assert len(set(cycle["marker"])) == 8 and len(cycle["linestyle"]) == 8


def test_a_figure_is_one_column_wide_with_no_text_under_the_minimum(tmp_path):
    path = tmp_path / "f.png"
    with plotstyle.figure(str(path), 2, title="a title", dpi=100) as (fig, axes):
        for ax in axes[:, 0]:
            ax.plot([1, 2, 3], [1, 4, 9], label="series")
            ax.set(xlabel="x (s)", ylabel="y (B)", title="panel")
        plotstyle.grouped_bars(axes[1, 0], ["a", "b"], {"one": [1.0, None], "two": [2.0, 3.0]})
        plotstyle.legend(fig)
        fig.canvas.draw()
        sizes = [text.get_fontsize() for text in fig.findobj(matplotlib.text.Text) if text.get_text()]
        assert fig.get_figwidth() == pytest.approx(plotstyle.COLUMN_IN)
        colours = [line.get_color() for line in axes[0, 0].get_lines()]
    assert sizes and min(sizes) >= plotstyle.MIN_FONT_PT >= 7 and plotstyle.LABEL_PT >= 8
    assert colours == [plotstyle.OKABE_ITO[0]] and path.stat().st_size > 0

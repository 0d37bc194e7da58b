"""The one-token figure: bar heights follow the rows, degenerate rows draw, fast renders look right."""

import numpy as np
import pytest

from specdec import acceptance_rate, residual_distribution
from specdec.plots.one_token import Y_TOPS, OneTokenFigure, nice_top

from .test_plots_blit import assert_looks_like_a_full_draw


@pytest.mark.parametrize("value", [0.0, 0.05, 0.19, 0.2, 0.5, 0.76, 0.95, 1.0])
def test_nice_top_leaves_room_and_is_one_of_few_limits(value):
    top = nice_top(value)
    assert top in Y_TOPS
    assert top >= value
    assert all(candidate < value * 1.05 for candidate in Y_TOPS if candidate < top)


def heights(bars, vocab):
    return [bar.get_height() if bar.get_visible() else 0.0 for bar in list(bars)[:vocab]]


def test_bars_show_the_rows_their_overlap_and_the_residual():
    p = np.array([0.1, 0.6, 0.3, 0.0, 0.0])
    q = np.array([0.3, 0.2, 0.2, 0.2, 0.1])
    picture = OneTokenFigure()
    picture.update(p, q, residual_distribution(p, q), list("ABCDE"), acceptance_rate(p, q))
    np.testing.assert_allclose(heights(picture.target_bars, 5), p)
    np.testing.assert_allclose(heights(picture.draft_bars, 5), q)
    np.testing.assert_allclose(heights(picture.overlap_bars, 5), np.minimum(p, q))
    np.testing.assert_allclose(sum(heights(picture.overlap_bars, 5)), acceptance_rate(p, q))
    np.testing.assert_allclose(heights(picture.excess_bars, 5), np.maximum(p - q, 0))
    np.testing.assert_allclose(heights(picture.residual_bars, 5), residual_distribution(p, q))
    assert not any(bar.get_visible() for bar in list(picture.target_bars)[5:])
    assert picture.rows_title.get_text() == f"α = {acceptance_rate(p, q):.3f}"
    assert_looks_like_a_full_draw(picture.png(), picture.figure)


def test_rows_without_mass_or_without_residual_draw_with_a_note():
    picture = OneTokenFigure(max_vocab=4)
    picture.update(None, [0.5, 0.5], None, ["A", "B"], None, note="p needs some mass")
    assert picture.rows_note.get_visible() and picture.rows_note.get_text() == "p needs some mass"
    assert heights(picture.overlap_bars, 2) == [0.0, 0.0]
    picture.png()
    picture.update([0.5, 0.5], [0.5, 0.5], None, ["A", "B"], 1.0)
    assert not picture.rows_note.get_visible()
    assert "no mass" in picture.residual_note.get_text()
    assert_looks_like_a_full_draw(picture.png(), picture.figure)


def test_more_tokens_than_the_figure_holds_is_refused():
    picture = OneTokenFigure(max_vocab=3)
    with pytest.raises(ValueError, match="at most 3"):
        picture.update([0.25] * 4, [0.25] * 4, None, list("ABCD"), 1.0)


def test_the_green_area_on_screen_is_alpha_not_twice_alpha():
    from matplotlib.colors import to_rgba

    from specdec import palette

    p = np.array([0.5, 0.3, 0.2, 0.0])
    q = np.full(4, 0.25)
    picture = OneTokenFigure(max_vocab=4)
    picture.update(p, q, residual_distribution(p, q), list("ABCD"), acceptance_rate(p, q))
    green = [patch for patch in picture.rows_axes.patches
             if patch.get_visible() and to_rgba(patch.get_facecolor())[:3] == to_rgba(palette.ACCEPTED)[:3]]
    widths = {round(patch.get_width(), 12) for patch in green}
    assert len(widths) == 1  # bars of one width, so area is proportional to height
    assert sum(patch.get_height() for patch in green) == pytest.approx(acceptance_rate(p, q))
    # The p and q bars are full bars beside it, not covered by it: no green bar overlaps another bar.
    for bar in green:
        for other in [*picture.target_bars, *picture.draft_bars]:
            assert bar.get_x() + bar.get_width() <= other.get_x() or other.get_x() + other.get_width() <= bar.get_x()

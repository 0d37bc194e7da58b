"""The timeline figure: what it draws is the timeline and the curves it is given, readable and labelled."""

import numpy as np
import pytest
from matplotlib.text import Text

from specdec import hardware, palette
from specdec.plots import png_bytes
from specdec.plots.timeline import PLAIN_ROW, SPECULATIVE_ROW, TOKEN_ROW, TimelineFigure

from .explorer_driving import pixels

H100 = hardware.ACCELERATORS["H100 SXM"]
TARGET, DRAFT = hardware.MODELS["Llama 2 70B"], hardware.MODELS["Llama 2 7B"]


def draw(picture, gamma=4, alpha=0.7, batch=1, seed=5, accelerator=H100):
    line = hardware.sample_timeline(accelerator, TARGET, DRAFT, gamma, alpha, batch=batch, seed=seed, tokens=20)
    positions, target = hardware.roofline(TARGET, accelerator, batch=batch, max_positions=1024)
    _, draft = hardware.roofline(DRAFT, accelerator, batch=batch, max_positions=1024)
    model, formula = hardware.speedup_against_batch(accelerator, TARGET, DRAFT, gamma, alpha)
    picture.update(line, positions, target, draft, list(hardware.BATCH_SIZES), model, formula, batch)
    return line, (positions, target, draft), (model, formula)


def boxes(collection):
    """(start, end, bottom, top) of each rectangle of a collection."""
    out = []
    for path in collection.get_paths():
        xs, ys = path.vertices[:, 0], path.vertices[:, 1]
        out.append((xs.min(), xs.max(), ys.min(), ys.max()))
    return out


@pytest.fixture(scope="module")
def picture():
    return TimelineFigure()


def test_lanes_show_every_pass_of_the_timeline(picture):
    line, _, _ = draw(picture)
    plain = boxes(picture.lanes["plain"])
    assert len(plain) == line.tokens == 20
    for (start, end, bottom, top), passed in zip(plain, line.plain):
        assert (start, end) == pytest.approx((passed.start * 1e3, (passed.start + passed.duration) * 1e3))
        assert (bottom, top) == PLAIN_ROW
    for model in ("target", "draft"):
        passes = [p for p in line.speculative if p.model == model]
        drawn = boxes(picture.lanes[model])
        assert len(drawn) == len(passes)
        assert [b[0] for b in drawn] == pytest.approx([p.start * 1e3 for p in passes])
        assert all((b[2], b[3]) == SPECULATIVE_ROW for b in drawn)
    tiles = {origin: len(picture.lanes[origin].get_paths()) for origin in ("accepted", "resampled", "bonus")}
    origins = [o for p in line.speculative if p.model == "target" for o in p.origins]
    assert tiles == {origin: origins.count(origin) for origin in tiles}
    assert sum(tiles.values()) == line.speculative_tokens
    assert all((b[2], b[3]) == TOKEN_ROW for origin in tiles for b in boxes(picture.lanes[origin]))
    assert f"{line.tokens} tokens" in picture.timeline_title.get_text()


def test_roles_take_the_palette_colours_and_hatches(picture):
    for lane, role in [("plain", "target"), ("target", "target"), ("draft", "draft"),
                       ("accepted", "accepted"), ("resampled", "resampled"), ("bonus", "bonus")]:
        collection = picture.lanes[lane]
        colour = palette.ROLES[role].colour
        assert np.allclose(collection.get_facecolor()[0][:3], [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
        assert (collection.get_hatch() or "") == palette.ROLES[role].hatch
    legend_labels = [t.get_text() for t in picture.timeline_axes.get_legend().get_texts()]
    for role in ("target", "draft", "accepted", "resampled", "bonus"):
        assert any(label.startswith(palette.ROLES[role].label) for label in legend_labels)


def test_roofline_and_batch_curves_are_the_numbers_given(picture):
    line, (positions, target, draft), (model, formula) = draw(picture, gamma=6, batch=64)
    np.testing.assert_allclose(picture.target_curve.get_ydata(), target * 1e3)
    np.testing.assert_allclose(picture.draft_curve.get_ydata(), draft * 1e3)
    assert picture.verify_marker.get_xdata()[0] == 7
    assert picture.verify_marker.get_ydata()[0] == pytest.approx(target[6] * 1e3)
    ridge = picture.ridge_line.get_xdata()[0]
    assert target[ridge - 2] == target[0] < target[ridge - 1]  # the first t that costs more than t = 1
    np.testing.assert_allclose(picture.model_curve.get_ydata(), model)
    np.testing.assert_allclose(picture.formula_curve.get_ydata(), formula)
    assert picture.batch_marker.get_xdata()[0] == 64
    low, high = picture.roofline_axes.get_ylim()
    assert low < min(target.min(), draft.min()) * 1e3 and high > target.max() * 1e3


def test_every_axis_is_labelled_and_text_is_at_least_12_px(picture):
    draw(picture)
    png = picture.png()
    for axes in picture.figure.axes:
        assert axes.get_xlabel()
        assert axes.get_ylabel() or axes is picture.timeline_axes
        assert axes.get_title()
    assert len(picture.timeline_axes.get_yticklabels()) == 3  # the lanes name the y axis
    width_px = picture.figure.get_size_inches()[0] * picture.figure.dpi
    assert width_px <= 960  # shown at about 950 px, so a point stays 96/72 px
    texts = [t for t in picture.figure.findobj(Text) if t.get_visible() and t.get_text().strip()]
    assert texts
    for text in texts:
        assert text.get_fontsize() * 96 / 72 >= 12, (text.get_text(), text.get_fontsize())
    assert png[:4] == b"\x89PNG"


def test_fast_redraw_matches_a_full_render_after_changes(picture):
    for gamma, alpha, batch, seed in [(4, 0.7, 1, 5), (0, 0.2, 1024, 1), (10, 1.0, 16, 7)]:
        draw(picture, gamma, alpha, batch, seed, accelerator=hardware.ACCELERATORS["L4"])
        shown, full = pixels(picture.png()), pixels(png_bytes(picture.figure))
        assert shown.shape == full.shape
        assert (np.abs(shown - full).max(axis=2) > 0).mean() <= 0.005


def test_presentation_mode_stacks_the_three_panels_with_their_legends_beside_them():
    from specdec.plots.canvas import COMPACT_FIGURE_INCHES, set_figure_scale

    set_figure_scale(1.5)
    try:
        compact = TimelineFigure()
    finally:
        set_figure_scale(1)
    draw(compact)
    assert tuple(compact.figure.get_size_inches()) == COMPACT_FIGURE_INCHES
    columns = {axes.get_subplotspec().colspan for axes in compact.figure.axes}
    rows = [axes.get_subplotspec().rowspan.start for axes in
            (compact.timeline_axes, compact.roofline_axes, compact.batch_axes)]
    assert len(columns) == 1 and rows == [0, 1, 2]
    compact.png()
    for axes in compact.figure.axes:  # each legend starts right of its axes, so it covers no data
        assert axes.get_legend().get_window_extent().x0 >= axes.get_window_extent().x1
    assert "\n" not in compact.timeline_title.get_text()
    ordinary = TimelineFigure()
    assert ordinary.roofline_axes.get_subplotspec().rowspan == ordinary.batch_axes.get_subplotspec().rowspan

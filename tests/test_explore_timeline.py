"""The timeline explorer of notebook 05, driven headless, and its figure: what it shows is what the cost model says."""

import re

import numpy as np
import pytest
from matplotlib.path import Path
from matplotlib.text import Text

import specdec
from specdec import hardware, palette
from specdec.explore import TimelineExplorer, presentation
from specdec.explore.frame import COMPACT_FIGURE_INCHES, DPI, SEED_SLIDER_MAX, png_bytes
from specdec.explore.timeline import (PLAIN_ROW, SPECULATIVE_ROW, TIMELINE_GAMMA_SLIDER_MAX, TIMELINE_TOKENS, TOKEN_ROW,
                                      TimelineFigure, ms)

from .explorer_driving import assert_picture_is_a_full_render, pixels, slider_positions

H100 = hardware.ACCELERATORS["H100 SXM"]
TARGET, DRAFT = hardware.MODELS["Llama 3.1 70B"], hardware.MODELS["Llama 3.1 8B"]


@pytest.fixture(scope="module")
def explorer():
    return TimelineExplorer()


def assert_view_matches_the_cost_model(explorer):
    values = {name: control.value for name, control in explorer.controls.items() if name != "opening"}
    shown = explorer.shown
    chip = hardware.with_pass_overhead(hardware.ACCELERATORS[values["accelerator"]], values["pass_time"] / 1e3)
    target, draft = (hardware.MODELS[name] for name in values["pair"])
    g, a, b, s = values["gamma"], values["alpha"], values["batch"], values["seed"]
    assert (shown["accelerator"], shown["target"], shown["draft"]) == (values["accelerator"], target.name, draft.name)
    assert (shown["gamma"], shown["alpha"], shown["batch"], shown["seed"]) == (g, a, b, s)
    assert shown["chip"] == chip and shown["size_ratio"] == hardware.size_ratio(target, draft)
    devices = hardware.cluster(chip, hardware.devices_needed(target, chip))
    assert shown["memory"] == hardware.memory_check(devices, target, draft, batch=b)
    batches = [size for size in hardware.BATCH_SIZES if size <= max(b, explorer.widest_batch)]
    assert shown["batches"] == batches and b in batches
    model, formula = hardware.speedup_against_batch(chip, target, draft, g, a, batches)
    np.testing.assert_array_equal(shown["model_speedups"], model)
    np.testing.assert_array_equal(shown["fits"], hardware.batches_that_fit(devices, target, draft, batches))

    times = hardware.pass_times(chip, target, draft, g, batch=b)
    timeline = hardware.sample_timeline(chip, target, draft, g, a, batch=b, seed=s, tokens=TIMELINE_TOKENS)
    assert shown["times"] == times and shown["timeline"] == timeline
    assert shown["implied_c"] == times.target_decode / times.draft_pass
    assert shown["expected_speedup"] == times.speedup(a)
    assert shown["formula_speedup"] == specdec.speedup(a, g, times.implied_c)
    assert shown["sampled_speedup"] == timeline.sampled_speedup
    assert shown["plain_ms_per_token"] == pytest.approx(times.target_decode * 1e3)
    steps = len(timeline.step_counts)
    per_token = steps * times.step_time / timeline.speculative_tokens
    assert shown["speculative_ms_per_token"] == pytest.approx(per_token * 1e3)
    if b == 1:  # memory-bound at batch 1: the cost model and speedup(α, γ, c) agree
        assert shown["expected_speedup"] == pytest.approx(shown["formula_speedup"], rel=1e-12)

    text = shown["readout"].text()
    for expected in (f"implied c = target ÷ draft = {shown['implied_c']:.1f}",
                     f"Speedup, this seed: {shown['sampled_speedup']:.2f}×",
                     f"expected, cost model: {shown['expected_speedup']:.2f}×",
                     f"Time per token, plain: {ms(shown['plain_ms_per_token'] / 1e3)} ms"):
        assert expected in text, expected
    assert f"speedup(α, γ, c) = {shown['formula_speedup']:.2f}×" in text
    assert f"speculative, this seed: {ms(shown['speculative_ms_per_token'] / 1e3)} ms" in text
    assert not re.search(r"\de[+-]?\d", text), text  # no scientific notation
    assert ("needs" in text) == (hardware.devices_needed(target, chip) > 1)
    assert ("this batch does not fit" in text) == (not shown["memory"].fits)
    for word in ("SPEC", "contract", "nbval"):
        assert word not in text

    # The picture shows this timeline: one plain pass per token, one tile per emitted token.
    picture = explorer.picture
    assert len(boxes(picture.lanes["plain"])) == TIMELINE_TOKENS
    tiles = sum(len(boxes(picture.lanes[o])) for o in ("accepted", "resampled", "bonus"))
    assert tiles == timeline.speculative_tokens
    assert len(boxes(picture.lanes["draft"])) == g * steps
    assert list(picture.model_curve.get_xdata()) == batches
    assert list(picture.no_fit_marker.get_xdata()) == [size for size, fits in zip(batches, shown["fits"]) if not fits]


def test_the_first_view(explorer):
    assert_view_matches_the_cost_model(explorer)
    assert explorer.shown["pair"] == hardware.DEFAULT_PAIR and explorer.shown["pass_time"] == 1.3
    assert explorer.shown["implied_c"] == pytest.approx(21.2, abs=0.05)
    assert round(explorer.shown["formula_speedup"], 2) == 2.83
    assert "Llama 3.1 70B needs 2 × 80 GB for its weights" in explorer.shown["readout"].text()
    assert "need 144 GB of the 160 GB of 2 × H100 SXM" in explorer.shown["readout"].text()
    assert explorer.image.value[:4] == b"\x89PNG"


def test_the_key_lines_hold_c_the_time_per_token_and_the_speedups(explorer):
    keys = [key.plain() for key in explorer.shown["readout"].key_lines()]
    assert [key.split(":")[0].split("=")[0].strip() for key in keys] == [
        "implied c", "Time per token, plain", "Speedup, this seed", "expected, cost model"]


def test_the_speedup_curve_is_drawn_only_up_to_the_largest_batch_tried():
    explorer = TimelineExplorer()
    assert explorer.shown["batches"] == [1]  # the Predict about b = 1024 is not answered on opening
    explorer.controls["batch"].value = 16
    explorer.controls["batch"].value = 4
    assert explorer.shown["batches"] == [1, 2, 4, 8, 16]
    assert list(explorer.picture.model_curve.get_xdata()) == [1, 2, 4, 8, 16]
    assert_view_matches_the_cost_model(explorer)


def test_opening_settings_puts_every_control_back_with_one_redraw():
    explorer = TimelineExplorer()
    opening = {name: control.value for name, control in explorer.controls.items() if name != "opening"}
    for name, value in [("accelerator", "L4"), ("pair", ("Llama 2 7B", "Llama 160M")), ("gamma", 7),
                        ("alpha", 0.3), ("batch", 64), ("seed", 9), ("pass_time", 0.2)]:
        explorer.controls[name].value = value
    pictures = []
    explorer.image.observe(lambda change: pictures.append(change["new"]), names="value")
    explorer.controls["opening"].click()
    assert {name: explorer.controls[name].value for name in opening} == opening
    assert len(pictures) == 1
    assert_view_matches_the_cost_model(explorer)


def test_times_in_the_readout_have_no_scientific_notation():
    assert (ms(0.0435), ms(1.6104), ms(0.000512), ms(0.1)) == ("43.5", "1,610", "0.512", "100")


@pytest.mark.parametrize("name", ["gamma", "alpha", "seed", "pass_time"])
def test_every_slider_at_its_minimum_maximum_and_middle(explorer, name):
    slider = explorer.controls[name]
    before = explorer.image.value
    for value in slider_positions(slider):
        slider.value = value
        assert_view_matches_the_cost_model(explorer)
    assert explorer.image.value != before
    assert_picture_is_a_full_render(explorer)


@pytest.mark.parametrize("name, options", [("accelerator", list(hardware.ACCELERATORS)), ("pair", hardware.PAIRS),
                                           ("batch", hardware.BATCH_SIZES)])
def test_every_choice_of_every_option_control(explorer, name, options):
    control = explorer.controls[name]
    start = control.value
    pictures = set()
    for option in options:
        control.value = option
        assert_view_matches_the_cost_model(explorer)
        pictures.add(explorer.image.value)
    assert len(pictures) == len(options)
    assert_picture_is_a_full_render(explorer)
    control.value = start


def test_the_speedup_falls_as_the_batch_grows_on_screen():
    explorer = TimelineExplorer(gamma=4, alpha=0.8)
    speedups = []
    assert explorer.shown["times"].verify_overhead == 1.0
    for b in hardware.BATCH_SIZES:
        explorer.controls["batch"].value = b
        speedups.append(explorer.shown["expected_speedup"])
    assert all(later <= earlier for earlier, later in zip(speedups, speedups[1:]))
    assert speedups[-1] < 1 < speedups[0]
    assert "free: same time as one position" not in explorer.shown["readout"].text()


def test_starting_values_are_used():
    explorer = TimelineExplorer("L4", ("Llama 2 7B", "Llama 160M"), gamma=2, alpha=0.5, batch=8, seed=3, pass_time=0)
    assert {name: c.value for name, c in explorer.controls.items() if name != "opening"} == {
        "accelerator": "L4", "pair": ("Llama 2 7B", "Llama 160M"),
        "gamma": 2, "alpha": 0.5, "batch": 8, "seed": 3, "pass_time": 0.0}
    assert_view_matches_the_cost_model(explorer)


@pytest.mark.parametrize("kwargs, error, words", [
    ({"accelerator": "H300"}, ValueError, "accelerator must be one of 'H100 SXM', "),
    ({"accelerator": 3}, ValueError, "accelerator must be one of 'H100 SXM', "),
    ({"pair": ("Llama 3.1 70B", "GPT-9")}, ValueError, "pair must be one of the pairs"),
    ({"pair": None}, ValueError, "pair must be one of the pairs"),
    ({"pair": ("Llama 160M", "Llama 2 70B")}, ValueError, "draft must not be larger than its target"),
    ({"pair": ("Llama 3.1 70B", "Llama 2 7B")}, ValueError, "draft must share the target's vocabulary"),
    ({"gamma": TIMELINE_GAMMA_SLIDER_MAX + 1}, ValueError, "gamma must be an integer in 0 … 10"),
    ({"alpha": 1.2}, ValueError, "alpha must be in [0, 1]"),
    ({"batch": 0}, ValueError, "batch must be one of 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024; got 0"),
    ({"batch": 3}, ValueError, "batch must be one of 1, 2, 4, "),
    ({"seed": SEED_SLIDER_MAX + 1}, ValueError, "seed must be an integer in 0 … 99"),
    ({"pass_time": 3.5}, ValueError, "pass_time must be in 0 … 3 ms"),
    ({"pass_time": "fast"}, TypeError, "pass_time must be a number"),
])
def test_bad_arguments_are_refused(kwargs, error, words):
    with pytest.raises(error) as caught:
        TimelineExplorer(**kwargs)
    assert words in str(caught.value)


# --- the figure -----------------------------------------------------------------------------------


def draw(picture, gamma=4, alpha=0.7, batch=1, seed=5, accelerator=H100):
    line = hardware.sample_timeline(accelerator, TARGET, DRAFT, gamma, alpha, batch=batch, seed=seed, tokens=20)
    positions, target = hardware.roofline(TARGET, accelerator, batch=batch, max_positions=1024)
    _, draft = hardware.roofline(DRAFT, accelerator, batch=batch, max_positions=1024)
    model, formula = hardware.speedup_against_batch(accelerator, TARGET, DRAFT, gamma, alpha)
    fits = hardware.batches_that_fit(accelerator, TARGET, DRAFT)
    ridge = hardware.compute_bound_from(TARGET, accelerator, batch=batch)
    picture.update(line, positions, target, draft, list(hardware.BATCH_SIZES), model, formula, fits, batch, ridge)
    return line, (positions, target, draft), (model, formula)


def boxes(lane):
    """(start, end, bottom, top) of each rectangle of a lane (one path of closed rectangles)."""
    path = lane.get_path()
    corners = [path.vertices[start:start + 4] for start in np.flatnonzero(path.codes == Path.MOVETO)]
    return [(xy[:, 0].min(), xy[:, 0].max(), xy[:, 1].min(), xy[:, 1].max()) for xy in corners]


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
    tiles = {origin: len(boxes(picture.lanes[origin])) for origin in ("accepted", "resampled", "bonus")}
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
        assert np.allclose(collection.get_facecolor()[:3], [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
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
    first_dearer = int(np.argmax(target > target[0]))  # index of the first t that costs more than t = 1
    assert positions[first_dearer] - 1 <= ridge < positions[first_dearer]
    fits = hardware.batches_that_fit(H100, TARGET, DRAFT)
    assert list(picture.no_fit_marker.get_xdata()) == np.array(hardware.BATCH_SIZES)[~fits].tolist()
    np.testing.assert_allclose(picture.model_curve.get_ydata(), model)
    np.testing.assert_allclose(picture.formula_curve.get_ydata(), formula)
    assert picture.batch_marker.get_xdata()[0] == 64
    low, high = picture.roofline_axes.get_ylim()
    assert low < min(target.min(), draft.min()) * 1e3 and high > target.max() * 1e3


def test_the_ridge_line_sits_at_one_position_when_one_is_already_compute_bound(picture):
    draw(picture, batch=1024)
    assert hardware.compute_bound_from(TARGET, H100, batch=1024) < 1
    assert picture.ridge_line.get_xdata()[0] == 1.0


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


def test_presentation_mode_stacks_the_three_panels_with_one_legend_beside_them():
    presentation(scale=1.5)
    try:
        compact = TimelineFigure()
    finally:
        presentation(False)
    draw(compact)
    pixels_wide_and_high = compact.figure.get_size_inches() * compact.figure.dpi
    assert np.allclose(pixels_wide_and_high, np.array(COMPACT_FIGURE_INCHES) * DPI * 1.5)
    columns = {axes.get_subplotspec().colspan for axes in compact.figure.axes}
    rows = [axes.get_subplotspec().rowspan.start for axes in
            (compact.timeline_axes, compact.roofline_axes, compact.batch_axes)]
    assert len(columns) == 1 and rows == [0, 1, 2]
    compact.png()
    (legend,) = compact.figure.legends
    for axes in compact.figure.axes:  # the legend starts right of every axes, so it covers no data
        assert axes.get_legend() is None
        assert legend.get_window_extent().x0 >= axes.get_window_extent().x1
    labels = [text.get_text() for text in legend.get_texts()]
    assert labels[:5] == [palette.ROLES[role].label for role in ("target", "draft", "accepted", "resampled", "bonus")]
    assert "\n" not in compact.timeline_title.get_text()
    ordinary = TimelineFigure()
    assert ordinary.roofline_axes.get_subplotspec().rowspan == ordinary.batch_axes.get_subplotspec().rowspan


def test_a_verify_pass_of_one_position_is_singular():
    explorer = TimelineExplorer(gamma=0)
    assert "Verify pass (γ+1 = 1 position): " in explorer.summary()
    explorer.controls["gamma"].value = 1
    assert "Verify pass (γ+1 = 2 positions): " in explorer.summary()

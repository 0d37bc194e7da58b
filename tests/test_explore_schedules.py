"""The adaptive-γ explorer of notebook 09, driven headless: every control, against the runs it prices."""

import itertools

import numpy as np
import pytest

from specdec.explore.frame import presentation
from specdec.explore.schedules import ScheduleFigure, SchedulesExplorer, schedule_runs
from specdec.text import NGramModel
from specdec.theory import optimal_gamma, speedup
from specdec.variants.adaptive_gamma import compare_schedules

from .explorer_driving import assert_picture_is_a_full_render, slider_positions
from .test_explore_legends import check_entry, legend_entries


@pytest.fixture(scope="module")
def comparison():
    text = ("the cat sat on the mat. the rat sat on the hat. the cat saw the rat, and the rat ran to the mat. "
            "then the cat sat on the hat, and the rat sat on the cat. ") * 3
    return compare_schedules(NGramModel(order=4).fit(text), NGramModel(order=2).fit(text), "the ", 400, c=20,
                             seed=0, fixed_gammas=range(1, 6))


def assert_schedules_view_matches_the_math(explorer, comparison):
    shown = explorer.shown
    c, name = explorer.controls["c"].value, explorer.controls["schedule"].value
    runs = schedule_runs(comparison)
    assert (shown["c"], shown["schedule"]) == (c, name)
    assert shown["speedups"] == [run.speedup(c) for run in runs.values()]
    assert shown["speedup"] == runs[name].speedup(c)
    assert shown["tokens_per_call"] == runs[name].tokens_per_target_call
    best = max(sorted(comparison.fixed), key=lambda gamma: comparison.fixed[gamma].speedup(c))
    assert shown["best_fixed"] == best
    assert (shown["theory_gamma"], shown["theory_speedup"]) == optimal_gamma(comparison.mean_alpha, c)
    step_axes, speed_axes = explorer.figure.axes
    np.testing.assert_allclose([bar.get_width() for bar in speed_axes.patches], shown["speedups"])
    theory = [line for line in speed_axes.lines if line.get_label().startswith("speedup(")][0]
    np.testing.assert_allclose(theory.get_xdata(), [speedup(comparison.mean_alpha, g, c) for g in sorted(comparison.fixed)])
    assert speed_axes.get_xlim()[1] >= max(run.speedup(100) for run in runs.values())  # no bar runs off the axis
    gamma_line = [line for line in step_axes.lines if line.get_label() == "γ drafted"][0]
    shown_steps = min(len(runs[name].gammas), len(gamma_line.get_ydata()))
    np.testing.assert_array_equal(gamma_line.get_ydata()[:shown_steps], runs[name].gammas[:shown_steps])
    assert step_axes.get_ylim()[1] > max(runs[name].gammas)
    text = shown["readout"].text()
    assert f"At c = {c}: speedup {shown['speedup']:.2f}×" in text
    assert f"Best fixed γ measured at this c: {best}" in text
    assert f"({shown['characters']:,} characters)" in text  # with a thousands separator, like every count


def test_every_control_of_the_schedules_explorer(comparison):
    explorer = SchedulesExplorer(comparison)
    assert_schedules_view_matches_the_math(explorer, comparison)
    for value in slider_positions(explorer.controls["c"]):
        explorer.controls["c"].value = value
        assert_schedules_view_matches_the_math(explorer, comparison)
    for name in explorer.controls["schedule"].options:
        explorer.controls["schedule"].value = name
        assert_schedules_view_matches_the_math(explorer, comparison)
    assert_picture_is_a_full_render(explorer)


def test_the_schedules_explorer_refuses_bad_arguments(comparison):
    with pytest.raises(TypeError, match="comparison"):
        SchedulesExplorer({"heuristic": None})
    with pytest.raises(ValueError, match="c must be"):
        SchedulesExplorer(comparison, c=0)


def test_every_legend_entry_takes_its_role_from_the_palette():
    picture = ScheduleFigure(["γ = 1", "heuristic"], steps=3, max_gamma=4, max_speedup=2)
    picture.update([3, 2, 1], [3, 0, 1], [1.4, 1.5], [1.45], 1, "heuristic")
    found = {check_entry(handle, label) for handle, label in legend_entries(picture.figure)}
    assert {role.label for role in found if role is not None} == {"accepted"}


def text_boxes(figure):
    """The window extent of every text drawn on `figure`: titles, axis labels, tick labels inside the
    axis limits, texts, and each legend as one box."""
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    found = list(figure.legends)
    for axes in figure.axes:
        for axis, limits in ((axes.xaxis, axes.get_xlim()), (axes.yaxis, axes.get_ylim())):
            low, high = sorted(limits)
            found += [tick.label1 for tick in axis.get_major_ticks()
                      if tick.label1.get_visible() and tick.label1.get_text() and low <= tick.get_loc() <= high]
            found += [axis.label] if axis.label.get_text() else []
        found += [text for text in (axes.title, *axes.texts) if text.get_visible() and text.get_text().strip()]
        found += [axes.get_legend()] if axes.get_legend() else []
    return [(artist, artist.get_window_extent(renderer)) for artist in found]


def assert_no_text_overlaps_or_is_cut(figure, slack=0.5):
    boxes = text_boxes(figure)
    for artist, box in boxes:
        assert box.x0 >= -slack and box.y0 >= -slack and box.x1 <= figure.bbox.width + slack \
            and box.y1 <= figure.bbox.height + slack, f"{artist} is cut off"
    for (first, one), (second, other) in itertools.combinations(boxes, 2):
        overlap = min(one.x1, other.x1) - max(one.x0, other.x0), min(one.y1, other.y1) - max(one.y0, other.y0)
        assert min(overlap) <= slack, f"{first} overlaps {second}"


@pytest.mark.parametrize("presenting", [False, True])
def test_no_label_of_the_schedules_figure_overlaps_another_or_is_cut(comparison, presenting):
    presentation(presenting)
    try:
        explorer = SchedulesExplorer(comparison)
    finally:
        presentation(False)
    for c in (1, 20, 100):
        for name in explorer.controls["schedule"].options:
            with explorer.batch():
                explorer.controls["c"].value, explorer.controls["schedule"].value = c, name
            assert_no_text_overlaps_or_is_cut(explorer.figure)

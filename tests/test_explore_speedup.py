"""The tokens-per-step and speedup explorer, driven headless, and the static speedup figures of notebook 04."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import specdec
from specdec.explore.speedup import (CURVE_STYLES, SpeedupExplorer, best_draft_length_against_alpha,
                                     speedup_against_draft_length)
from specdec.validation import DEFAULT_MAX_GAMMA
from specdec.theory import speedup

from .explorer_driving import assert_picture_is_a_full_render, slider_positions
from .test_theory import SPEC_TABLE


@pytest.fixture(scope="module")
def explorer():
    return SpeedupExplorer(reveal=True)


def lines_by_gid(axes, gid):
    return [line for line in axes.lines if line.get_gid() == gid]


def assert_view_matches_theory(explorer):
    alpha, gamma, c = (explorer.controls[name].value for name in ("alpha", "gamma", "c"))
    shown = explorer.shown
    assert (shown["alpha"], shown["gamma"], shown["c"]) == (alpha, gamma, c)
    law = specdec.token_count_distribution(alpha, gamma)
    np.testing.assert_array_equal(shown["token_counts"], law)
    assert shown["expected_tokens"] == specdec.expected_tokens(alpha, gamma)
    assert shown["speedup"] == specdec.speedup(alpha, gamma, c)
    best_gamma, best_speedup = specdec.optimal_gamma(alpha, c)
    assert (shown["best_gamma"], shown["best_speedup"]) == (best_gamma, best_speedup)

    # The picture: one bar per k = 1 … γ+1 at P(N = k), the mean line at E[N], the markers.
    counts_axes, tokens_axes, speed_axes = explorer.figure.axes
    bars = [patch for patch in counts_axes.patches if patch.get_visible()]
    assert [round(bar.get_x() + bar.get_width() / 2) for bar in bars] == list(range(1, gamma + 2))
    np.testing.assert_allclose([bar.get_height() for bar in bars], law)
    (mean_line,) = lines_by_gid(counts_axes, "mean")
    assert mean_line.get_xdata()[0] == pytest.approx(shown["expected_tokens"], rel=1e-12)
    (best_marker,) = lines_by_gid(speed_axes, "best-gamma")
    assert list(best_marker.get_xdata()) == [best_gamma]
    assert best_marker.get_ydata()[0] == pytest.approx(best_speedup, rel=1e-12)
    curves = {line.get_label(): line for line in [*tokens_axes.lines, *speed_axes.lines]}
    np.testing.assert_allclose(curves["E[N] at this α"].get_ydata(),
                               [specdec.expected_tokens(alpha, g) for g in range(DEFAULT_MAX_GAMMA + 1)])
    np.testing.assert_allclose(curves["speedup"].get_ydata(),
                               [specdec.speedup(alpha, g, c) for g in range(DEFAULT_MAX_GAMMA + 1)])
    # The limits follow the data, with a little headroom.
    assert counts_axes.get_xlim() == (0.4, max(gamma + 1, 4) + 0.6)
    for axes, values in ((tokens_axes, curves["E[N] at this α"].get_ydata()),
                         (speed_axes, curves["speedup"].get_ydata())):
        low, top = axes.get_ylim()
        assert low == 0 and 1.15 * max(values) <= top <= 2.6 * max(values)

    readout = shown["readout"]
    assert f"Expected tokens per step E[N] = {shown['expected_tokens']:.3f}" in readout.plain()[1]
    assert f"<b>{shown['expected_tokens']:.3f}</b>" in readout.html()
    speedup = shown["speedup"]
    assert f"{speedup:.{3 if 0 < abs(speedup - 1) < 0.005 else 2}f}×" in readout.text()  # 1.003× does not read 1.00×
    helps = best_speedup > 1
    assert best_marker.get_visible() == (helps and shown["revealed"])
    assert (f"Best γ in 1 … {DEFAULT_MAX_GAMMA}: {best_gamma}" in readout.text()) == (helps and shown["revealed"])
    assert ("No γ in 1 … 20 beats plain decoding here" in readout.text()) == (not helps and shown["revealed"])
    assert helps == (alpha > 1 / c)  # the break-even rule the readout states


def test_the_first_view_is_the_worked_numbers_with_the_answer_hidden():
    explorer = SpeedupExplorer()
    assert explorer.shown["expected_tokens"] == 3.3616  # expected_tokens(0.8, 4)
    assert explorer.shown["best_gamma"] == 8  # computed, not shown yet: the notebook asks for a prediction
    assert not explorer.shown["revealed"]
    assert not explorer.picture.best_marker.get_visible() and not explorer.picture.speedup_line.get_visible()
    assert "Best γ in" not in explorer.shown["readout"].text() and "best γ = 8" not in explorer.image.tooltip
    assert_view_matches_theory(explorer)
    explorer.controls["gamma"].value = 5  # any move shows the curve and its star
    assert explorer.shown["revealed"] and explorer.picture.best_marker.get_visible()
    explorer.controls["gamma"].value = 4  # and it stays shown
    assert explorer.shown["revealed"] and "Best γ in 1 … 20: 8" in explorer.shown["readout"].text()
    assert_view_matches_theory(explorer)
    assert_picture_is_a_full_render(explorer)


@pytest.mark.parametrize("name", ["alpha", "gamma", "c"])
def test_every_control_at_its_minimum_maximum_and_middle(explorer, name):
    slider = explorer.controls[name]
    before = explorer.image.value
    for value in slider_positions(slider):
        slider.value = value
        assert_view_matches_theory(explorer)
    assert explorer.image.value != before
    assert_picture_is_a_full_render(explorer)


@pytest.mark.parametrize("alpha, c, best, value", SPEC_TABLE)
def test_the_sliders_reproduce_the_worked_table(explorer, alpha, c, best, value):
    explorer.controls["alpha"].value = alpha
    explorer.controls["c"].value = c
    assert (explorer.shown["best_gamma"], round(explorer.shown["best_speedup"], 2)) == (best, value)
    assert explorer.picture.best_label.get_text() == f"best γ = {best}"


def test_the_all_accepted_line_reads_well_at_every_draft_length(explorer):
    explorer.controls["alpha"].value = 0.8
    lines = {}
    for gamma in (0, 1, 2):
        explorer.controls["gamma"].value = gamma
        lines[gamma] = explorer.shown["readout"].plain()[2]
    assert lines[0] == "γ = 0: no draft, plain decoding"
    assert lines[1] == "P(the draft token is accepted) = α = 0.800"
    assert lines[2] == f"P(all 2 drafts accepted) = α^γ = {0.8 ** 2:.3f}"


def test_speedup_below_one_is_called_not_faster(explorer):
    with explorer.batch():
        explorer.controls["alpha"].value = 0.0
        explorer.controls["gamma"].value = 3
        explorer.controls["c"].value = 5
    assert explorer.shown["speedup"] < 1
    assert "not faster than plain decoding" in explorer.shown["readout"].text()


@pytest.mark.parametrize("alpha, gamma, c, words", [
    (0.16, 0, 20, "= 1.00× (not faster than plain decoding)"),  # no draft: exactly 1, whatever rounding E[N] meets
    (0.17, 1, 6, "= 1.003× (faster than plain decoding)"),      # 1.17 / (7/6) = 1.0029: three decimals show it
])
def test_a_speedup_next_to_one_says_which_side_it_is_on(explorer, alpha, gamma, c, words):
    with explorer.batch():
        explorer.controls["alpha"].value, explorer.controls["gamma"].value, explorer.controls["c"].value = alpha, gamma, c
    assert words in explorer.shown["readout"].text()


@settings(max_examples=25, deadline=None)
@given(alpha=st.integers(0, 100), gamma=st.integers(0, DEFAULT_MAX_GAMMA), c=st.integers(1, 100),
       order=st.permutations(["alpha", "gamma", "c"]))
def test_no_combination_of_control_values_raises(explorer, alpha, gamma, c, order):
    values = {"alpha": alpha / 100, "gamma": gamma, "c": c}
    for name in order:
        explorer.controls[name].value = values[name]
    assert_view_matches_theory(explorer)


def test_controls_are_labelled_in_words():
    controls = SpeedupExplorer().controls
    assert set(controls) == {"alpha", "gamma", "c"}
    assert controls["alpha"].description == "acceptance rate α"
    assert "target time / draft time" in controls["c"].description
    assert all(control.style.description_width == "initial" for control in controls.values())


@pytest.mark.parametrize("kwargs, error, name", [
    (dict(alpha=1.5), ValueError, "alpha"),
    (dict(gamma=21), ValueError, "gamma"),
    (dict(gamma=2.0), TypeError, "gamma"),
    (dict(c=0), ValueError, "c"),
    (dict(c=101), ValueError, "c"),
])
def test_starting_values_outside_the_sliders_are_refused(kwargs, error, name):
    with pytest.raises(error, match=name):
        SpeedupExplorer(**kwargs)


@pytest.mark.parametrize("alpha, c", [(0.8, 1), (0.0, 20), (1.0, 1), (0.04, 20)])
def test_when_no_gamma_helps_the_readout_says_so(alpha, c):
    explorer = SpeedupExplorer(alpha=alpha, c=c, reveal=True)
    readout = explorer.shown["readout"].text()
    assert explorer.shown["best_speedup"] <= 1
    assert "Best γ" not in readout
    assert f"No γ in 1 … {DEFAULT_MAX_GAMMA} beats plain decoding here" in readout
    assert f"α > 1/c = {1 / c:.3f}" in readout
    (best_marker,) = lines_by_gid(explorer.figure.axes[2], "best-gamma")
    assert not best_marker.get_visible() and not explorer.picture.best_label.get_visible()
    assert explorer.picture.speed_note.get_text() == "no γ beats plain decoding"
    assert_picture_is_a_full_render(explorer)


@pytest.mark.parametrize("alpha, c", [(0.8, 20), (0.99, 100), (0.6, 2), (1.0, 100), (0.3, 5)])
def test_the_best_gamma_label_sits_clear_of_the_curve_inside_the_axes(alpha, c):
    explorer = SpeedupExplorer(alpha=alpha, c=c, reveal=True)
    figure, speed_axes = explorer.figure, explorer.figure.axes[2]
    renderer = figure.canvas.get_renderer()
    label = explorer.picture.best_label.get_window_extent(renderer)
    frame = speed_axes.get_window_extent(renderer)
    assert frame.x0 <= label.x0 and label.x1 <= frame.x1 and frame.y0 <= label.y0 and label.y1 <= frame.y1
    points = speed_axes.transData.transform(
        np.column_stack([np.arange(DEFAULT_MAX_GAMMA + 1), explorer.shown["speedup_curve"]]))
    # The curve passes over or under the label's horizontal span, never through it.
    span = points[(points[:, 0] >= label.x0 - 5) & (points[:, 0] <= label.x1 + 5)]
    assert len(span) and ((span[:, 1] > label.y1) | (span[:, 1] < label.y0)).all()
    star = speed_axes.transData.transform([[explorer.shown["best_gamma"], explorer.shown["best_speedup"]]])[0]
    assert not (label.x0 - 4 <= star[0] <= label.x1 + 4 and label.y0 - 4 <= star[1] <= label.y1 + 4)
    title = speed_axes.title.get_window_extent(renderer)
    assert label.y1 < title.y0


# ---- the static figures of notebook 04 ----


def _curves(figure):
    return [line for line in figure.axes[0].get_lines() if not line.get_label().startswith("_")]


def test_speedup_curves_follow_the_formula_and_star_the_peak():
    alphas = [0.5, 0.6, 0.7, 0.8, 0.9]
    figure = speedup_against_draft_length(alphas, c=20, max_gamma=15)
    curves = _curves(figure)
    assert len(curves) == 5
    for alpha, curve in zip(alphas, curves):
        gammas, values = curve.get_data()
        assert list(gammas) == list(range(1, 16))
        np.testing.assert_allclose(values, [speedup(alpha, int(g), 20) for g in gammas])
    # The peaks the text names: near 3 at α = 0.5 and near 13 at α = 0.9.
    assert curves[0].get_label() == "α = 0.5 (best γ = 3)"
    assert curves[-1].get_label() == "α = 0.9 (best γ = 13)"
    stars = [line for line in figure.axes[0].get_lines() if line.get_marker() == "*"]
    assert [int(star.get_xdata()[0]) for star in stars] == [3, 4, 6, 8, 13]
    assert figure.axes[0].get_xlabel() and figure.axes[0].get_ylabel()


def test_best_gamma_steps_match_a_plain_search():
    figure = best_draft_length_against_alpha([10, 50], alphas=[0.6, 0.8, 0.9], max_gamma=40)
    for c, curve in zip([10, 50], _curves(figure)):
        alphas, best = curve.get_data()
        plain = [max(range(1, 41), key=lambda g: (speedup(a, g, c), -g)) for a in alphas]
        assert list(best) == plain
    assert figure.axes[0].get_xlabel() == "acceptance rate α"


def test_too_many_curves_is_refused():
    with pytest.raises(ValueError, match="between 1 and"):
        speedup_against_draft_length([0.5] * (len(CURVE_STYLES) + 1), c=20)
    with pytest.raises(ValueError, match="between 1 and"):
        best_draft_length_against_alpha([])

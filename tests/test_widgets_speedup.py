"""The tokens-per-step and speedup explorer, driven headless: what it shows is what the theory says."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import specdec
from specdec.widgets import speedup_explorer

from .explorer_driving import assert_picture_is_a_full_render, slider_positions
from .test_theory import SPEC_TABLE

MAX_GAMMA = 20


@pytest.fixture(scope="module")
def explorer():
    return speedup_explorer()


def assert_view_matches_theory(explorer):
    alpha = explorer.controls["alpha"].value
    gamma = explorer.controls["gamma"].value
    c = explorer.controls["c"].value
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
    (mean_line,) = [line for line in counts_axes.lines if line.get_gid() == "mean"]
    assert mean_line.get_xdata()[0] == pytest.approx(shown["expected_tokens"], rel=1e-12)
    (best_marker,) = [line for line in speed_axes.lines if line.get_gid() == "best-gamma"]
    assert list(best_marker.get_xdata()) == [best_gamma]
    assert best_marker.get_ydata()[0] == pytest.approx(best_speedup, rel=1e-12)
    curves = {line.get_label(): line for line in [*tokens_axes.lines, *speed_axes.lines]}
    np.testing.assert_allclose(curves["E[N] at this α"].get_ydata(),
                               [specdec.expected_tokens(alpha, g) for g in range(MAX_GAMMA + 1)])
    np.testing.assert_allclose(curves["speedup"].get_ydata(),
                               [specdec.speedup(alpha, g, c) for g in range(MAX_GAMMA + 1)])

    # The limits follow the data, with a little headroom.
    assert counts_axes.get_xlim() == (0.4, max(gamma + 1, 4) + 0.6)
    for axes, values in ((tokens_axes, curves["E[N] at this α"].get_ydata()),
                         (speed_axes, curves["speedup"].get_ydata())):
        low, top = axes.get_ylim()
        assert low == 0 and 1.15 * max(values) <= top <= 2.6 * max(values)

    readout = shown["readout"]
    assert f"E[N] = <b>{shown['expected_tokens']:.3f}</b>" in readout
    assert f"{shown['speedup']:.2f}×" in readout
    helps = best_speedup > 1
    assert best_marker.get_visible() == helps
    assert (f"Best γ in 1 … {MAX_GAMMA}: <b>{best_gamma}</b>" in readout) == helps
    assert ("No γ in 1 … 20 beats plain decoding here" in readout) == (not helps)
    assert helps == (alpha > 1 / c)  # the break-even rule the readout states


def test_the_first_view_is_spec_worked_numbers(explorer):
    assert_view_matches_theory(explorer)
    assert explorer.shown["expected_tokens"] == 3.3616  # SPEC: expected_tokens(0.8, 4)
    assert explorer.shown["best_gamma"] == 8
    assert explorer.image.value[:4] == b"\x89PNG"


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
def test_the_sliders_reproduce_spec_table(explorer, alpha, c, best, value):
    explorer.controls["alpha"].value = alpha
    explorer.controls["c"].value = c
    assert (explorer.shown["best_gamma"], round(explorer.shown["best_speedup"], 2)) == (best, value)
    assert f"best γ = {best}" == next(text.get_text() for text in explorer.figure.axes[2].texts)


def test_speedup_below_one_is_called_not_faster(explorer):
    explorer.controls["alpha"].value = 0.0
    explorer.controls["gamma"].value = 3
    explorer.controls["c"].value = 5
    assert explorer.shown["speedup"] < 1
    assert "not faster than plain decoding" in explorer.shown["readout"]


@settings(max_examples=25, deadline=None)
@given(alpha=st.integers(0, 100), gamma=st.integers(0, MAX_GAMMA), c=st.integers(1, 100),
       order=st.permutations(["alpha", "gamma", "c"]))
def test_no_combination_of_control_values_raises(explorer, alpha, gamma, c, order):
    values = {"alpha": alpha / 100, "gamma": gamma, "c": c}
    for name in order:
        explorer.controls[name].value = values[name]
    assert_view_matches_theory(explorer)


def test_controls_are_labelled_in_words():
    controls = speedup_explorer().controls
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
        speedup_explorer(**kwargs)


@pytest.mark.parametrize("alpha, c", [(0.8, 1), (0.0, 20), (1.0, 1), (0.04, 20)])
def test_when_no_gamma_helps_the_readout_says_so(alpha, c):
    explorer = speedup_explorer(alpha=alpha, c=c)
    readout = explorer.shown["readout"]
    assert explorer.shown["best_speedup"] <= 1
    assert "Best γ" not in readout
    assert f"No γ in 1 … {MAX_GAMMA} beats plain decoding here" in readout
    assert f"α &gt; 1/c = {1 / c:.3f}" in readout
    speed_axes = explorer.figure.axes[2]
    (best_marker,) = [line for line in speed_axes.lines if line.get_gid() == "best-gamma"]
    assert not best_marker.get_visible() and not explorer.picture.best_label.get_visible()
    assert explorer.picture.speed_note.get_text() == "no γ beats plain decoding"
    assert_picture_is_a_full_render(explorer)


def test_the_best_gamma_label_sits_above_the_curve():
    explorer = speedup_explorer(alpha=0.8, c=20)
    picture = explorer.picture
    figure = explorer.figure
    renderer = figure.canvas.get_renderer()
    label = picture.best_label.get_window_extent(renderer)
    speed_axes = figure.axes[2]
    points = speed_axes.transData.transform(
        np.column_stack([np.arange(MAX_GAMMA + 1), explorer.shown["speedup_curve"]]))
    # Every point of the curve under the label's horizontal span lies below the label.
    under = points[(points[:, 0] >= label.x0 - 5) & (points[:, 0] <= label.x1 + 5)]
    assert len(under) and (under[:, 1] < label.y0).all()
    assert label.y1 <= speed_axes.get_window_extent(renderer).y1  # inside the axes, in the headroom

"""The temperature explorer of notebook 06, driven headless: what it shows is what the core says."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import specdec
from specdec.temperature import related_logits, softmax
from specdec.explore import TemperatureExplorer
from specdec.explore.temperature import TEMPERATURE_GRID, TEMPERATURE_VOCAB

from .explorer_driving import assert_picture_is_a_full_render, slider_positions


@pytest.fixture(scope="module")
def heat_explorer():
    return TemperatureExplorer()


def assert_temperature_view_matches_core(explorer):
    t_p = explorer.controls["target_temperature"].value
    t_q = explorer.controls["draft_temperature"].value
    seed = explorer.controls["seed"].value
    target_logits, draft_logits = related_logits(TEMPERATURE_VOCAB, np.random.default_rng(seed))
    p, q = softmax(target_logits, t_p), softmax(draft_logits, t_q)
    shown = explorer.shown
    np.testing.assert_array_equal(shown["target"], p)
    np.testing.assert_array_equal(shown["draft"], q)
    assert shown["alpha"] == specdec.acceptance_rate(p, q)
    assert shown["tv"] == pytest.approx(1 - shown["alpha"], abs=1e-12)
    agree = np.argmax(target_logits) == np.argmax(draft_logits)
    assert shown["greedy_alpha"] == (1.0 if agree else 0.0)
    assert f"α = Σ min(p, q) = {shown['alpha']:.3f}; 1 − TV = {1 - shown['tv']:.3f}" in shown["readout"].text()

    bars_axes, curve_axes = explorer.figure.axes
    heights = [bar.get_height() for bar in bars_axes.patches]
    np.testing.assert_allclose(heights, [*p, *q])
    lines = {line.get_label(): line for line in curve_axes.lines}
    low, high = explorer.tried
    assert low <= t_q <= high
    for i in (0, 7, 20, len(TEMPERATURE_GRID) - 1):  # a few points of each curve, recomputed
        t = TEMPERATURE_GRID[i]
        exact = specdec.acceptance_rate(p, softmax(draft_logits, t))
        assert shown["alpha_over_draft_temperature"][i] == pytest.approx(exact, abs=1e-12)
        drawn = lines["draft at the T tried"].get_ydata()[i]
        if low - 1e-9 <= t <= high + 1e-9:  # drawn only where the draft temperature has been
            assert drawn == pytest.approx(exact, abs=1e-12)
        else:
            assert np.isnan(drawn)
        assert lines["both at one T"].get_ydata()[i] == pytest.approx(
            specdec.acceptance_rate(softmax(target_logits, t), softmax(draft_logits, t)), abs=1e-12)
    (greedy,) = [line for line in curve_axes.lines if line.get_gid() == "greedy"]
    assert greedy.get_xydata().tolist() == [[0.0, shown["greedy_alpha"]]]
    assert lines["the sliders now"].get_xydata().tolist() == [[t_q, shown["alpha"]]]


def test_the_first_temperature_view(heat_explorer):
    assert_temperature_view_matches_core(heat_explorer)


def test_the_draft_curve_is_drawn_only_where_the_draft_temperature_has_been():
    explorer = TemperatureExplorer()  # T_q = 1: notebook 06's Predict asks where α peaks as T_q moves
    drawn = np.asarray(explorer.picture.draft_line.get_ydata())
    assert np.flatnonzero(~np.isnan(drawn)).tolist() == [20]  # T = 1.00 only
    explorer.controls["draft_temperature"].value = 2.5
    explorer.controls["draft_temperature"].value = 0.5
    drawn = np.asarray(explorer.picture.draft_line.get_ydata())
    assert np.flatnonzero(~np.isnan(drawn)).tolist() == list(range(10, 51))
    assert_temperature_view_matches_core(explorer)


@pytest.mark.parametrize("name", ["target_temperature", "draft_temperature", "seed"])
def test_every_temperature_control_at_its_minimum_maximum_and_middle(heat_explorer, name):
    slider = heat_explorer.controls[name]
    before = heat_explorer.image.value
    for value in slider_positions(slider):
        slider.value = value
        assert_temperature_view_matches_core(heat_explorer)
    assert heat_explorer.image.value != before
    assert_picture_is_a_full_render(heat_explorer)


def seeds_by_greedy_agreement():
    agree, differ = None, None
    for seed in range(100):
        target_logits, draft_logits = related_logits(TEMPERATURE_VOCAB, np.random.default_rng(seed))
        if np.argmax(target_logits) == np.argmax(draft_logits):
            agree = seed if agree is None else agree
        else:
            differ = seed if differ is None else differ
    return agree, differ


@pytest.mark.parametrize("which", ["agree", "differ"])
def test_the_greedy_button_collapses_alpha_to_one_or_zero(which):
    explorer = TemperatureExplorer()
    agree, differ = seeds_by_greedy_agreement()
    explorer.controls["seed"].value = agree if which == "agree" else differ
    explorer.controls["greedy"].click()
    assert explorer.controls["target_temperature"].value == explorer.controls["draft_temperature"].value == 0
    assert_temperature_view_matches_core(explorer)
    assert explorer.shown["alpha"] == (1.0 if which == "agree" else 0.0)
    assert "T_p = 0.00 (target), T_q = 0.00 (draft): both greedy" in explorer.shown["readout"].text()
    assert ("every draft token is accepted" if which == "agree" else "every draft token is rejected") \
        in explorer.shown["readout"].text()
    assert_picture_is_a_full_render(explorer)

    explorer.controls["plain"].click()
    assert explorer.controls["target_temperature"].value == explorer.controls["draft_temperature"].value == 1
    assert_temperature_view_matches_core(explorer)
    assert 0 < explorer.shown["alpha"] < 1


def test_a_button_redraws_the_view_once():
    explorer = TemperatureExplorer(target_temperature=1.0, draft_temperature=1.0)
    pictures = []
    explorer.image.observe(lambda change: pictures.append(change["new"]), names="value")
    explorer.controls["greedy"].click()
    # Moving one slider at a time would show a half-way view (T_p = 0, T_q = 1) first.
    assert len(pictures) == 1


@settings(max_examples=20, deadline=None)
@given(t_p=st.integers(0, 60), t_q=st.integers(0, 60), seed=st.integers(0, 99),
       button=st.sampled_from([None, "greedy", "plain"]))
def test_no_combination_of_temperature_controls_raises(heat_explorer, t_p, t_q, seed, button):
    heat_explorer.controls["seed"].value = seed
    heat_explorer.controls["target_temperature"].value = t_p * 0.05
    heat_explorer.controls["draft_temperature"].value = t_q * 0.05
    if button:
        heat_explorer.controls[button].click()
    assert_temperature_view_matches_core(heat_explorer)
    assert all(math.isfinite(value) for value in heat_explorer.shown["alpha_over_draft_temperature"])


@pytest.mark.parametrize("kwargs, error, name", [
    (dict(target_temperature=-0.1), ValueError, "target_temperature"),
    (dict(draft_temperature=3.5), ValueError, "draft_temperature"),
    (dict(draft_temperature="hot"), TypeError, "draft_temperature"),
    (dict(seed=100), ValueError, "seed"),
])
def test_temperature_explorer_checks_its_starting_values(kwargs, error, name):
    with pytest.raises(error, match=name):
        TemperatureExplorer(**kwargs)

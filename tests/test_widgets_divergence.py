"""The divergence and temperature explorers, driven headless: what they show is what the core says."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import specdec
from specdec.temperature import related_logits, softmax
from specdec.widgets import divergence_explorer, temperature_explorer
from specdec.widgets.divergence import CLOUD_SIZE, TEMPERATURE_GRID, TEMPERATURE_VOCAB, pair_cloud

from .explorer_driving import assert_picture_is_a_full_render, slider_positions


# --- the cloud of pairs ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed, vocab", [(0, 2), (7, 8), (99, 64)])
def test_every_pair_of_the_cloud_agrees_with_the_core(seed, vocab):
    cloud = pair_cloud(seed, vocab)
    assert cloud.targets.shape == cloud.drafts.shape == (CLOUD_SIZE, vocab)
    for i, (p, q) in enumerate(zip(cloud.targets, cloud.drafts)):
        assert cloud.alpha[i] == pytest.approx(specdec.acceptance_rate(p, q), abs=1e-12)
        assert cloud.tv[i] == pytest.approx(specdec.tv_distance(p, q), abs=1e-12)
        assert cloud.kl[i] == pytest.approx(specdec.kl_divergence(p, q), rel=1e-9, abs=1e-12)
    assert (cloud.drafts > 0).all()  # so every KL is finite


def test_the_cloud_spreads_from_near_identical_to_unrelated_pairs():
    cloud = pair_cloud(0, 8)
    assert cloud.alpha.max() > 0.98 and cloud.alpha.min() < 0.4
    assert np.array_equal(pair_cloud(0, 8).alpha, cloud.alpha)  # seeded
    assert not np.array_equal(pair_cloud(1, 8).alpha, cloud.alpha)


@pytest.mark.parametrize("kwargs, error, name", [
    (dict(seed=-1, vocab=4), ValueError, "seed"),
    (dict(seed=0, vocab=1), ValueError, "vocab"),
    (dict(seed=0, vocab=4, count=0), ValueError, "count"),
    (dict(seed=0.5, vocab=4), TypeError, "seed"),
])
def test_pair_cloud_checks_its_arguments(kwargs, error, name):
    with pytest.raises(error, match=name):
        pair_cloud(**kwargs)


@pytest.fixture(scope="module")
def cloud_explorer():
    return divergence_explorer()


def assert_cloud_view_matches_core(explorer):
    seed, vocab, index = (explorer.controls[name].value for name in ("seed", "vocab", "pair"))
    shown = explorer.shown
    cloud = pair_cloud(seed, vocab)
    assert (shown["seed"], shown["vocab"], shown["pair"]) == (seed, vocab, index)
    np.testing.assert_array_equal(shown["cloud"].targets, cloud.targets)
    p, q = cloud.targets[index], cloud.drafts[index]
    assert shown["alpha"] == pytest.approx(specdec.acceptance_rate(p, q), abs=1e-12)
    assert shown["tv"] == pytest.approx(specdec.tv_distance(p, q), abs=1e-12)
    assert shown["kl"] == pytest.approx(specdec.kl_divergence(p, q), rel=1e-9, abs=1e-12)
    assert shown["largest_gap"] < 1e-12
    assert f"α = <b>{specdec.acceptance_rate(p, q):.3f}</b>" in shown["readout"]

    tv_axes, kl_axes = explorer.figure.axes
    (tv_points,) = tv_axes.collections
    np.testing.assert_allclose(tv_points.get_offsets(), np.column_stack([cloud.tv, cloud.alpha]))
    (kl_points,) = kl_axes.collections
    np.testing.assert_allclose(kl_points.get_offsets()[:, 1], cloud.alpha)
    rings = {axes: next(line for line in axes.lines if line.get_label() == "highlighted pair")
             for axes in (tv_axes, kl_axes)}
    assert rings[tv_axes].get_xydata().tolist() == [[cloud.tv[index], cloud.alpha[index]]]
    assert rings[kl_axes].get_ydata()[0] == cloud.alpha[index]


def test_the_first_cloud_view(cloud_explorer):
    assert_cloud_view_matches_core(cloud_explorer)
    low, high = cloud_explorer.shown["neighbour_alpha_range"]
    assert low <= cloud_explorer.shown["alpha"] <= high


@pytest.mark.parametrize("name", ["seed", "vocab", "pair"])
def test_every_cloud_control_at_its_minimum_maximum_and_middle(cloud_explorer, name):
    slider = cloud_explorer.controls[name]
    before = cloud_explorer.image.value
    for value in slider_positions(slider):
        slider.value = value
        assert_cloud_view_matches_core(cloud_explorer)
    assert cloud_explorer.image.value != before
    assert_picture_is_a_full_render(cloud_explorer)


def test_pairs_beyond_the_kl_axis_are_drawn_at_its_edge_and_counted():
    explorer = divergence_explorer()
    for seed in range(100):  # find a cloud with a KL past the axis: V = 2 makes the largest ones
        explorer.controls["vocab"].value = 2
        explorer.controls["seed"].value = seed
        if explorer.shown["beyond_axis"]:
            break
    cloud = explorer.shown["cloud"]
    beyond = cloud.kl > 5.0
    assert explorer.shown["beyond_axis"] == int(beyond.sum()) > 0
    kl_offsets = explorer.figure.axes[1].collections[0].get_offsets()[:, 0]
    assert (kl_offsets[beyond] == 5.0).all() and (kl_offsets[~beyond] == cloud.kl[~beyond]).all()
    assert "drawn at the right edge" in explorer.shown["readout"]


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 99), vocab=st.integers(2, 64), pair=st.integers(0, CLOUD_SIZE - 1))
def test_no_combination_of_cloud_controls_raises(cloud_explorer, seed, vocab, pair):
    for name, value in (("seed", seed), ("vocab", vocab), ("pair", pair)):
        cloud_explorer.controls[name].value = value
    assert_cloud_view_matches_core(cloud_explorer)


# --- temperature ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def heat_explorer():
    return temperature_explorer()


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
    assert f"α = Σ min(p, q) = <b>{shown['alpha']:.3f}</b>" in shown["readout"]

    bars_axes, curve_axes = explorer.figure.axes
    heights = [bar.get_height() for bar in bars_axes.patches]
    np.testing.assert_allclose(heights, [*p, *q])
    lines = {line.get_label(): line for line in curve_axes.lines}
    for i in (0, 7, len(TEMPERATURE_GRID) - 1):  # a few points of each curve, recomputed
        t = TEMPERATURE_GRID[i]
        assert lines["draft at T, target fixed"].get_ydata()[i] == pytest.approx(
            specdec.acceptance_rate(p, softmax(draft_logits, t)), abs=1e-12)
        assert lines["both at one T"].get_ydata()[i] == pytest.approx(
            specdec.acceptance_rate(softmax(target_logits, t), softmax(draft_logits, t)), abs=1e-12)
    (greedy,) = [line for line in curve_axes.lines if line.get_gid() == "greedy"]
    assert greedy.get_xydata().tolist() == [[0.0, shown["greedy_alpha"]]]
    assert lines["the sliders now"].get_xydata().tolist() == [[t_q, shown["alpha"]]]


def test_the_first_temperature_view(heat_explorer):
    assert_temperature_view_matches_core(heat_explorer)


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
    explorer = temperature_explorer()
    agree, differ = seeds_by_greedy_agreement()
    explorer.controls["seed"].value = agree if which == "agree" else differ
    explorer.controls["greedy"].click()
    assert explorer.controls["target_temperature"].value == explorer.controls["draft_temperature"].value == 0
    assert_temperature_view_matches_core(explorer)
    assert explorer.shown["alpha"] == (1.0 if which == "agree" else 0.0)
    assert "(greedy now)" in explorer.shown["readout"]
    assert ("every draft token is accepted" if which == "agree" else "every draft token is rejected") \
        in explorer.shown["readout"]
    assert_picture_is_a_full_render(explorer)

    explorer.controls["plain"].click()
    assert explorer.controls["target_temperature"].value == explorer.controls["draft_temperature"].value == 1
    assert_temperature_view_matches_core(explorer)
    assert 0 < explorer.shown["alpha"] < 1


def test_a_button_redraws_the_view_once():
    explorer = temperature_explorer(target_temperature=1.0, draft_temperature=1.0)
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
        temperature_explorer(**kwargs)


@pytest.mark.parametrize("kwargs, error, name", [
    (dict(vocab=1), ValueError, "vocab"),
    (dict(pair=200), ValueError, "pair"),
])
def test_divergence_explorer_checks_its_starting_values(kwargs, error, name):
    with pytest.raises(error, match=name):
        divergence_explorer(**kwargs)

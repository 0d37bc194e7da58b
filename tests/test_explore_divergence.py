"""The divergence explorer of notebook 06, driven headless: what it shows is what the core says."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import specdec
from specdec.divergence import CLOUD_SIZE, pair_cloud
from specdec.explore import DivergenceExplorer
from specdec.explore.divergence import KL_AXIS_MAX, CloudFigure, kl_band_text

from .explorer_driving import assert_picture_is_a_full_render, slider_positions


@pytest.fixture(scope="module")
def cloud_explorer():
    return DivergenceExplorer()


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
    assert f"Pair {index}: α = {specdec.acceptance_rate(p, q):.3f}, TV = {specdec.tv_distance(p, q):.3f}" \
        in shown["readout"].text()

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
    explorer = DivergenceExplorer()
    for seed in range(100):  # find a cloud with a KL past the axis: V = 2 makes the largest ones
        explorer.controls["vocab"].value = 2
        explorer.controls["seed"].value = seed
        if explorer.shown["beyond_axis"]:
            break
    cloud = explorer.shown["cloud"]
    beyond = cloud.kl > KL_AXIS_MAX
    assert explorer.shown["beyond_axis"] == int(beyond.sum()) > 0
    kl_offsets = explorer.figure.axes[1].collections[0].get_offsets()[:, 0]
    assert (kl_offsets[beyond] == KL_AXIS_MAX).all() and (kl_offsets[~beyond] == cloud.kl[~beyond]).all()
    assert "drawn at the right edge" in explorer.shown["readout"].text()


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 99), vocab=st.integers(2, 64), pair=st.integers(0, CLOUD_SIZE - 1))
def test_no_combination_of_cloud_controls_raises(cloud_explorer, seed, vocab, pair):
    for name, value in (("seed", seed), ("vocab", vocab), ("pair", pair)):
        cloud_explorer.controls[name].value = value
    assert_cloud_view_matches_core(cloud_explorer)


@pytest.mark.parametrize("kwargs, error, name", [
    (dict(vocab=1), ValueError, "vocab"),
    (dict(pair=200), ValueError, "pair"),
])
def test_divergence_explorer_checks_its_starting_values(kwargs, error, name):
    with pytest.raises(error, match=name):
        DivergenceExplorer(**kwargs)


def test_the_kl_conclusion_is_drawn_only_when_the_pairs_support_it():
    from specdec.divergence import MIN_ALPHA_SPREAD, MIN_NEIGHBOURS

    explorer = DivergenceExplorer(seed=0, vocab=2, pair=1)  # moving to pair 0 shows the KL-band line
    seen = set()
    for seed in (0, 1):
        explorer.controls["seed"].value = seed
        for vocab in (2, 8, 64):
            explorer.controls["vocab"].value = vocab
            cloud = explorer.shown["cloud"]
            for index in range(0, len(cloud.alpha), 3):
                explorer.controls["pair"].value = index
                mine = cloud.kl[index]
                alphas = [a for a, kl in zip(cloud.alpha, cloud.kl) if abs(kl - mine) <= 0.1 * mine]
                readout = explorer.shown["readout"].text()
                others = len(alphas) - 1  # the readout counts the pairs other than the highlighted one
                if len(alphas) < MIN_NEIGHBOURS:
                    case = "too few"
                    assert (f"Only {others} other pair" if others else "No other pair has") in readout
                    assert "too few" in readout and f"it takes {MIN_NEIGHBOURS - 1} others" in readout
                elif max(alphas) - min(alphas) <= MIN_ALPHA_SPREAD:
                    case = "narrow"
                    assert f"This pair and the {others} others" in readout and "do not show" in readout
                else:
                    case = "supported"
                    assert f"α from {min(alphas):.3f} to {max(alphas):.3f}" in readout
                assert ("KL alone does not fix α" in readout) == (case == "supported")
                seen.add(case)
    assert {"too few", "supported"} <= seen  # both cases met, so both branches were checked


def test_the_kl_band_line_answering_the_predict_shows_only_once_a_control_has_moved():
    explorer = DivergenceExplorer()  # notebook 06: does one KL fix α? The explorer opens without the answer
    opening = explorer.shown["readout"].plain()
    assert not any("within 10%" in text for text in opening)
    assert explorer.summary().splitlines()[1:] == opening
    explorer.controls["pair"].value = 1
    explorer.controls["pair"].value = 0  # back where it opened: the line stays
    after = explorer.shown["readout"].plain()
    assert after[:len(opening)] == opening and len(after) == len(opening) + 1
    assert after[-1] == kl_band_text(explorer.shown["kl_band"])


def test_the_figure_draws_a_kl_past_the_axis_at_its_edge():
    picture = CloudFigure()
    picture.update(alpha=[0.7, 0.9], tv=[0.3, 0.1], kl=[0.4, 9.0], highlighted=1)
    assert picture.kl_points.get_offsets()[:, 0].tolist() == [0.4, KL_AXIS_MAX]
    assert picture.kl_ring.get_xydata().tolist() == [[KL_AXIS_MAX, 0.9]]
    assert picture.png()[:4] == b"\x89PNG"


def test_the_pinsker_line_shows_the_formula_it_computes_and_the_kl_range_three_decimals():
    from specdec.divergence import pinsker_bound

    explorer = DivergenceExplorer(vocab=64, pair=84)  # KL 2.222: past the end of the bound
    kl, cloud = explorer.shown["kl"], explorer.shown["cloud"]
    readout = explorer.shown["readout"].plain()
    assert kl > 2 and pinsker_bound(kl) == 0.0
    assert f"KL(p‖q) = {kl:.3f} nats; Pinsker's bound max(0, 1 − √(KL/2)) = 0.000" in readout
    assert f"KL(p‖q) spans {cloud.kl.min():.3f} … {cloud.kl.max():.3f} nats." in readout
    explorer.controls["vocab"].value = 8
    explorer.controls["pair"].value = 0  # KL 0.322: a bound, and no note
    kl = explorer.shown["kl"]
    assert f"KL(p‖q) = {kl:.3f} nats; Pinsker's bound max(0, 1 − √(KL/2)) = {float(pinsker_bound(kl)):.3f}" \
        in explorer.shown["readout"].plain()


def test_the_kl_band_line_counts_the_other_pairs():
    explorer = DivergenceExplorer(seed=99, vocab=2, pair=54)
    explorer.controls["pair"].value = 132  # the only pair in its band
    assert explorer.shown["kl_band"].count == 1
    assert explorer.shown["readout"].plain()[-1].startswith("No other pair has a KL within 10% of this one's")

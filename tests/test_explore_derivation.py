"""The derivation explorer of notebook 03, driven through its controls and compared with the core."""

import numpy as np
import pytest

from specdec.explore import DerivationExplorer
from specdec.explore.derivation import DerivationFigure
from specdec.output_law import position_law

from .explorer_driving import assert_picture_is_a_full_render


def test_derivation_starts_on_the_worked_example():
    explorer = DerivationExplorer()
    law = explorer.shown["law"]
    expected = position_law([0.5, 0.3, 0.2, 0.0], [0.25] * 4)
    assert np.allclose(law.accepted, expected.accepted) and np.allclose(law.resampled, expected.resampled)
    assert "α = Σ min(p, q) = 0.700" in explorer.shown["readout"].text()


def test_derivation_bars_stack_to_p_for_the_learners_own_p_and_q():
    explorer = DerivationExplorer()
    weights = {"p0": 0.1, "p1": 0.0, "p2": 0.6, "p3": 0.3, "q0": 0.7, "q1": 0.2, "q2": 0.05, "q3": 0.05}
    for name, value in weights.items():
        explorer.controls[name].value = value
    p = np.array([0.1, 0.0, 0.6, 0.3])
    q = np.array([0.7, 0.2, 0.05, 0.05])
    law = explorer.shown["law"]
    assert np.allclose(law.target, p) and np.allclose(law.draft, q)
    assert explorer.shown["largest_gap"] < 1e-12
    picture_bars = explorer.figure.axes[0].patches
    accepted_heights = [bar.get_height() for bar in picture_bars[:4]]
    resampled_tops = [bar.get_y() + bar.get_height() for bar in picture_bars[4:8]]
    assert np.allclose(accepted_heights, np.minimum(p, q))
    assert np.allclose(resampled_tops, p)


def test_derivation_with_q_equal_to_p_has_nothing_resampled():
    explorer = DerivationExplorer([0.2, 0.8], [0.5, 0.5])
    explorer.controls["q0"].value = 0.2
    explorer.controls["q1"].value = 0.8
    assert explorer.shown["law"].acceptance_rate == pytest.approx(1.0)
    assert np.allclose(explorer.shown["law"].resampled, 0.0)


def test_derivation_all_zero_weights_fall_back_to_uniform():
    explorer = DerivationExplorer([0.5, 0.5], [0.5, 0.5])
    assert "uniform" not in explorer.summary()
    explorer.controls["p0"].value = 0.0
    explorer.controls["p1"].value = 0.0
    assert np.allclose(explorer.shown["law"].target, [0.5, 0.5])
    assert "All weights of p are 0: p is taken as uniform, 0.500 for each token." in explorer.summary()
    explorer.controls["q0"].value = 0.0
    explorer.controls["q1"].value = 0.0
    assert "All weights of p and of q are 0: both are taken as uniform, 0.500 for each token." in explorer.summary()
    explorer.controls["p0"].value = 1.0
    assert "All weights of q are 0: q is taken as uniform, 0.500 for each token." in explorer.summary()


def test_derivation_figure_is_updated_in_place():
    explorer = DerivationExplorer()
    figure, image = explorer.figure, explorer.image.value
    explorer.controls["q3"].value = 0.0
    assert explorer.figure is figure and explorer.image.value != image


def test_derivation_presets_set_q_in_one_click():
    explorer = DerivationExplorer()  # p = (0.5, 0.3, 0.2, 0): D has no weight under p
    controls = explorer.controls
    renders = []
    explorer.image.observe(renders.append, names="value")
    controls["q = p"].click()
    assert len(renders) == 1  # one preset, one redraw
    assert [controls[f"q{i}"].value for i in range(4)] == [0.5, 0.3, 0.2, 0.0]
    assert explorer.shown["law"].acceptance_rate == pytest.approx(1.0)
    assert np.allclose(explorer.shown["law"].resampled, 0.0)

    # All of q on C, the token of notebook 03's Predict (p's least weight above 0): only C is accepted,
    # α = p(C) = 0.2, and the resampled part fills A and B up to p.
    assert controls["q on one token"].description == "all of q on C"
    controls["q on one token"].click()
    assert [controls[f"q{i}"].value for i in range(4)] == [0.0, 0.0, 1.0, 0.0]
    law = explorer.shown["law"]
    assert law.acceptance_rate == pytest.approx(0.2)
    assert np.allclose(law.accepted, [0.0, 0.0, 0.2, 0.0]) and np.allclose(law.resampled, [0.5, 0.3, 0.0, 0.0])

    controls["q where p has none"].click()
    assert [controls[f"q{i}"].value for i in range(4)] == [0.0, 0.0, 0.0, 1.0]
    assert explorer.shown["law"].acceptance_rate == pytest.approx(0.0)
    assert np.allclose(explorer.shown["law"].resampled, [0.5, 0.3, 0.2, 0.0])
    assert explorer.shown["largest_gap"] < 1e-12
    assert_picture_is_a_full_render(explorer)

    controls["p3"].value = 0.1  # now p gives weight to every token: the preset has nothing to use
    assert controls["q where p has none"].disabled
    controls["p3"].value = 0.0
    assert not controls["q where p has none"].disabled


def test_derivation_y_axis_follows_the_bars():
    explorer = DerivationExplorer()  # tallest: p(A) = 0.5
    axes = explorer.figure.axes[0]
    assert axes.get_ylim() == (0, 0.6)
    explorer.controls["q on one token"].click()  # q(C) = 1
    assert axes.get_ylim() == (0, 1.05)
    assert_picture_is_a_full_render(explorer)


@pytest.mark.parametrize(
    "target, draft, error, words",
    [
        ([1.0], [1.0], ValueError, "2 … 8 tokens"),
        ([0.1] * 10, [0.1] * 10, ValueError, "2 … 8 tokens"),
        ([0.5, 0.5], [1.0, 0.0, 0.0], ValueError, "same vocabulary"),
        ([0.5, 0.6], [0.5, 0.5], ValueError, "sum to 1"),
    ],
)
def test_derivation_arguments(target, draft, error, words):
    with pytest.raises(error, match=words):
        DerivationExplorer(target, draft)


def test_derivation_readout_lists_each_token_and_the_sum():
    explorer = DerivationExplorer()
    law = explorer.shown["law"]
    lines = explorer.shown["readout"].plain()
    for label, p, q, a, r in zip("ABCD", law.target, law.draft, law.accepted, law.resampled):
        assert f"{label}: {p:.3f}, {q:.3f} → {a:.3f} + {r:.3f} = {a + r:.3f}" in lines
    keys = [key.plain() for key in explorer.shown["readout"].key_lines()]
    assert len(keys) == 2 and keys[0].startswith("α = Σ min(p, q) = 0.700")
    assert keys[1].startswith("Largest |sum − p| over the tokens: 0.0e+00.")


def test_the_figure_stacks_to_p():
    picture = DerivationFigure(["A", "B", "C", "D"])
    picture.update(position_law([0.5, 0.3, 0.2, 0.0], [0.25] * 4))
    assert [round(float(bar.get_y() + bar.get_height()), 3) for bar in picture.resampled_bars] == [0.5, 0.3, 0.2, 0.0]
    assert [bar.get_height() for bar in picture.target_bars] == [0.5, 0.3, 0.2, 0.0]
    assert picture.png()[:4] == b"\x89PNG"


def test_the_one_token_preset_takes_the_token_p_gives_the_least_weight_above_zero():
    explorer = DerivationExplorer([0.1, 0.6, 0.3], [0.2, 0.2, 0.6])
    assert explorer.controls["q on one token"].description == "all of q on A"
    explorer.controls["q on one token"].click()
    assert explorer.shown["law"].acceptance_rate == pytest.approx(0.1)

"""The one-token explorer, driven headless: every control, preset and state shows what the core computes; its figure."""

import math

import ipywidgets as widgets
import numpy as np
import pytest

from specdec import acceptance_rate, expected_tokens, kl_divergence, residual_distribution, tv_distance
from specdec.explore.frame import Y_TOPS, nice_top
from specdec.explore.frame import COMPACT_SIDE_EM, Explorer, presentation
from specdec.explore.one_token import OneTokenExplorer, OneTokenFigure
from specdec.narrate import random_rows, token_labels

from .explorer_driving import assert_looks_like_a_full_draw, assert_picture_is_a_full_render

LABELS = token_labels(12)
WEIGHT_CONTROLS = [f"{row} {label}" for row in ("p", "q") for label in LABELS]


def slider_rows(explorer):
    """The normalised rows, computed here from the raw slider values (None for a row without mass)."""
    vocab = explorer.controls["vocab"].value
    rows = []
    for row in ("p", "q"):
        weights = np.array([explorer.controls[f"{row} {label}"].value for label in LABELS[:vocab]])
        rows.append(weights / weights.sum() if weights.sum() > 0 else None)
    return rows


def parent_of(root, child):
    """The box that directly holds `child` in the widget tree under `root`."""
    for widget in getattr(root, "children", ()):
        if widget is child:
            return root
        found = parent_of(widget, child)
        if found is not None:
            return found
    return None


def assert_matches_core(explorer):
    shown, readout = explorer.shown, explorer.shown["readout"].text()
    p, q = slider_rows(explorer)
    vocab = explorer.controls["vocab"].value
    gamma = explorer.controls["gamma"].value
    assert shown["vocab"] == vocab and shown["labels"] == LABELS[:vocab]
    for label in LABELS:
        box = parent_of(explorer, explorer.controls[f"p {label}"])
        assert (box.layout.display != "none") == (LABELS.index(label) < vocab)
    if p is None or q is None:
        assert shown["alpha"] is None
        assert "needs some mass" in readout
        return
    np.testing.assert_allclose(shown["target"], p, atol=1e-15)
    np.testing.assert_allclose(shown["draft"], q, atol=1e-15)
    alpha = acceptance_rate(p, q)
    assert shown["alpha"] == pytest.approx(alpha, abs=1e-12)
    assert f"α = Σ min(p, q) = {alpha:.3f}" in readout
    assert shown["alpha"] == pytest.approx(1 - tv_distance(p, q), abs=1e-12)
    assert f"TV(p, q) = ½ Σ |p − q| = {tv_distance(p, q):.3f}" in readout
    kl = kl_divergence(p, q)
    if math.isinf(kl):
        assert math.isinf(shown["kl"]) and "KL(p‖q) = ∞" in readout
    else:
        assert shown["kl"] == pytest.approx(kl) and f"{kl:.4f} nats" in readout
    np.testing.assert_allclose(shown["residual"], residual_distribution(p, q), atol=1e-12)
    assert shown["expected_tokens"] == pytest.approx(expected_tokens(alpha, gamma))
    assert f"{expected_tokens(alpha, gamma):.3f}" in readout
    # The picture: the overlap bars are min(p, q) and the unused tokens' bars are hidden.
    overlap = explorer.picture.overlap_bars
    heights = [bar.get_height() if bar.get_visible() else 0.0 for bar in overlap]
    np.testing.assert_allclose(heights[:vocab], np.minimum(p, q), atol=1e-12)
    assert not any(bar.get_visible() for bar in list(overlap)[vocab:])


def test_default_state_is_specs_example():
    explorer = OneTokenExplorer()
    assert isinstance(explorer, Explorer)
    assert explorer.shown["alpha"] == pytest.approx(0.7)
    np.testing.assert_allclose(explorer.shown["residual"], [5 / 6, 1 / 6, 0, 0])
    assert explorer.image.value[:4] == b"\x89PNG"
    assert_matches_core(explorer)


def drive(explorer, control):
    """Move `control` to its minimum, maximum, middle and minimum again, checking the view each time."""
    middle = control.min + (control.max - control.min) / 2
    if isinstance(control, widgets.IntSlider):
        middle = int(middle)
    for value in (control.min, control.max, middle, control.min):
        control.value = value
        assert_matches_core(explorer)
    assert_picture_is_a_full_render(explorer)  # no changing artist was left unregistered


@pytest.mark.parametrize("names", [["vocab"], ["gamma"], ["closeness"], ["seed"],
                                   WEIGHT_CONTROLS[:12], WEIGHT_CONTROLS[12:]],
                         ids=["vocab", "gamma", "closeness", "seed", "p sliders", "q sliders"])
def test_every_control_at_its_minimum_maximum_and_middle(names):
    explorer = OneTokenExplorer()
    explorer.controls["vocab"].value = 12  # every weight slider in play
    figure = explorer.figure
    artists = len(figure.axes[0].patches) + len(figure.axes[1].patches)
    for name in names:
        drive(explorer, explorer.controls[name])
    assert explorer.figure is figure
    assert len(figure.axes[0].patches) + len(figure.axes[1].patches) == artists  # updated, not rebuilt


def test_presets_set_the_rows_they_name():
    explorer = OneTokenExplorer()
    controls = explorer.controls

    controls["vocab"].value = 7
    controls["worked example"].click()
    assert controls["vocab"].value == 4
    assert explorer.shown["alpha"] == pytest.approx(0.7)
    assert_matches_core(explorer)

    controls["identical"].click()
    assert explorer.shown["alpha"] == pytest.approx(1.0)
    assert explorer.shown["tv"] == pytest.approx(0.0, abs=1e-12)
    assert "never rejected" in explorer.shown["readout"].text()
    assert_matches_core(explorer)

    for vocab in (2, 7, 12):
        controls["vocab"].value = vocab
        controls["disjoint"].click()
        assert explorer.shown["alpha"] == 0.0
        assert math.isinf(explorer.shown["kl"])
        assert "KL(p‖q) = ∞" in explorer.shown["readout"].text() and "which p can produce" in explorer.shown["readout"].text()
        assert_matches_core(explorer)

    controls["vocab"].value = 9
    controls["seed"].value = 42
    controls["closeness"].value = 0.8
    controls["random"].click()
    assert_picture_is_a_full_render(explorer)
    target, draft = random_rows(1, 9, 0.8, np.random.default_rng(42))
    assert [controls[f"p {label}"].value for label in LABELS[:9]] == [round(float(v), 2) for v in target[0]]
    assert [controls[f"q {label}"].value for label in LABELS[:9]] == [round(float(v), 2) for v in draft[0]]
    assert_matches_core(explorer)


def test_closeness_and_seed_reapply_the_random_preset():
    explorer = OneTokenExplorer()
    controls = explorer.controls
    alphas = []
    for closeness in (0.0, 0.5, 1.0):
        controls["closeness"].value = closeness
        target, draft = random_rows(1, 4, closeness, np.random.default_rng(controls["seed"].value))
        assert controls["p A"].value == round(float(target[0][0]), 2)
        alphas.append(explorer.shown["alpha"])
        assert_matches_core(explorer)
    assert alphas[-1] == pytest.approx(1.0, abs=0.02)  # q = p up to the sliders' rounding


def test_a_row_without_mass_is_reported_not_crashed_on():
    explorer = OneTokenExplorer()
    for label in "ABCD":
        explorer.controls[f"p {label}"].value = 0.0
    assert explorer.shown["alpha"] is None
    assert "target p is 0" in explorer.shown["readout"].text() and "needs some mass" in explorer.shown["readout"].text()
    assert_matches_core(explorer)
    for label in "ABCD":
        explorer.controls[f"q {label}"].value = 0.0
    assert "Every weight of p and of q is 0: raise a slider in each row." in explorer.shown["readout"].text()
    assert explorer.picture.rows_note.get_text() == "every weight of p\nand of q is 0:\nraise a slider in each row"
    explorer.controls["p B"].value = 0.5
    explorer.controls["q C"].value = 0.5
    assert explorer.shown["alpha"] == 0.0
    assert_matches_core(explorer)


def test_bad_arguments_are_refused_with_the_argument_named():
    with pytest.raises(ValueError, match="target must have 2 … 12 weights"):
        OneTokenExplorer(target=[1.0], draft=[1.0])
    with pytest.raises(ValueError, match=r"^draft\[1\] = 1.5: each weight must be in \[0, 1\]"):
        OneTokenExplorer(target=[0.5, 0.5], draft=[0.5, 1.5])
    with pytest.raises(ValueError, match="same vocabulary"):
        OneTokenExplorer(target=[0.5, 0.5], draft=[0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match="gamma must be an integer in 0 … 8"):
        OneTokenExplorer(gamma=9)
    with pytest.raises(TypeError, match="gamma"):
        OneTokenExplorer(gamma=2.5)
    with pytest.raises(ValueError, match="closeness"):
        OneTokenExplorer(closeness=1.5)


def test_initial_rows_are_taken_as_weights_and_not_modified():
    target = [0.2, 0.2, 0.6]
    draft = np.array([0.1, 0.1, 0.1])
    explorer = OneTokenExplorer(target=target, draft=draft, gamma=0)
    assert target == [0.2, 0.2, 0.6] and draft.tolist() == [0.1, 0.1, 0.1]
    assert explorer.controls["vocab"].value == 3
    np.testing.assert_allclose(explorer.shown["draft"], [1 / 3] * 3)
    assert explorer.shown["expected_tokens"] == 1.0
    assert_matches_core(explorer)


PRESETS = ["worked example", "identical", "disjoint", "random"]


def control_combinations(count: int = 20, seed: int = 0) -> list[dict]:
    """Settings to put the explorer in, in turn: every control at its minimum and at its maximum (with
    the random preset, which uses the closeness and the seed), each preset, then `count` seeded draws."""
    rng = np.random.default_rng(seed)
    combinations = [
        dict(vocab=2, gamma=0, preset="random", closeness=0.0, seed=0, edits=[("p A", 0.0), ("p B", 0.0)]),
        dict(vocab=12, gamma=8, preset="random", closeness=1.0, seed=999, edits=[("q L", 1.0), ("p L", 1.0)]),
        *(dict(vocab=vocab, gamma=4, preset=preset) for vocab, preset in zip((3, 12, 7, 5), PRESETS)),
    ]
    for _ in range(count):
        edits = [(WEIGHT_CONTROLS[int(rng.integers(len(WEIGHT_CONTROLS)))], float(rng.choice([0.0, 1.0, rng.random()])))
                 for _ in range(int(rng.integers(0, 7)))]
        combinations.append(dict(vocab=int(rng.integers(2, 13)), gamma=int(rng.integers(0, 9)),
                                 preset=[None, *PRESETS][int(rng.integers(len(PRESETS) + 1))],
                                 closeness=float(rng.random()), seed=int(rng.integers(0, 1000)), edits=edits))
    return combinations


def test_no_combination_of_control_values_raises():
    explorer = OneTokenExplorer()  # one explorer, taken from each combination to the next
    controls = explorer.controls
    for combination in control_combinations():
        with explorer.batch():  # one view per combination
            controls["vocab"].value = combination["vocab"]
            controls["gamma"].value = combination["gamma"]
            if combination["preset"] is not None:
                controls["closeness"].value = combination.get("closeness", 0.5)
                controls["seed"].value = combination.get("seed", 0)
                controls[combination["preset"]].click()
            for name, value in combination.get("edits", ()):
                controls[name].value = value
        assert_matches_core(explorer)


def test_presentation_puts_q_rows_first_in_a_side_column_they_fit():
    presentation()
    try:
        explorer = OneTokenExplorer()
    finally:
        presentation(False)
    side = explorer.children[1].children[1]
    presets, key, q_rows, p_rows, *_settings = side.children
    assert key is explorer.key_readout
    assert explorer.controls["identical"] in presets.children
    q_column, p_column = q_rows.children[0], p_rows.children[0]
    assert explorer.controls["q A"] in q_column.children[1].children
    assert explorer.controls["p A"] in p_column.children[1].children
    slider, value = q_column.children[1].children
    widths = [float(width.removesuffix("em")) for width in (slider.layout.width, value.layout.width)]
    assert sum(widths) <= COMPACT_SIDE_EM - 1  # the side column's padding is 1em
    assert [line.plain() for line in explorer.shown["readout"].key_lines()] == [
        f"α = Σ min(p, q) = {explorer.shown['alpha']:.3f}", f"TV(p, q) = ½ Σ |p − q| = {explorer.shown['tv']:.3f} = 1 − α",
        f"γ = 4: {explorer.shown['expected_tokens']:.3f} tokens per step on average"]
    assert 'aria-live' in explorer.key_readout.value
    ordinary = OneTokenExplorer()
    slider = ordinary.controls["q A"]
    assert slider.layout.width == "17em"


# ---- the figure ----


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


@pytest.mark.parametrize("gamma, words", [(0, "γ = 0 draft tokens"), (1, "γ = 1 draft token yields"),
                                          (4, "γ = 4 draft tokens")])
def test_the_draft_tokens_of_a_step_agree_with_gamma(gamma, words):
    assert f"a step with {words}" in OneTokenExplorer(gamma=gamma).summary()
